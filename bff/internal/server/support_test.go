package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// serviceToken is what the test's token source hands out as the BFF's own service token.
const serviceToken = "service-token-for-bff"

// supportCall is one SubmitSupportMessage as notifications received it.
type supportCall struct {
	req           *notificationsv1.SubmitSupportMessageRequest
	authorization string
}

// fakeNotifications is a hand-written notifications service: it records support messages (and
// the token each came with) and answers ListDeliveries from a table, only for a user's token.
type fakeNotifications struct {
	notificationsv1.UnimplementedNotificationsServiceServer
	mu         sync.Mutex
	support    []supportCall
	listCalls  int
	deliveries []*notificationsv1.Delivery
	listErr    error
	retryAfter time.Duration // > 0: SubmitSupportMessage answers ResourceExhausted
}

func authorization(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("authorization"); len(v) == 1 {
		return v[0]
	}
	return ""
}

func (f *fakeNotifications) SubmitSupportMessage(ctx context.Context, req *notificationsv1.SubmitSupportMessageRequest) (*notificationsv1.SubmitSupportMessageResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.support = append(f.support, supportCall{req: proto.Clone(req).(*notificationsv1.SubmitSupportMessageRequest), authorization: authorization(ctx)})
	if f.retryAfter > 0 {
		return nil, grpcserver.WithRetryInfo(codes.ResourceExhausted, "You have sent too many messages. Please try again later.", f.retryAfter)
	}
	if req.GetEmail() == "" {
		return nil, grpcserver.BadRequest("invalid request", map[string][]string{"email": {"Please enter your e-mail address."}})
	}
	return &notificationsv1.SubmitSupportMessageResponse{Ticket: "THM-7Q4K2M"}, nil
}

func (f *fakeNotifications) ListDeliveries(ctx context.Context, req *notificationsv1.ListDeliveriesRequest) (*notificationsv1.ListDeliveriesResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listCalls++
	if !strings.HasPrefix(authorization(ctx), "Bearer access-for-") {
		return nil, status.Error(codes.Unauthenticated, "a user's token is required")
	}
	if f.listErr != nil {
		return nil, f.listErr
	}
	out := &notificationsv1.ListDeliveriesResponse{}
	for _, d := range f.deliveries {
		if slices.Contains(req.GetReferences(), d.GetReference()) {
			out.Deliveries = append(out.Deliveries, d)
		}
	}
	return out, nil
}

// doneTransfers answers GetTransfer: "t-done" is completed with a voucher, anything else pending.
type doneTransfers struct {
	transfersv1.UnimplementedTransfersServiceServer
}

func (doneTransfers) GetTransfer(_ context.Context, req *transfersv1.GetTransferRequest) (*transfersv1.GetTransferResponse, error) {
	t := &transfersv1.Transfer{Id: req.GetTransferId(), UserId: "u1", RecipientPhone: "+27821234567", Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING}
	if req.GetTransferId() == "t-done" {
		t.Status = transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED
		t.Voucher = &transfersv1.Voucher{Number: "4820193746", CollectionStatus: transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION}
	}
	return &transfersv1.GetTransferResponse{Transfer: t}, nil
}

// notificationsBFF is a BFF whose notifications connection carries the BFF's service token
// unless a call carries a user's, as in production.
type notificationsBFF struct {
	srv           *httptest.Server
	notifications *fakeNotifications
}

func newNotificationsBFF(t *testing.T) *notificationsBFF {
	t.Helper()
	identity := &fakeIdentity{sessions: map[string]bool{}}
	notifications := &fakeNotifications{}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
		transfersv1.RegisterTransfersServiceServer(s, doneTransfers{})
	})
	tokens := auth.TokenSourceFunc(func(context.Context) (string, error) { return serviceToken, nil })
	notificationsConn := serveUpstreamWith(t, func(s *grpc.Server) {
		notificationsv1.RegisterNotificationsServiceServer(s, notifications)
	}, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(tokens)))
	idClient := identityv1.NewIdentityServiceClient(conn)
	deps := &handlers.Deps{
		Logger:        quietLogger(),
		Identity:      idClient,
		Profiles:      profilesv1.NewProfilesServiceClient(conn),
		Transfers:     transfersv1.NewTransfersServiceClient(conn),
		Notifications: notificationsv1.NewNotificationsServiceClient(notificationsConn),
		Tokens:        session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:       session.Cookies{Secure: true},
	}
	return &notificationsBFF{srv: serveBFF(t, deps), notifications: notifications}
}

// visitor is a browser without a session; signedIn one whose user (u1) has signed in.
func (b *notificationsBFF) visitor(t *testing.T) *http.Client {
	t.Helper()
	_, hc := client(t, b.srv)
	return hc
}

func (b *notificationsBFF) signedIn(t *testing.T) *http.Client {
	t.Helper()
	auth, hc := client(t, b.srv)
	if _, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	return hc
}

func (b *notificationsBFF) lastSupportCall(t *testing.T) supportCall {
	t.Helper()
	b.notifications.mu.Lock()
	defer b.notifications.mu.Unlock()
	if len(b.notifications.support) == 0 {
		t.Fatal("notifications received no support message")
	}
	return b.notifications.support[len(b.notifications.support)-1]
}

func TestAVisitorsContactMessageCarriesTheServiceTokenAndTheClientAddress(t *testing.T) {
	t.Parallel()
	b := newNotificationsBFF(t)
	support := bffv1connect.NewSupportServiceClient(b.visitor(t), b.srv.URL)
	res, err := support.SubmitSupportMessage(context.Background(), &bffv1.SubmitSupportMessageRequest{
		Kind: bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT, Name: " Lerato Mokoena ", Email: "lerato@example.co.za",
		Subject: "Card question", Message: "Which cards can I use?",
	})
	if err != nil || res.GetTicket() != "THM-7Q4K2M" {
		t.Fatalf("SubmitSupportMessage = %v, %v", res, err)
	}
	got := b.lastSupportCall(t)
	if got.authorization != "Bearer "+serviceToken {
		t.Errorf("a visitor's message came with %q, want the BFF's service token", got.authorization)
	}
	want := &notificationsv1.SubmitSupportMessageRequest{
		Kind: notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT, Name: "Lerato Mokoena", Email: "lerato@example.co.za",
		Subject: "Card question", Message: "Which cards can I use?", ClientAddress: "127.0.0.1",
	}
	if !proto.Equal(got.req, want) {
		t.Errorf("notifications got %v\nwant %v", got.req, want)
	}
}

func TestASignedInSendersMessageCarriesTheirTokenNameAndEmail(t *testing.T) {
	t.Parallel()
	b := newNotificationsBFF(t)
	support := bffv1connect.NewSupportServiceClient(b.signedIn(t), b.srv.URL)
	details := map[string]string{"rating": "5", "recommend": "yes"}
	if _, err := support.SubmitSupportMessage(context.Background(), &bffv1.SubmitSupportMessageRequest{
		Kind: bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_FEEDBACK, Details: details,
	}); err != nil {
		t.Fatal(err)
	}
	got := b.lastSupportCall(t)
	if !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("a signed-in sender's message came with %q, want the user's access token", got.authorization)
	}
	if got.req.GetName() != "Thandi Nkosi" || got.req.GetEmail() != "thandi@example.co.za" {
		t.Errorf("name %q, email %q: want the account's", got.req.GetName(), got.req.GetEmail())
	}
	if got.req.GetKind() != notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_FEEDBACK || got.req.GetDetails()["rating"] != "5" || got.req.GetClientAddress() != "127.0.0.1" {
		t.Errorf("notifications got %v", got.req)
	}

	// What the sender typed wins over the account's.
	if _, err := support.SubmitSupportMessage(context.Background(), &bffv1.SubmitSupportMessageRequest{
		Kind: bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT, Name: "T. Nkosi", Email: "work@example.co.za", Message: "Hello",
	}); err != nil {
		t.Fatal(err)
	}
	if got := b.lastSupportCall(t).req; got.GetName() != "T. Nkosi" || got.GetEmail() != "work@example.co.za" {
		t.Errorf("name %q, email %q: want the typed ones", got.GetName(), got.GetEmail())
	}
}

func TestTooManySupportMessagesPassOnTheRetryDelayAndFieldErrorsTheirViolations(t *testing.T) {
	t.Parallel()
	b := newNotificationsBFF(t)
	support := bffv1connect.NewSupportServiceClient(b.visitor(t), b.srv.URL)

	_, err := support.SubmitSupportMessage(context.Background(), &bffv1.SubmitSupportMessageRequest{Kind: bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION, Message: "Hi"})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("no e-mail from a visitor: %v, want InvalidArgument", err)
	}
	if v := badRequest(t, ce); len(v.GetFieldViolations()) != 1 || v.GetFieldViolations()[0].GetField() != "email" {
		t.Fatalf("violations %v", v)
	}

	b.notifications.mu.Lock()
	b.notifications.retryAfter = 7 * time.Minute
	b.notifications.mu.Unlock()
	_, err = support.SubmitSupportMessage(context.Background(), &bffv1.SubmitSupportMessageRequest{Kind: bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION, Email: "a@example.co.za", Message: "Hi"})
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Message() != "You have sent too many messages. Please try again later." {
		t.Fatalf("rate limited: %v, want ResourceExhausted with the service's message", err)
	}
	var retry *errdetails.RetryInfo
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if r, ok := m.(*errdetails.RetryInfo); ok {
				retry = r
			}
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() != 7*time.Minute {
		t.Fatalf("RetryInfo = %v, want a 7 minute delay", retry)
	}
}

func badRequest(t *testing.T, ce *connect.Error) *errdetails.BadRequest {
	t.Helper()
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if br, ok := m.(*errdetails.BadRequest); ok {
				return br
			}
		}
	}
	t.Fatalf("no BadRequest detail in %v", ce)
	return nil
}

func voucherSMS(reference string, st notificationsv1.DeliveryStatus, queued time.Time) *notificationsv1.Delivery {
	d := &notificationsv1.Delivery{
		RequestId: "req-" + reference + "-" + st.String(), Channel: notificationsv1.Channel_CHANNEL_SMS,
		Template: notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED, Recipient: "+27821234567", Reference: reference,
		Status: st, QueuedAt: timestamppb.New(queued), UpdatedAt: timestamppb.New(queued.Add(time.Minute)),
	}
	switch st {
	case notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED:
		d.SentAt = timestamppb.New(queued.Add(time.Second))
		d.DeliveredAt = timestamppb.New(queued.Add(5 * time.Second))
	case notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED:
		d.FailedAt = timestamppb.New(queued.Add(3 * time.Second))
		d.FailureReason = "The number is not reachable."
	}
	return d
}

func TestGetTransferShowsTheVoucherSMSAndSurvivesNotificationsBeingDown(t *testing.T) {
	t.Parallel()
	b := newNotificationsBFF(t)
	queued := time.Date(2026, 3, 14, 11, 12, 0, 0, time.UTC)
	b.notifications.deliveries = []*notificationsv1.Delivery{
		// The sender's receipt e-mail is about the same transfer, but it is not the SMS.
		{RequestId: "receipt", Channel: notificationsv1.Channel_CHANNEL_EMAIL, Template: notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT,
			Recipient: "thandi@example.co.za", Reference: "t-done", Status: notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT, QueuedAt: timestamppb.New(queued.Add(time.Hour))},
		voucherSMS("t-done", notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED, queued.Add(-time.Hour)),
		voucherSMS("t-done", notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED, queued),
	}
	transfers := bffv1connect.NewTransfersServiceClient(b.signedIn(t), b.srv.URL)
	ctx := context.Background()

	res, err := transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: "t-done"})
	if err != nil {
		t.Fatal(err)
	}
	want := &bffv1.SmsDelivery{
		Status: bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_DELIVERED, Recipient: "+27821234567",
		UpdatedAt: timestamppb.New(queued.Add(5 * time.Second)),
	}
	if got := res.GetTransfer().GetSmsDelivery(); !proto.Equal(got, want) {
		t.Fatalf("sms_delivery = %v, want the newest voucher SMS, delivered, at its delivery time: %v", got, want)
	}

	// A transfer without a voucher had no SMS: notifications is not asked.
	b.notifications.mu.Lock()
	before := b.notifications.listCalls
	b.notifications.mu.Unlock()
	res, err = transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: "t-pending"})
	if err != nil || res.GetTransfer().GetSmsDelivery() != nil {
		t.Fatalf("pending transfer: %v, %v", res, err)
	}
	b.notifications.mu.Lock()
	if b.notifications.listCalls != before {
		t.Errorf("ListDeliveries was asked about a transfer without a voucher")
	}
	b.notifications.listErr = status.Error(codes.Unavailable, "notifications is down")
	b.notifications.mu.Unlock()

	res, err = transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: "t-done"})
	if err != nil {
		t.Fatalf("GetTransfer failed with notifications down: %v", err)
	}
	if res.GetTransfer().GetVoucher().GetNumber() != "4820193746" || res.GetTransfer().GetSmsDelivery() != nil {
		t.Fatalf("with notifications down: %v, want the transfer without its SMS state", res.GetTransfer())
	}
}
