// Package transfersgrpc is the gateway's client of thumela.transfers.v1: CollectVoucher and
// ReverseCollection over gRPC, with the atm-gateway service token on the connection. It turns
// the contract's answers into the domain's errors; the ISO port turns those into response
// codes.
package transfersgrpc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// Client implements app.Transfers.
type Client struct {
	c transfersv1.TransfersServiceClient
}

// New returns the client over conn, which must carry the atm-gateway service token
// (grpc.WithPerRPCCredentials(auth.PerRPCCredentials(...))).
func New(conn grpc.ClientConnInterface) *Client {
	return &Client{c: transfersv1.NewTransfersServiceClient(conn)}
}

var banks = map[domain.Bank]feesv1.Bank{
	domain.BankStandardBank: feesv1.Bank_BANK_STANDARD_BANK,
	domain.BankABSA:         feesv1.Bank_BANK_ABSA,
	domain.BankFNB:          feesv1.Bank_BANK_FNB,
	domain.BankNedbank:      feesv1.Bank_BANK_NEDBANK,
	domain.BankCapitec:      feesv1.Bank_BANK_CAPITEC,
}

var reasons = map[transfersv1.CollectionRefused_Reason]domain.Reason{
	transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS: domain.ReasonWrongCredentials,
	transfersv1.CollectionRefused_REASON_LOCKED:            domain.ReasonLocked,
	transfersv1.CollectionRefused_REASON_EXPIRED:           domain.ReasonExpired,
	transfersv1.CollectionRefused_REASON_CANCELLED:         domain.ReasonCancelled,
	transfersv1.CollectionRefused_REASON_ALREADY_COLLECTED: domain.ReasonAlreadyCollected,
	transfersv1.CollectionRefused_REASON_WRONG_BANK:        domain.ReasonWrongBank,
	transfersv1.CollectionRefused_REASON_WRONG_AMOUNT:      domain.ReasonWrongAmount,
	transfersv1.CollectionRefused_REASON_INVALID_VOUCHER:   domain.ReasonInvalidVoucher,
	transfersv1.CollectionRefused_REASON_REVERSED:          domain.ReasonReversed,
}

// CollectVoucher asks transfers to collect the voucher.
func (c *Client) CollectVoucher(ctx context.Context, w domain.Withdrawal) (domain.Collection, error) {
	res, err := c.c.CollectVoucher(ctx, &transfersv1.CollectVoucherRequest{
		VoucherNumber:          w.Voucher.Reveal(),
		Pin:                    w.PIN.Reveal(),
		RecipientPhone:         w.Phone.Reveal(),
		Bank:                   banks[w.Bank],
		AtmId:                  w.ATMID,
		AmountCents:            int64(w.Amount),
		SystemTraceAuditNumber: w.STAN,
		RetrievalReference:     w.RRN,
		AtmLocation:            w.Location,
	})
	if err != nil {
		return domain.Collection{}, collectError(ctx, err)
	}
	return domain.Collection{
		TransferID:  res.GetTransferId(),
		Amount:      domain.Cents(res.GetAmountCents()),
		CollectedAt: res.GetCollectedAt().AsTime(),
	}, nil
}

// ReverseCollection asks transfers to undo the collection made by the request r names.
func (c *Client) ReverseCollection(ctx context.Context, r domain.Reversal) (domain.ReversalResult, error) {
	res, err := c.c.ReverseCollection(ctx, &transfersv1.ReverseCollectionRequest{
		Bank:                   banks[r.Bank],
		RetrievalReference:     r.RRN,
		SystemTraceAuditNumber: r.STAN,
		AtmId:                  r.ATMID,
		AmountCents:            int64(r.Amount),
		VoucherNumber:          r.Voucher.Reveal(),
	})
	if err != nil {
		if unavailable(ctx, err) {
			return domain.ReversalResult{}, domain.Unavailable(err)
		}
		if status.Code(err) == codes.FailedPrecondition {
			return domain.ReversalResult{}, domain.ErrReversalMismatch
		}
		return domain.ReversalResult{}, fmt.Errorf("transfers ReverseCollection: %w", err)
	}
	return domain.ReversalResult{Reversed: res.GetReversed(), TransferID: res.GetTransferId()}, nil
}

// unavailable: transfers (or identity, for the token) could not be reached or did not answer
// in time, so a retry may succeed.
func unavailable(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return true
	}
	return false
}

// collectError maps a refused CollectVoucher. The CollectionRefused detail decides when there
// is one; without it (transfers before the detail existed) the code decides: PermissionDenied
// is the one answer for wrong credentials, ResourceExhausted a locked voucher, and
// FailedPrecondition any other refusal.
func collectError(ctx context.Context, err error) error {
	if unavailable(ctx, err) {
		return domain.Unavailable(err)
	}
	st := status.Convert(err)
	for _, d := range st.Details() {
		if refused, ok := d.(*transfersv1.CollectionRefused); ok {
			if reason, ok := reasons[refused.GetReason()]; ok {
				return &domain.RefusedError{Reason: reason, AttemptsLeft: int(refused.GetAttemptsLeft())}
			}
		}
	}
	switch st.Code() {
	case codes.PermissionDenied:
		return domain.Refused(domain.ReasonWrongCredentials)
	case codes.ResourceExhausted:
		return domain.Refused(domain.ReasonLocked)
	case codes.FailedPrecondition:
		return domain.Refused(domain.ReasonNotPermitted)
	case codes.NotFound:
		return domain.Refused(domain.ReasonInvalidVoucher)
	case codes.InvalidArgument:
		return &domain.FormatError{Field: "refused by transfers as invalid: " + st.Message()}
	case codes.AlreadyExists:
		return domain.Refused(domain.ReasonReferenceReused)
	}
	return fmt.Errorf("transfers CollectVoucher: %w", err)
}
