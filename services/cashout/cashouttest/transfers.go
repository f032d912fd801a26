package cashouttest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/service"
)

// MaxAttempts is how many wrong attempts lock a voucher (transfers' rule).
const MaxAttempts = 5

// VoucherState is a voucher's collection state.
type VoucherState int

// Collection states.
const (
	Awaiting VoucherState = iota
	Collected
	Cancelled
	Expired
)

func (s VoucherState) String() string {
	return [...]string{"awaiting_collection", "collected", "cancelled", "expired"}[s]
}

// Voucher is one voucher the fake knows.
type Voucher struct {
	Number      string
	PIN         string
	Phone       string // E.164, +27…
	Bank        feesv1.Bank
	AmountCents int64
	State       VoucherState
	TransferID  string
}

// Received is one call the fake received, with what authenticated it.
type Received struct {
	Method  string
	Collect *transfersv1.CollectVoucherRequest
	Reverse *transfersv1.ReverseCollectionRequest
	Caller  auth.Claims
	// TraceParent is the W3C traceparent header of the call ("" when none).
	TraceParent string
}

// FakeTransfers plays transfers' CollectVoucher and ReverseCollection by the contract in
// proto/thumela/transfers/v1/transfers.proto, behind the same access-token check as the real
// service (only the atm-gateway service token is admitted), and safely under concurrent calls:
// a voucher is collected once. It records every call it received.
type FakeTransfers struct {
	transfersv1.UnimplementedTransfersServiceServer
	addr string

	mu          sync.Mutex
	vouchers    map[string]*voucher
	requests    map[requestKey]outcome // (bank, RRN) → the first answer
	unavailable bool
	legacy      bool
	delay       time.Duration
	received    []Received
	nextID      int
}

type voucher struct {
	Voucher
	attempts int
	// collectedBy is the request that collected it.
	collectedBy *requestKey
}

type requestKey struct {
	bank feesv1.Bank
	rrn  string
}

type outcome struct {
	res      *transfersv1.CollectVoucherResponse
	err      error
	number   string // the voucher it collected
	atmID    string // the request's ATM and amount, which a reversal must repeat
	amount   int64
	reversed bool
}

// NewFakeTransfers serves the fake for the length of the test, admitting tokens signed by
// signer (identity's key).
func NewFakeTransfers(t testing.TB, signer auth.Signer) *FakeTransfers {
	t.Helper()
	f := &FakeTransfers{vouchers: map[string]*voucher{}, requests: map[requestKey]outcome{}}
	verifier := auth.NewVerifier(auth.StaticKeys{signer.PublicKey()}, service.TokenIssuer)
	policy := auth.Policy{
		transfersv1.TransfersService_CollectVoucher_FullMethodName:    auth.Services("atm-gateway"),
		transfersv1.TransfersService_ReverseCollection_FullMethodName: auth.Services("atm-gateway"),
	}
	srv := grpcserver.New(slog.New(slog.DiscardHandler),
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, policy)))
	transfersv1.RegisterTransfersServiceServer(srv, f)
	f.addr = grpctest.Listen(t, srv)
	return f
}

// Addr is where the fake listens (TRANSFERS_ADDR).
func (f *FakeTransfers) Addr() string { return f.addr }

// AddVoucher adds a voucher, awaiting collection unless v.State says otherwise.
func (f *FakeTransfers) AddVoucher(v Voucher) Voucher {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	if v.TransferID == "" {
		v.TransferID = fmt.Sprintf("0190f6a4-0000-7000-8000-%012d", f.nextID)
	}
	f.vouchers[v.Number] = &voucher{Voucher: v}
	return v
}

// SetState moves a voucher to state (the sender cancelled it, it expired).
func (f *FakeTransfers) SetState(number string, s VoucherState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vouchers[number].State = s
}

// State is a voucher's collection state.
func (f *FakeTransfers) State(number string) VoucherState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.vouchers[number].State
}

// SetUnavailable makes every call fail with Unavailable (transfers down).
func (f *FakeTransfers) SetUnavailable(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unavailable = on
}

// SetLegacyErrors makes refusals carry no CollectionRefused detail, as transfers answered
// before the detail existed (PermissionDenied, ResourceExhausted, FailedPrecondition).
func (f *FakeTransfers) SetLegacyErrors(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.legacy = on
}

// SetDelay makes CollectVoucher commit at once but answer only after d: a transfers too slow
// for the gateway's timeout, whose collection happened all the same.
func (f *FakeTransfers) SetDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// Received returns the calls received so far.
func (f *FakeTransfers) Received() []Received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Received(nil), f.received...)
}

func (f *FakeTransfers) record(ctx context.Context, r Received) {
	r.Caller, _ = auth.FromContext(ctx)
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if tp := md.Get("traceparent"); len(tp) > 0 {
			r.TraceParent = tp[0]
		}
	}
	f.received = append(f.received, r)
}

// CollectVoucher implements the contract.
func (f *FakeTransfers) CollectVoucher(ctx context.Context, req *transfersv1.CollectVoucherRequest) (*transfersv1.CollectVoucherResponse, error) {
	f.mu.Lock()
	f.record(ctx, Received{Method: "CollectVoucher", Collect: proto.CloneOf(req)})
	if c, _ := auth.FromContext(ctx); !c.IsService("atm-gateway") {
		f.mu.Unlock()
		return nil, status.Error(codes.PermissionDenied, "caller not allowed")
	}
	if f.unavailable {
		f.mu.Unlock()
		return nil, status.Error(codes.Unavailable, "transfers is down")
	}
	key := requestKey{bank: req.GetBank(), rrn: req.GetRetrievalReference()}
	o, repeat := f.requests[key]
	if !repeat {
		o = f.collect(req, key)
		o.atmID, o.amount = req.GetAtmId(), req.GetAmountCents()
		f.requests[key] = o
	}
	delay := f.delay
	f.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	return o.res, o.err
}

// collect decides a first request; f.mu is held.
func (f *FakeTransfers) collect(req *transfersv1.CollectVoucherRequest, key requestKey) outcome {
	number := req.GetVoucherNumber()
	if len(number) != 10 || strings.Trim(number, "0123456789") != "" {
		return outcome{err: f.refuse(codes.InvalidArgument, transfersv1.CollectionRefused_REASON_INVALID_VOUCHER, 0)}
	}
	v := f.vouchers[number]
	if v == nil {
		return outcome{err: f.refuse(codes.PermissionDenied, transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS, 0)}
	}
	if v.attempts >= MaxAttempts {
		return outcome{err: f.refuse(codes.ResourceExhausted, transfersv1.CollectionRefused_REASON_LOCKED, 0)}
	}
	if req.GetPin() != v.PIN || normalizePhone(req.GetRecipientPhone()) != v.Phone {
		v.attempts++
		if v.attempts == MaxAttempts { // the attempt that locks is answered with the lock
			return outcome{err: f.refuse(codes.ResourceExhausted, transfersv1.CollectionRefused_REASON_LOCKED, 0)}
		}
		return outcome{err: f.refuse(codes.PermissionDenied, transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS, MaxAttempts-v.attempts)}
	}
	switch {
	case req.GetBank() != v.Bank:
		return outcome{err: f.refuse(codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_WRONG_BANK, 0)}
	case v.State == Collected:
		return outcome{err: f.refuse(codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_ALREADY_COLLECTED, 0)}
	case v.State == Cancelled:
		return outcome{err: f.refuse(codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_CANCELLED, 0)}
	case v.State == Expired:
		return outcome{err: f.refuse(codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_EXPIRED, 0)}
	case req.GetAmountCents() != v.AmountCents:
		return outcome{err: f.refuse(codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_WRONG_AMOUNT, 0)}
	}
	v.State = Collected
	v.attempts = 0
	v.collectedBy = &key
	return outcome{number: number, res: &transfersv1.CollectVoucherResponse{
		TransferId:  v.TransferID,
		AmountCents: v.AmountCents,
		CollectedAt: timestamppb.Now(),
	}}
}

func (f *FakeTransfers) refuse(code codes.Code, reason transfersv1.CollectionRefused_Reason, attemptsLeft int) error {
	st := status.New(code, "collection refused: "+reason.String())
	if f.legacy {
		return st.Err()
	}
	withDetail, err := st.WithDetails(&transfersv1.CollectionRefused{Reason: reason, AttemptsLeft: int32(attemptsLeft)})
	if err != nil {
		return st.Err()
	}
	return withDetail.Err()
}

// ReverseCollection implements the contract: the collection made by (bank, RRN) is undone
// once; a repeat, or a request that collected nothing, changes nothing; a reversal that does
// not repeat the approved request's ATM, amount and voucher number is FailedPrecondition.
func (f *FakeTransfers) ReverseCollection(ctx context.Context, req *transfersv1.ReverseCollectionRequest) (*transfersv1.ReverseCollectionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(ctx, Received{Method: "ReverseCollection", Reverse: proto.CloneOf(req)})
	if c, _ := auth.FromContext(ctx); !c.IsService("atm-gateway") {
		return nil, status.Error(codes.PermissionDenied, "caller not allowed")
	}
	if f.unavailable {
		return nil, status.Error(codes.Unavailable, "transfers is down")
	}
	key := requestKey{bank: req.GetBank(), rrn: req.GetRetrievalReference()}
	o, ok := f.requests[key]
	if !ok || o.number == "" || o.reversed {
		return &transfersv1.ReverseCollectionResponse{}, nil
	}
	if req.GetAtmId() != o.atmID || req.GetAmountCents() != o.amount || req.GetVoucherNumber() != o.number {
		return nil, status.Error(codes.FailedPrecondition, "The reversal does not match the approved request it names.")
	}
	o.reversed = true
	f.requests[key] = o
	v := f.vouchers[o.number]
	if v.collectedBy != nil && *v.collectedBy == key {
		v.State = Awaiting
		v.collectedBy = nil
	}
	return &transfersv1.ReverseCollectionResponse{Reversed: true, TransferId: v.TransferID}, nil
}

// normalizePhone reads a South African mobile number in the usual notations as E.164.
func normalizePhone(s string) string {
	d := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	switch {
	case strings.HasPrefix(d, "27") && len(d) == 11:
		return "+" + d
	case strings.HasPrefix(d, "0") && len(d) == 10:
		return "+27" + d[1:]
	}
	return s
}
