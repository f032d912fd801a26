package iso

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// serveFrame answers one request: a span, the handling, the answer, the metrics and one log
// line. Nothing here records the voucher number (beyond its last 4 digits), the PIN, the PIN
// block or the phone number.
func (s *Server) serveFrame(ctx context.Context, c *conn, frame []byte) {
	start := time.Now()
	req, err := atmnet.Unpack(frame)
	if err != nil {
		// Answer a request we cannot read with a format error if its MTI can be read; the
		// switch matches it as best it can, or times out and reverses.
		mti, ok := atmnet.PeekMTI(frame)
		res, isReq := atmnet.ResponseMTI(mti)
		s.logger.WarnContext(ctx, "unreadable ISO 8583 message", "mti", mti, "bytes", len(frame), "error", err)
		if ok && isReq {
			s.tel.recordRequest(ctx, mti, atmnet.RespFormatError, time.Since(start))
			// Without a MAC: the zone keys cannot be read from a message that does not unpack.
			_ = c.write(&atmnet.Message{MTI: res, ResponseCode: atmnet.RespFormatError}, nil)
		}
		return
	}
	if _, isReq := atmnet.ResponseMTI(req.MTI); !isReq {
		s.logger.WarnContext(ctx, "unexpected ISO 8583 message from the switch, ignored", "mti", req.MTI, "stan", req.STAN)
		return
	}

	ctx, span := s.tel.tracer.Start(ctx, "iso8583 "+req.MTI,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("iso8583.mti", req.MTI),
			attribute.String("iso8583.terminal_id", req.TerminalID),
			attribute.String("iso8583.stan", req.STAN),
			attribute.String("iso8583.rrn", req.RRN),
			attribute.String("iso8583.acquirer_id", req.AcquirerID),
			attribute.String("iso8583.key_id", req.PINKeyID),
		))
	defer span.End()

	// Authenticated first: a message whose MAC does not verify, or whose zone keys do not speak
	// for its DE 32, is answered and goes no further (transfers never sees it).
	zone, known, err := s.authenticate(frame, req)
	var res *atmnet.Message
	var out outcome
	if err != nil {
		res, out = req.Response(ResponseCode(err)), outcome{err: err}
		if isWithdrawal(req.MTI) {
			s.tel.recordDecline(ctx, res.ResponseCode)
		}
	} else {
		res, out = s.handle(ctx, req, zone)
	}
	err = out.err
	code := res.ResponseCode
	span.SetAttributes(attribute.String("iso8583.response_code", code))
	attrs := []any{"mti", req.MTI, "response_code", code, "terminal_id", req.TerminalID,
		"stan", req.STAN, "rrn", req.RRN, "acquirer_id", req.AcquirerID, "key_id", req.PINKeyID,
		"duration_ms", float64(time.Since(start).Microseconds()) / 1000}
	if v, verr := domain.NewVoucherNumber(req.VoucherNumber); verr == nil {
		attrs = append(attrs, "voucher", v)
	}
	if out.transferID != "" {
		// The collection's transfer: what on-call looks up in transfers (docs/cashout.md).
		span.SetAttributes(attribute.String("thumela.transfer_id", out.transferID))
		attrs = append(attrs, "transfer_id", out.transferID)
	}
	switch code {
	case atmnet.RespSystemMalfunction, atmnet.RespIssuerUnavailable, atmnet.RespPINCryptoError, atmnet.RespSecurityViolation:
		span.RecordError(err)
		span.SetStatus(otelcodes.Error, atmnet.ResponseText(code))
		s.logger.ErrorContext(ctx, "ISO 8583 request failed", append(attrs, "error", err)...)
	default:
		if err != nil {
			attrs = append(attrs, "reason", err.Error())
		}
		s.logger.InfoContext(ctx, "ISO 8583 request", attrs...)
	}
	s.tel.recordRequest(ctx, req.MTI, code, time.Since(start))
	var key *atmnet.MACKey
	if known {
		key = &zone.MAC
	}
	if werr := c.write(res, key); werr != nil {
		s.logger.WarnContext(ctx, "could not answer the switch", "mti", req.MTI, "stan", req.STAN, "error", werr)
	}
}

// authenticate finds the zone keys DE 53 names, checks the message's MAC under their MAC key
// and, for a withdrawal or a reversal, that DE 32 is an acquirer they were issued to. known
// says whether the answer can be MAC'd (the zone keys exist), whatever the error.
func (s *Server) authenticate(frame []byte, req *atmnet.Message) (zone atmnet.Zone, known bool, err error) {
	if req.PINKeyID == "" {
		return atmnet.Zone{}, false, &domain.FormatError{Field: "DE 53 zone keys id"}
	}
	zone, known = s.zones.Zone(req.PINKeyID)
	if !known {
		return atmnet.Zone{}, false, atmnet.ErrUnknownKey
	}
	if err := atmnet.VerifyMAC(frame, req, zone.MAC); err != nil {
		return zone, true, err
	}
	if isWithdrawal(req.MTI) || isReversal(req.MTI) {
		if req.AcquirerID == "" {
			return zone, true, &domain.FormatError{Field: "DE 32 acquiring institution"}
		}
		// An acquirer the gateway pays out for no bank is answered 31 further on (the switch
		// sends a code CASHOUT_BANK_CODES lacks); for one it does, the keys must speak for it.
		if _, err := s.banks.Bank(req.AcquirerID); err != nil {
			return zone, true, nil
		}
		if err := zone.CheckAcquirer(req.AcquirerID); err != nil {
			return zone, true, fmt.Errorf("%w: DE 32 %s under zone keys %s", err, req.AcquirerID, zone.ID())
		}
	}
	return zone, true, nil
}

func isWithdrawal(mti string) bool {
	return mti == atmnet.MTIAuthorizationRequest || mti == atmnet.MTIAuthorizationRequestRepeat
}

func isReversal(mti string) bool {
	return mti == atmnet.MTIReversalAdvice || mti == atmnet.MTIReversalAdviceRepeat
}

// outcome is what the log and the trace say about a request besides its answer.
type outcome struct {
	err        error  // why it was not approved
	transferID string // the transfer whose voucher it collected or reversed
}

// handle answers req, authenticated under zone.
func (s *Server) handle(ctx context.Context, req *atmnet.Message, zone atmnet.Zone) (res *atmnet.Message, out outcome) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.ErrorContext(ctx, "ISO 8583 handler panicked", "panic", r, "stack", string(debug.Stack()))
			res, out = req.Response(atmnet.RespSystemMalfunction), outcome{err: errors.New("panic")}
		}
	}()
	switch req.MTI {
	case atmnet.MTIAuthorizationRequest, atmnet.MTIAuthorizationRequestRepeat:
		return s.withdraw(ctx, req, zone)
	case atmnet.MTIReversalAdvice, atmnet.MTIReversalAdviceRepeat:
		return s.reverse(ctx, req)
	case atmnet.MTINetworkManagementRequest, atmnet.MTINetworkManagementRequestRep:
		return req.Response(atmnet.RespApproved), outcome{}
	default:
		return req.Response(atmnet.RespInvalidTransaction), outcome{err: domain.ErrUnsupported}
	}
}

func (s *Server) withdraw(ctx context.Context, req *atmnet.Message, zone atmnet.Zone) (*atmnet.Message, outcome) {
	w, err := s.withdrawal(req, zone)
	var c domain.Collection
	if err == nil {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("thumela.cashout.bank", w.Bank.String()))
		c, err = s.app.Withdraw(ctx, w)
	}
	res := req.Response(ResponseCode(err))
	if err != nil {
		s.tel.recordDecline(ctx, res.ResponseCode)
		return res, outcome{err: err}
	}
	res.AuthCode = authCode(c.TransferID, req.AcquirerID, req.RRN)
	res.AmountCents = int64(c.Amount)
	s.tel.recordApproval(ctx)
	return res, outcome{transferID: c.TransferID}
}

// withdrawal reads and checks a 0200, authenticated under zone: the references, the
// transmission time, the bank, the amount, then the PIN block. A request refused here never
// reaches transfers: it collects nothing and costs no attempt.
func (s *Server) withdrawal(req *atmnet.Message, zone atmnet.Zone) (domain.Withdrawal, error) {
	if req.ProcessingCode != atmnet.ProcessingCodeCardlessWithdrawal {
		if req.ProcessingCode == "" {
			return domain.Withdrawal{}, &domain.FormatError{Field: "DE 3 processing code"}
		}
		return domain.Withdrawal{}, domain.ErrUnsupported
	}
	if err := checkReferences(req); err != nil {
		return domain.Withdrawal{}, err
	}
	if err := s.checkTransmissionTime(req.TransmissionTime); err != nil {
		return domain.Withdrawal{}, err
	}
	if req.AmountCents <= 0 {
		return domain.Withdrawal{}, &domain.FormatError{Field: "DE 4 amount"}
	}
	if req.Currency != "" && req.Currency != atmnet.CurrencyZAR {
		return domain.Withdrawal{}, domain.ErrCurrency
	}
	bank, err := s.banks.Bank(req.AcquirerID)
	if err != nil {
		return domain.Withdrawal{}, err
	}
	voucher, err := domain.NewVoucherNumber(req.VoucherNumber)
	if err != nil {
		return domain.Withdrawal{}, err
	}
	phone, err := domain.NewPhone(req.RecipientPhone)
	if err != nil {
		return domain.Withdrawal{}, err
	}
	if len(req.PINBlock) != atmnet.PINBlockSize {
		return domain.Withdrawal{}, &domain.FormatError{Field: "DE 52 PIN block"}
	}
	digits, err := zone.PIN.DecryptPIN(req.PINBlock, voucher.Reveal())
	if err != nil {
		// A block that does not decipher: the switch and the gateway disagree on the zone PIN
		// key. Never a wrong PIN, so it costs the recipient no attempt.
		return domain.Withdrawal{}, domain.ErrPINBlock
	}
	pin, err := domain.NewPIN(digits)
	if err != nil {
		return domain.Withdrawal{}, err
	}
	return domain.Withdrawal{
		Voucher:  voucher,
		PIN:      pin,
		Phone:    phone,
		Bank:     bank,
		ATMID:    req.TerminalID,
		Location: strings.TrimSpace(req.Location),
		Amount:   domain.Cents(req.AmountCents),
		STAN:     req.STAN,
		RRN:      req.RRN,
	}, nil
}

// checkReferences: a request the switch cannot match to its answer, or transfers cannot key,
// is a format error.
func checkReferences(req *atmnet.Message) error {
	switch {
	case len(req.STAN) != 6 || strings.Trim(req.STAN, "0123456789") != "":
		return &domain.FormatError{Field: "DE 11 STAN"}
	case len(req.RRN) != 12 || strings.TrimSpace(req.RRN) != req.RRN:
		return &domain.FormatError{Field: "DE 37 RRN"}
	case strings.TrimSpace(req.TerminalID) == "":
		return &domain.FormatError{Field: "DE 41 terminal id"}
	case req.AcquirerID == "" || strings.Trim(req.AcquirerID, "0123456789") != "":
		return &domain.FormatError{Field: "DE 32 acquiring institution"}
	}
	return nil
}

// reverse answers a reversal advice. Reversals are acknowledged (00) whether this one undid a
// collection, repeated an earlier reversal, or named a request that collected nothing: in each
// case the voucher is as it should be. One that names an approved withdrawal but not its ATM,
// amount or voucher number, or comes more than a day late, is answered 25 (no such original):
// nothing was reversed, and the switch's operators should look at where it came from. Only
// when transfers cannot be reached is the answer 91, so that the switch repeats the advice.
func (s *Server) reverse(ctx context.Context, req *atmnet.Message) (*atmnet.Message, outcome) {
	r, err := s.reversal(req)
	if err != nil {
		return req.Response(ResponseCode(err)), outcome{err: err}
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("thumela.cashout.bank", r.Bank.String()))
	result, err := s.app.Reverse(ctx, r)
	switch {
	case err != nil:
		s.tel.recordReversal(ctx, "failed")
	case result.Reversed:
		s.tel.recordReversal(ctx, "reversed")
	default:
		s.tel.recordReversal(ctx, "repeat_or_nothing")
	}
	return req.Response(ResponseCode(err)), outcome{err: err, transferID: result.TransferID}
}

// reversal reads a 0420: the original request is named by the bank (DE 32), its RRN (DE 37,
// which a reversal keeps) and its STAN (from DE 90 when present, else DE 11), and the reversal
// repeats the request's ATM (DE 41), amount (DE 4) and voucher number (DE 2), which transfers
// compares with the approved request. Its DE 7 is not checked: a switch repeats an advice until
// it is acknowledged, for as long as a link or the gateway is down, so a reversal may rightly
// come hours late (transfers accepts one up to a day after the collection), and refusing it
// would leave a voucher collected with no cash dispensed. Applying one late is safe: transfers
// applies a reversal once, and only to the collection its (bank, RRN) made.
func (s *Server) reversal(req *atmnet.Message) (domain.Reversal, error) {
	if err := checkReferences(req); err != nil {
		return domain.Reversal{}, err
	}
	if req.AmountCents <= 0 {
		return domain.Reversal{}, &domain.FormatError{Field: "DE 4 amount"}
	}
	voucher, err := domain.NewVoucherNumber(req.VoucherNumber)
	if err != nil {
		return domain.Reversal{}, err
	}
	stan := req.STAN
	if req.OriginalData != "" {
		o, err := atmnet.ParseOriginalData(req.OriginalData)
		if err != nil {
			return domain.Reversal{}, &domain.FormatError{Field: "DE 90 original data elements"}
		}
		stan = o.STAN
	}
	bank, err := s.banks.Bank(req.AcquirerID)
	if err != nil {
		return domain.Reversal{}, err
	}
	return domain.Reversal{Bank: bank, RRN: req.RRN, STAN: stan, ATMID: strings.TrimSpace(req.TerminalID),
		Amount: domain.Cents(req.AmountCents), Voucher: voucher}, nil
}

// ResponseCode is the one mapping from an outcome to DE 39 (docs/cashout.md has the table).
func ResponseCode(err error) string {
	var refused *domain.RefusedError
	var format *domain.FormatError
	switch {
	case err == nil:
		return atmnet.RespApproved
	case errors.As(err, &refused):
		switch refused.Reason {
		case domain.ReasonWrongCredentials:
			return atmnet.RespIncorrectPIN
		case domain.ReasonLocked:
			return atmnet.RespPINTriesExceeded
		case domain.ReasonExpired:
			return atmnet.RespExpired
		case domain.ReasonCancelled:
			return atmnet.RespRestricted
		case domain.ReasonAlreadyCollected:
			return atmnet.RespInvalidTransaction
		case domain.ReasonWrongBank, domain.ReasonNotPermitted:
			return atmnet.RespNotPermitted
		case domain.ReasonWrongAmount:
			return atmnet.RespInvalidAmount
		case domain.ReasonInvalidVoucher:
			return atmnet.RespInvalidVoucher
		case domain.ReasonReversed, domain.ReasonReferenceReused:
			return atmnet.RespDuplicate
		}
		return atmnet.RespSystemMalfunction
	case errors.As(err, &format), errors.Is(err, domain.ErrTransmissionTime):
		// A DE 7 out of range is an element whose value the gateway cannot accept: 30, so that
		// the switch declines without standing in (as 91 or 96 may make it) and its operators
		// find the element named in the log line's reason.
		return atmnet.RespFormatError
	case errors.Is(err, domain.ErrPINBlock), errors.Is(err, atmnet.ErrUnknownKey):
		return atmnet.RespPINCryptoError
	case errors.Is(err, atmnet.ErrMACMissing), errors.Is(err, atmnet.ErrMACInvalid), errors.Is(err, atmnet.ErrAcquirerNotBound):
		// The message is not authenticated, or its link claims a bank it was not issued keys
		// for: 63, never an answer about the voucher, which was not looked at.
		return atmnet.RespSecurityViolation
	case errors.Is(err, domain.ErrUnknownAcquirer):
		return atmnet.RespBankNotSupported
	case errors.Is(err, domain.ErrUnsupported):
		return atmnet.RespInvalidTransaction
	case errors.Is(err, domain.ErrCurrency):
		return atmnet.RespInvalidAmount
	case errors.Is(err, domain.ErrIssuerUnavailable):
		return atmnet.RespIssuerUnavailable
	case errors.Is(err, domain.ErrReversalMismatch):
		return atmnet.RespNoOriginal
	}
	return atmnet.RespSystemMalfunction
}

// authCode is DE 38 of an approval: 6 characters derived from the collection and the request's
// (bank, RRN), so a repeated request is answered with the same code.
func authCode(transferID, acquirerID, rrn string) string {
	sum := sha256.Sum256([]byte(transferID + "|" + acquirerID + "|" + rrn))
	code := strings.ToUpper(new(big.Int).SetBytes(sum[:8]).Text(36))
	for len(code) < 6 {
		code = "0" + code
	}
	return code[len(code)-6:]
}
