package server_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/grpcserver"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// senderPIN is the PIN the tests' sender chooses; no log line may ever hold it.
const senderPIN = "7395"

var (
	collectedAt = time.Date(2026, 12, 1, 11, 15, 0, 0, time.UTC) // 13:15 in Johannesburg
	expiresAt   = time.Date(2026, 12, 8, 11, 10, 0, 0, time.UTC)
)

// awaitingTransfer is a completed R500.00 transfer to FNB whose voucher (its PIN the sender's)
// awaits collection.
func awaitingTransfer(id, phone, number string, resendsLeft, phoneChangesLeft int32) *transfersv1.Transfer {
	return &transfersv1.Transfer{
		Id: id, UserId: "u1", Reference: id[:min(8, len(id))], RecipientName: "Thandi Mokoena", RecipientPhone: phone,
		Bank: feesv1.Bank_BANK_FNB, AmountCents: 50000, FeeCents: 1245, TotalAmountCents: 51245,
		Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED, RefundStatus: transfersv1.RefundStatus_REFUND_STATUS_NONE,
		Voucher: &transfersv1.Voucher{
			Number: number, CollectionStatus: transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION,
			ExpiresAt: timestamppb.New(expiresAt), PinChosenBySender: true, ResendsLeft: resendsLeft, PhoneChangesLeft: phoneChangesLeft,
		},
	}
}

// call is one request the fake transfers service received, with the token it came with.
type call struct {
	method        string
	req           proto.Message
	authorization string
}

// fakeTransfers is a hand-written transfers service for the transfer RPCs the BFF forwards: it
// records each request and answers the way the real one does for the cases the tests need.
type fakeTransfers struct {
	transfersv1.UnimplementedTransfersServiceServer
	mu    sync.Mutex
	calls []call
	// createErr, when set, is CreateTransfer's answer.
	createErr error
}

func (f *fakeTransfers) record(ctx context.Context, method string, req proto.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{method: method, req: proto.Clone(req), authorization: authorization(ctx)})
}

func (f *fakeTransfers) last(t *testing.T, method string) call {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.calls) - 1; i >= 0; i-- {
		if f.calls[i].method == method {
			return f.calls[i]
		}
	}
	t.Fatalf("transfers received no %s", method)
	return call{}
}

func (f *fakeTransfers) CreateTransfer(ctx context.Context, req *transfersv1.CreateTransferRequest) (*transfersv1.CreateTransferResponse, error) {
	f.record(ctx, "CreateTransfer", req)
	if f.createErr != nil {
		return nil, f.createErr
	}
	if req.GetAmountCents()%1000 != 0 {
		return nil, grpcserver.BadRequest("invalid request", map[string][]string{
			"amount_cents": {"ATMs pay out notes: choose an amount in multiples of R10."},
		})
	}
	tr := &transfersv1.Transfer{
		Id: "tr-new", UserId: "u1", RecipientName: req.GetRecipientName(), RecipientPhone: "+27821234567",
		Bank: req.GetBank(), AmountCents: req.GetAmountCents(), Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING,
		RefundStatus: transfersv1.RefundStatus_REFUND_STATUS_NONE,
	}
	return &transfersv1.CreateTransferResponse{Transfer: tr}, nil
}

func (f *fakeTransfers) GetTransfer(ctx context.Context, req *transfersv1.GetTransferRequest) (*transfersv1.GetTransferResponse, error) {
	f.record(ctx, "GetTransfer", req)
	switch req.GetTransferId() {
	case "tr-awaiting":
		return &transfersv1.GetTransferResponse{Transfer: awaitingTransfer("tr-awaiting", "+27821234567", "4820193746", 3, 3)}, nil
	case "tr-collected":
		tr := awaitingTransfer("tr-collected", "+27821234567", "4820193746", 3, 3)
		tr.Voucher.CollectionStatus = transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED
		tr.Voucher.CollectedAt = timestamppb.New(collectedAt)
		tr.Voucher.CollectedAtLocation = "FNB ATM Sandton City"
		tr.Voucher.ResendsLeft, tr.Voucher.PhoneChangesLeft = 0, 0
		return &transfersv1.GetTransferResponse{Transfer: tr}, nil
	case "tr-refunded":
		tr := awaitingTransfer("tr-refunded", "+27821234567", "4820193746", 0, 0)
		tr.Voucher.CollectionStatus = transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED
		tr.RefundStatus = transfersv1.RefundStatus_REFUND_STATUS_REFUNDED
		return &transfersv1.GetTransferResponse{Transfer: tr}, nil
	}
	return nil, status.Error(codes.NotFound, "transfer not found")
}

func (f *fakeTransfers) QuoteFee(ctx context.Context, req *transfersv1.QuoteFeeRequest) (*transfersv1.QuoteFeeResponse, error) {
	f.record(ctx, "QuoteFee", req)
	if req.GetAmountCents() <= 0 {
		return nil, status.Error(codes.InvalidArgument, "The amount must be greater than zero.")
	}
	return &transfersv1.QuoteFeeResponse{Quote: &feesv1.Quote{AmountCents: req.GetAmountCents(), BankFeeCents: 850, PlatformFeeCents: 150,
		TotalAmountCents: req.GetAmountCents(), Waived: true, WaivedFeeCents: 1000}}, nil
}

func (f *fakeTransfers) ResendVoucher(ctx context.Context, req *transfersv1.ResendVoucherRequest) (*transfersv1.ResendVoucherResponse, error) {
	f.record(ctx, "ResendVoucher", req)
	switch req.GetTransferId() {
	case "tr-awaiting":
		return &transfersv1.ResendVoucherResponse{Transfer: awaitingTransfer("tr-awaiting", "+27821234567", "5930481726", 2, 3)}, nil
	case "tr-used-up":
		return nil, status.Error(codes.FailedPrecondition, "The voucher SMS was already resent 3 times.")
	}
	return nil, status.Error(codes.NotFound, "transfer not found")
}

func (f *fakeTransfers) ChangeRecipientPhone(ctx context.Context, req *transfersv1.ChangeRecipientPhoneRequest) (*transfersv1.ChangeRecipientPhoneResponse, error) {
	f.record(ctx, "ChangeRecipientPhone", req)
	if req.GetRecipientPhone() != "083 555 0101" {
		return nil, grpcserver.BadRequest("invalid request", map[string][]string{
			"recipient_phone": {"Please enter a valid South African mobile number."},
		})
	}
	return &transfersv1.ChangeRecipientPhoneResponse{Transfer: awaitingTransfer(req.GetTransferId(), "+27835550101", "6041592837", 3, 2)}, nil
}

// syncBuffer is a log sink the handlers may write to from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// transfersBFF is a BFF in front of fakeTransfers, logging at debug level into logs.
type transfersBFF struct {
	srv       *httptest.Server
	hc        *http.Client
	transfers *fakeTransfers
	logs      *syncBuffer
}

func newTransfersBFF(t testing.TB) *transfersBFF {
	t.Helper()
	return newTransfersBFFWith(t, nil)
}

// newTransfersBFFWith is newTransfersBFF with its dependencies changed by edit (nil: none).
func newTransfersBFFWith(t testing.TB, edit func(*handlers.Deps)) *transfersBFF {
	t.Helper()
	identity := &fakeIdentity{sessions: map[string]bool{}}
	transfers := &fakeTransfers{}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
		transfersv1.RegisterTransfersServiceServer(s, transfers)
	})
	logs := &syncBuffer{}
	idClient := identityv1.NewIdentityServiceClient(conn)
	deps := &handlers.Deps{
		Logger:    slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Identity:  idClient,
		Profiles:  profilesv1.NewProfilesServiceClient(conn),
		Transfers: transfersv1.NewTransfersServiceClient(conn),
		// No fakes behind these: they answer Unimplemented ("unknown service"), which is what
		// FuzzConnectRequests expects of what the other tests do not need, instead of a BFF
		// calling through a nil client.
		PaymentMethods: paymentmethodsv1.NewPaymentMethodsServiceClient(conn),
		Fees:           feesv1.NewFeesServiceClient(conn),
		Notifications:  notificationsv1.NewNotificationsServiceClient(conn),
		Tokens:         session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:        session.Cookies{Secure: true},
	}
	if edit != nil {
		edit(deps)
	}
	srv := serveBFF(t, deps)
	auth, hc := client(t, srv)
	if _, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	return &transfersBFF{srv: srv, hc: hc, transfers: transfers, logs: logs}
}

// client is the signed-in sender's.
func (b *transfersBFF) client() bffv1connect.TransfersServiceClient {
	return bffv1connect.NewTransfersServiceClient(b.hc, b.srv.URL)
}

func TestCreateTransferForwardsTheSendersPINAndNeverLogsIt(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	transfers := b.client()
	ctx := context.Background()

	req := &bffv1.CreateTransferRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi Mokoena", RecipientPhone: "082 123 4567", Bank: bffv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", WithdrawalLocation: &bffv1.WithdrawalLocation{Name: "Nearest ATM", Type: "default"},
		SenderPin: senderPIN,
	}
	if _, err := transfers.CreateTransfer(ctx, req); err != nil {
		t.Fatal(err)
	}
	got := b.transfers.last(t, "CreateTransfer")
	want := &transfersv1.CreateTransferRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi Mokoena", RecipientPhone: "082 123 4567", Bank: feesv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", WithdrawalLocation: &transfersv1.WithdrawalLocation{Name: "Nearest ATM", Type: "default"},
		SenderPin: senderPIN,
	}
	if !proto.Equal(got.req, want) {
		t.Errorf("transfers got %v\nwant %v", got.req, want)
	}
	if !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("CreateTransfer came with %q, want the user's access token", got.authorization)
	}

	// A refusal keeps the service's field violation (the amount rule's sentence).
	req.AmountCents = 50050
	_, err := transfers.CreateTransfer(ctx, req)
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("R500.50: %v, want InvalidArgument", err)
	}
	if v := badRequest(t, ce).GetFieldViolations(); len(v) != 1 || v[0].GetField() != "amount_cents" ||
		v[0].GetDescription() != "ATMs pay out notes: choose an amount in multiples of R10." {
		t.Fatalf("violations %v", v)
	}

	// An internal failure is logged (with its cause), and still without the request's PIN.
	b.transfers.mu.Lock()
	b.transfers.createErr = status.Error(codes.Internal, "database is down")
	b.transfers.mu.Unlock()
	req.AmountCents = 50000
	if _, err := transfers.CreateTransfer(ctx, req); connect.CodeOf(err) != connect.CodeInternal {
		t.Fatalf("internal failure: %v, want Internal", err)
	}
	logs := b.logs.String()
	if !strings.Contains(logs, "database is down") {
		t.Fatalf("the internal error's cause was not logged; logs:\n%s", logs)
	}
	if strings.Contains(logs, senderPIN) {
		t.Fatalf("the sender's PIN is in the BFF's logs:\n%s", logs)
	}
}

func TestTheTransferViewCarriesCollectionRefundAndReissueState(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	transfers := b.client()
	ctx := context.Background()

	res, err := transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: "tr-collected"})
	if err != nil {
		t.Fatal(err)
	}
	want := &bffv1.Voucher{
		Number: "4820193746", CollectionStatus: bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED,
		ExpiresAt: timestamppb.New(expiresAt), CollectedAt: timestamppb.New(collectedAt),
		CollectedAtLocation: "FNB ATM Sandton City", PinChosenBySender: true,
	}
	if got := res.GetTransfer().GetVoucher(); !proto.Equal(got, want) {
		t.Errorf("collected voucher = %v\nwant %v", got, want)
	}
	if got := res.GetTransfer().GetRefundStatus(); got != bffv1.RefundStatus_REFUND_STATUS_NONE {
		t.Errorf("collected transfer's refund = %v, want NONE", got)
	}

	res, err = transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: "tr-refunded"})
	if err != nil {
		t.Fatal(err)
	}
	if tr := res.GetTransfer(); tr.GetRefundStatus() != bffv1.RefundStatus_REFUND_STATUS_REFUNDED ||
		tr.GetVoucher().GetCollectionStatus() != bffv1.CollectionStatus_COLLECTION_STATUS_CANCELLED {
		t.Errorf("cancelled and refunded transfer = %v", tr)
	}
}

// The wizard's fee quote comes from transfers, which decides the waiver when it creates the
// transfer, with the user's token; its refusals pass through with their words.
func TestQuoteFeeAsksTransfersWithTheUsersToken(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	transfers := b.client()
	ctx := context.Background()

	res, err := transfers.QuoteFee(ctx, &bffv1.QuoteFeeRequest{Bank: bffv1.Bank_BANK_ABSA, AmountCents: 50_000})
	if err != nil {
		t.Fatal(err)
	}
	got := b.transfers.last(t, "QuoteFee")
	if !proto.Equal(got.req, &transfersv1.QuoteFeeRequest{Bank: feesv1.Bank_BANK_ABSA, AmountCents: 50_000}) {
		t.Errorf("transfers got %v", got.req)
	}
	if !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("QuoteFee came with %q, want the user's access token", got.authorization)
	}
	want := &bffv1.FeeQuote{AmountCents: 50_000, BankFeeCents: 850, PlatformFeeCents: 150, TotalAmountCents: 50_000, Waived: true, WaivedFeeCents: 1000}
	if !proto.Equal(res.GetQuote(), want) {
		t.Errorf("quote = %v, want %v", res.GetQuote(), want)
	}

	_, err = transfers.QuoteFee(ctx, &bffv1.QuoteFeeRequest{Bank: bffv1.Bank_BANK_ABSA})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != "The amount must be greater than zero." {
		t.Fatalf("no amount: %v, want InvalidArgument with transfers' words", err)
	}
}

func TestResendVoucherForwardsTheUsersTokenAndAnswersTheReissuedVoucher(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	transfers := b.client()
	ctx := context.Background()

	res, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "tr-awaiting"})
	if err != nil {
		t.Fatal(err)
	}
	got := b.transfers.last(t, "ResendVoucher")
	if !proto.Equal(got.req, &transfersv1.ResendVoucherRequest{TransferId: "tr-awaiting"}) {
		t.Errorf("transfers got %v", got.req)
	}
	if !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("ResendVoucher came with %q, want the user's access token", got.authorization)
	}
	if v := res.GetTransfer().GetVoucher(); v.GetNumber() != "5930481726" || v.GetResendsLeft() != 2 || v.GetPhoneChangesLeft() != 3 {
		t.Errorf("re-issued voucher = %v, want the new number with 2 resends left", v)
	}

	// The service's refusals pass through with their code and words.
	_, err = transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "tr-used-up"})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || ce.Message() != "The voucher SMS was already resent 3 times." {
		t.Fatalf("no resends left: %v, want FailedPrecondition with the service's message", err)
	}
	if _, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "someone-elses"}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("another user's transfer: %v, want NotFound", err)
	}
}

// smsBudget is a hand-written notifications service that answers CheckSMSBudget from a table
// of spent numbers, only for a user's token, or with err when set.
type smsBudget struct {
	notificationsv1.UnimplementedNotificationsServiceServer
	mu     sync.Mutex
	spent  map[string]bool
	err    error
	checks []string // "<authorization> <recipient>"
}

func (f *smsBudget) CheckSMSBudget(ctx context.Context, req *notificationsv1.CheckSMSBudgetRequest) (*notificationsv1.CheckSMSBudgetResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks = append(f.checks, authorization(ctx)+" "+req.GetRecipient())
	if !strings.HasPrefix(authorization(ctx), "Bearer access-for-") {
		return nil, status.Error(codes.Unauthenticated, "a user's token is required")
	}
	if f.err != nil {
		return nil, f.err
	}
	if f.spent[req.GetRecipient()] {
		return &notificationsv1.CheckSMSBudgetResponse{Spent: true, Reason: "You have sent this number as many SMS today as one sender may."}, nil
	}
	return &notificationsv1.CheckSMSBudgetResponse{}, nil
}

func (f *smsBudget) set(spent bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spent, f.err = map[string]bool{"+27821234567": spent}, err
}

func TestResendVoucherIsRefusedWhileTheSendersSMSBudgetToTheNumberIsSpent(t *testing.T) {
	t.Parallel()
	budget := &smsBudget{}
	b := newTransfersBFFWith(t, func(d *handlers.Deps) {
		d.Notifications = notificationsv1.NewNotificationsServiceClient(serveUpstream(t, func(s *grpc.Server) {
			notificationsv1.RegisterNotificationsServiceServer(s, budget)
		}))
	})
	transfers := b.client()
	ctx := context.Background()
	resends := func() int {
		b.transfers.mu.Lock()
		defer b.transfers.mu.Unlock()
		n := 0
		for _, c := range b.transfers.calls {
			if c.method == "ResendVoucher" {
				n++
			}
		}
		return n
	}

	// Spent: refused with notifications' reason and what to do, and transfers is never asked to
	// issue a voucher whose SMS could not go.
	budget.set(true, nil)
	_, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "tr-awaiting"})
	var ce *connect.Error
	want := "You have sent this number as many SMS today as one sender may. Try again later, or change the recipient's number."
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || ce.Message() != want {
		t.Fatalf("spent budget: %v, want FailedPrecondition %q", err, want)
	}
	if n := resends(); n != 0 {
		t.Fatalf("transfers got %d resends with the budget spent, want none", n)
	}
	budget.mu.Lock()
	checks := slices.Clone(budget.checks)
	budget.mu.Unlock()
	if len(checks) != 1 || !strings.HasPrefix(checks[0], "Bearer access-for-") || !strings.HasSuffix(checks[0], " +27821234567") {
		t.Fatalf("budget checks %q, want one with the user's token and the transfer's number", checks)
	}

	// Left: the resend goes through.
	budget.set(false, nil)
	if _, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "tr-awaiting"}); err != nil {
		t.Fatal(err)
	}
	// Notifications down: the resend goes on (notifications applies the budget to the SMS anyway).
	budget.set(true, status.Error(codes.Unavailable, "down"))
	if _, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "tr-awaiting"}); err != nil {
		t.Fatal(err)
	}
	if n := resends(); n != 2 {
		t.Fatalf("transfers got %d resends, want 2", n)
	}
	// Another user's transfer: transfers' own NotFound, whatever the budget.
	if _, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "someone-elses"}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("another user's transfer: %v, want NotFound", err)
	}
}

func TestChangeRecipientPhoneForwardsTheNumberAndPassesOnFieldErrors(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	transfers := b.client()
	ctx := context.Background()

	res, err := transfers.ChangeRecipientPhone(ctx, &bffv1.ChangeRecipientPhoneRequest{Id: "tr-awaiting", RecipientPhone: "083 555 0101"})
	if err != nil {
		t.Fatal(err)
	}
	got := b.transfers.last(t, "ChangeRecipientPhone")
	want := &transfersv1.ChangeRecipientPhoneRequest{TransferId: "tr-awaiting", RecipientPhone: "083 555 0101"}
	if !proto.Equal(got.req, want) {
		t.Errorf("transfers got %v\nwant %v", got.req, want)
	}
	if !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("ChangeRecipientPhone came with %q, want the user's access token", got.authorization)
	}
	if tr := res.GetTransfer(); tr.GetRecipientPhone() != "+27835550101" || tr.GetVoucher().GetNumber() != "6041592837" || tr.GetVoucher().GetPhoneChangesLeft() != 2 {
		t.Errorf("transfer after the change = %v", tr)
	}

	_, err = transfers.ChangeRecipientPhone(ctx, &bffv1.ChangeRecipientPhoneRequest{Id: "tr-awaiting", RecipientPhone: "011 555 0101"})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("a landline: %v, want InvalidArgument", err)
	}
	if v := badRequest(t, ce).GetFieldViolations(); len(v) != 1 || v[0].GetField() != "recipient_phone" {
		t.Fatalf("violations %v", v)
	}
}

func TestTheNewTransferRPCsNeedASession(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	// A browser of its own, without the sender's cookie.
	visitor := &http.Client{Transport: b.srv.Client().Transport}
	transfers := bffv1connect.NewTransfersServiceClient(visitor, b.srv.URL)
	ctx := context.Background()
	if _, err := transfers.ResendVoucher(ctx, &bffv1.ResendVoucherRequest{Id: "tr-awaiting"}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("ResendVoucher without a session: %v, want Unauthenticated", err)
	}
	if _, err := transfers.ChangeRecipientPhone(ctx, &bffv1.ChangeRecipientPhoneRequest{Id: "tr-awaiting", RecipientPhone: "083 555 0101"}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("ChangeRecipientPhone without a session: %v, want Unauthenticated", err)
	}
	b.transfers.mu.Lock()
	defer b.transfers.mu.Unlock()
	if len(b.transfers.calls) != 0 {
		t.Errorf("a call without a session reached transfers: %v", b.transfers.calls)
	}
}

// TestLiveCollectionAndRefundEventsCarryTheirState: a collection and a refund reach the tab with
// where and when the cash was collected and the refund's state, as the dashboard shows them.
func TestLiveCollectionAndRefundEventsCarryTheirState(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	events := signedIn(t, bff)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tab, _ := watch(t, ctx, events, "")

	collected := awaitingTransfer("t1", "+27821234567", "4820193746", 3, 3)
	collected.Voucher.CollectionStatus = transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED
	collected.Voucher.CollectedAt = timestamppb.New(collectedAt)
	collected.Voucher.CollectedAtLocation = "FNB ATM Sandton City"
	publish(t, js, "thumela.transfers.u1.voucher", &transfersv1.VoucherChanged{TransferId: "t1", Transfer: collected})

	refunded := awaitingTransfer("t2", "+27821234567", "5930481726", 3, 3)
	refunded.Voucher.CollectionStatus = transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED
	refunded.RefundStatus = transfersv1.RefundStatus_REFUND_STATUS_REFUNDED
	publish(t, js, "thumela.transfers.u1.status", &transfersv1.TransferStatusChanged{Transfer: refunded})

	first := next(t, tab).GetTransferUpdated().GetTransfer()
	if v := first.GetVoucher(); first.GetId() != "t1" || v.GetCollectionStatus() != bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED ||
		v.GetCollectedAtLocation() != "FNB ATM Sandton City" || !v.GetCollectedAt().AsTime().Equal(collectedAt) {
		t.Fatalf("collection event = %v", first)
	}
	second := next(t, tab).GetTransferUpdated().GetTransfer()
	if second.GetId() != "t2" || second.GetRefundStatus() != bffv1.RefundStatus_REFUND_STATUS_REFUNDED {
		t.Fatalf("refund event = %v", second)
	}
}

// A handler that panics (here: a dependency missing, as a wiring mistake would leave it)
// answers a Connect Internal error, not a reset stream, and the log has the procedure and stack.
func TestAPanickingHandlerAnswersInternal(t *testing.T) {
	t.Parallel()
	b := newTransfersBFFWith(t, func(d *handlers.Deps) { d.PaymentMethods = nil })
	pm := bffv1connect.NewPaymentMethodsServiceClient(b.hc, b.srv.URL)
	_, err := pm.SetDefaultPaymentMethod(context.Background(), &bffv1.SetDefaultPaymentMethodRequest{Id: "pm-1"})
	if connect.CodeOf(err) != connect.CodeInternal {
		t.Fatalf("got %v, want internal", err)
	}
	if logs := b.logs.String(); !strings.Contains(logs, "handler panicked") || !strings.Contains(logs, "SetDefaultPaymentMethod") {
		t.Errorf("the panic is not in the log:\n%s", logs)
	}
}
