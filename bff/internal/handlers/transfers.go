package handlers

import (
	"context"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/session"
)

// Transfers implements thumela.bff.v1.TransfersService: banks and quotes from fees, the
// transfers themselves from transfers.
type Transfers struct {
	// Unimplemented answers CodeUnimplemented for an RPC not written yet.
	bffv1connect.UnimplementedTransfersServiceHandler
	*Deps
	// limitPolicy caches GetLimitPolicy (limits.go).
	limitPolicy policyCache
}

var _ bffv1connect.TransfersServiceHandler = (*Transfers)(nil)

func (t *Transfers) ListBanks(ctx context.Context, _ *bffv1.ListBanksRequest) (*bffv1.ListBanksResponse, error) {
	res, err := forward(ctx, t.Deps, t.Fees.ListBanks, &feesv1.ListBanksRequest{})
	if err != nil {
		return nil, err
	}
	out := &bffv1.ListBanksResponse{}
	for _, b := range res.GetBanks() {
		out.Banks = append(out.Banks, &bffv1.BankOption{
			Bank:             banks.toBFF(b.GetBank()),
			DisplayName:      b.GetDisplayName(),
			BaseFeeCents:     b.GetBaseFeeCents(),
			PercentageFeeBps: b.GetPercentageFeeBps(),
		})
	}
	return out, nil
}

// QuoteFee asks transfers, not fees: transfers decides the first-transfer waiver when it
// creates the transfer, from the sender's own transfers, so its quote is the fee the create
// will charge.
func (t *Transfers) QuoteFee(ctx context.Context, req *bffv1.QuoteFeeRequest) (*bffv1.QuoteFeeResponse, error) {
	res, err := forward(ctx, t.Deps, t.Transfers.QuoteFee, &transfersv1.QuoteFeeRequest{Bank: banks.toService(req.GetBank()), AmountCents: req.GetAmountCents()})
	if err != nil {
		return nil, err
	}
	return &bffv1.QuoteFeeResponse{Quote: quoteToBFF(res.GetQuote())}, nil
}

func (t *Transfers) CreateTransfer(ctx context.Context, req *bffv1.CreateTransferRequest) (*bffv1.CreateTransferResponse, error) {
	callCtx := ctx
	ctx, g, err := t.authed(ctx)
	if err != nil {
		return nil, err
	}
	in := &transfersv1.CreateTransferRequest{
		IdempotencyKey:  req.GetIdempotencyKey(),
		RecipientName:   req.GetRecipientName(),
		RecipientPhone:  req.GetRecipientPhone(),
		Bank:            banks.toService(req.GetBank()),
		AmountCents:     req.GetAmountCents(),
		PaymentMethodId: req.GetPaymentMethodId(),
		// The sender's PIN goes through as it came: transfers validates it (and keeps only its
		// keyed hash). The BFF never logs a request's body, so it appears nowhere else.
		SenderPin:          req.GetSenderPin(),
		DoNotSaveRecipient: req.GetDoNotSaveRecipient(),
		// The sender's answer to "Do you know {name} personally?"; without it on a first payment
		// to a phone, transfers answers RECIPIENT_CONFIRMATION_REQUIRED, which goes to the
		// browser with its ErrorInfo like STEP_UP_REQUIRED (rpcerr keeps the details).
		RecipientKnownConfirmed: req.GetRecipientKnownConfirmed(),
	}
	if l := req.GetWithdrawalLocation(); l != nil {
		in.WithdrawalLocation = &transfersv1.WithdrawalLocation{Name: l.GetName(), Type: l.GetType()}
	}
	res, err := t.Deps.Transfers.CreateTransfer(ctx, in)
	if err != nil && stepUpRequired(err) {
		if retryCtx, ok := t.freshGrant(callCtx, g); ok {
			res, err = t.Deps.Transfers.CreateTransfer(retryCtx, in)
		}
	}
	t.History.Changed(g.UserID)
	if err != nil {
		return nil, rpcerr.FromService(ctx, t.Logger, err)
	}
	return &bffv1.CreateTransferResponse{Transfer: transferToBFF(res.GetTransfer())}, nil
}

// freshGrant answers transfers' STEP_UP_REQUIRED: the session may have stepped up through
// another replica, whose fresh grant carries the "sua" claim while g, cached here before, does
// not. It drops g and asks identity for a new grant; ok when that is another token, and the
// call may be made once more with the returned context. Without a step-up, identity's grant
// has none either, and the refusal goes to the browser unchanged.
func (d *Deps) freshGrant(callCtx context.Context, g session.Grant) (context.Context, bool) {
	d.Tokens.Forget(d.sessionToken(callCtx))
	ctx, fresh, err := d.authed(callCtx)
	return ctx, err == nil && fresh.AccessToken != g.AccessToken
}

// stepUpRequired reports whether transfers refused a create for want of a fresh step-up
// (transfers.proto: FailedPrecondition with ErrorInfo reason STEP_UP_REQUIRED).
func stepUpRequired(err error) bool {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.FailedPrecondition {
		return false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "STEP_UP_REQUIRED" && info.GetDomain() == "transfers.thumela.co.za" {
			return true
		}
	}
	return false
}

func (t *Transfers) GetTransfer(ctx context.Context, req *bffv1.GetTransferRequest) (*bffv1.GetTransferResponse, error) {
	// Not forward: the SMS's state is read with the same access token after the transfer.
	ctx, _, err := t.authed(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.Deps.Transfers.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: req.GetId()})
	if err != nil {
		return nil, rpcerr.FromService(ctx, t.Logger, err)
	}
	out := transferToBFF(res.GetTransfer())
	// Only a transfer with a voucher has had an SMS sent to its recipient.
	if out.GetVoucher() != nil {
		out.SmsDelivery = t.voucherSMS(ctx, out.GetId())
	}
	return &bffv1.GetTransferResponse{Transfer: out}, nil
}

// smsLookupTimeout bounds how long GetTransfer waits for the SMS's state: the transfer is what
// the sender asked for, the SMS a detail that the live stream brings later anyway.
const smsLookupTimeout = 2 * time.Second

// voucherSMS is the state of the SMS that carried transferID's voucher, nil when there is none
// or it cannot be read (logged): a notifications outage never hides a transfer.
func (t *Transfers) voucherSMS(ctx context.Context, transferID string) *bffv1.SmsDelivery {
	if t.Notifications == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, smsLookupTimeout)
	defer cancel()
	res, err := t.Notifications.ListDeliveries(ctx, &notificationsv1.ListDeliveriesRequest{References: []string{transferID}})
	if err != nil {
		t.Logger.WarnContext(ctx, "could not read the voucher SMS's delivery; the transfer is shown without it", "err", err)
		return nil
	}
	return voucherSMSOf(res.GetDeliveries())
}

func (t *Transfers) ListTransfers(ctx context.Context, req *bffv1.ListTransfersRequest) (*bffv1.ListTransfersResponse, error) {
	ctx, g, err := t.authed(ctx)
	if err != nil {
		return nil, err
	}
	cache := t.history()
	key := historycache.Key{Query: req.GetQuery(), Status: req.GetStatus(), Page: req.GetPage(), PageSize: req.GetPageSize()}
	if res, ok := cache.Get(g.UserID, key); ok {
		return res, nil
	}
	fill := cache.Begin(g.UserID)
	res, err := t.Deps.Transfers.ListTransfers(ctx, &transfersv1.ListTransfersRequest{
		Query:    req.GetQuery(),
		Status:   transferStatuses.toService(req.GetStatus()),
		Page:     req.GetPage(),
		PageSize: req.GetPageSize(),
	})
	if err != nil {
		fill.Drop()
		return nil, rpcerr.FromService(ctx, t.Logger, err)
	}
	out := &bffv1.ListTransfersResponse{Transfers: transfersToBFF(res.GetTransfers()), TotalCount: res.GetTotalCount()}
	fill.Keep(key, out)
	return out, nil
}

// history is the cache of history pages once the live hub reads the events that keep it
// current, nil (keep nothing) before: no event would drop a page. (In an outage after that, the
// events wait in JetStream and the TTL bounds a page's age; historycache.)
func (d *Deps) history() *historycache.Cache {
	if d.Live == nil || !d.Live.Reading() {
		return nil
	}
	return d.History
}

func (t *Transfers) CancelTransfer(ctx context.Context, req *bffv1.CancelTransferRequest) (*bffv1.CancelTransferResponse, error) {
	res, err := forwardChange(ctx, t.Deps, t.Deps.Transfers.CancelTransfer, &transfersv1.CancelTransferRequest{TransferId: req.GetId()})
	if err != nil {
		return nil, err
	}
	return &bffv1.CancelTransferResponse{Transfer: transferToBFF(res.GetTransfer())}, nil
}

func (t *Transfers) ResendVoucher(ctx context.Context, req *bffv1.ResendVoucherRequest) (*bffv1.ResendVoucherResponse, error) {
	// The budget is asked inside the forwarded call: one session look-up for both, and its
	// refusal is mapped at the edge as the services' own are.
	resend := func(ctx context.Context, in *transfersv1.ResendVoucherRequest, opts ...grpc.CallOption) (*transfersv1.ResendVoucherResponse, error) {
		if err := t.refuseSpentSMSBudget(ctx, in.GetTransferId()); err != nil {
			return nil, err
		}
		return t.Deps.Transfers.ResendVoucher(ctx, in, opts...)
	}
	res, err := forwardChange(ctx, t.Deps, resend, &transfersv1.ResendVoucherRequest{TransferId: req.GetId()})
	if err != nil {
		return nil, err
	}
	return &bffv1.ResendVoucherResponse{Transfer: transferToBFF(res.GetTransfer())}, nil
}

// MsgSMSBudgetSpent follows notifications' reason when a resend is refused for the sender's SMS
// budget: what the sender can do instead.
const MsgSMSBudgetSpent = " Try again later, or change the recipient's number."

// refuseSpentSMSBudget answers FailedPrecondition (a gRPC status, as a service's refusal) when
// the resend of transferID's voucher would be failed for the sender's SMS budget to its number:
// a resend issues a new voucher number (and PIN) and spends one of the three resends, and an SMS
// that cannot go would leave the recipient with neither the old voucher nor the new. ctx carries
// the sender's token. It asks transfers for the number and notifications for the budget; when
// either cannot answer, the resend goes on (transfers decides it, and notifications applies the
// budget to its SMS anyway).
func (t *Transfers) refuseSpentSMSBudget(ctx context.Context, transferID string) error {
	if t.Notifications == nil {
		return nil
	}
	got, err := t.Deps.Transfers.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: transferID})
	if err != nil {
		return nil // the resend's own call answers (NotFound, FailedPrecondition, …)
	}
	ctx, cancel := context.WithTimeout(ctx, smsLookupTimeout)
	defer cancel()
	budget, err := t.Notifications.CheckSMSBudget(ctx, &notificationsv1.CheckSMSBudgetRequest{Recipient: got.GetTransfer().GetRecipientPhone()})
	if err != nil {
		t.Logger.WarnContext(ctx, "could not check the SMS budget before a resend; the resend goes on", "err", err)
		return nil
	}
	if !budget.GetSpent() {
		return nil
	}
	return status.Error(codes.FailedPrecondition, budget.GetReason()+MsgSMSBudgetSpent)
}

func (t *Transfers) ChangeRecipientPhone(ctx context.Context, req *bffv1.ChangeRecipientPhoneRequest) (*bffv1.ChangeRecipientPhoneResponse, error) {
	callCtx := ctx
	ctx, g, err := t.authed(ctx)
	if err != nil {
		return nil, err
	}
	in := &transfersv1.ChangeRecipientPhoneRequest{
		TransferId:     req.GetId(),
		RecipientPhone: req.GetRecipientPhone(),
	}
	res, err := t.Deps.Transfers.ChangeRecipientPhone(ctx, in)
	if err != nil && stepUpRequired(err) {
		if retryCtx, ok := t.freshGrant(callCtx, g); ok {
			res, err = t.Deps.Transfers.ChangeRecipientPhone(retryCtx, in)
		}
	}
	t.History.Changed(g.UserID)
	if err != nil {
		return nil, rpcerr.FromService(ctx, t.Logger, err)
	}
	return &bffv1.ChangeRecipientPhoneResponse{Transfer: transferToBFF(res.GetTransfer())}, nil
}
