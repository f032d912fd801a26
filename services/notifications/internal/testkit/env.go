package testkit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/adapters/postgres"
	smtpadapter "github.com/thumela/thumela/services/notifications/internal/adapters/smtp"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/ports/events"
	grpcport "github.com/thumela/thumela/services/notifications/internal/ports/grpc"
	"github.com/thumela/thumela/services/notifications/internal/ports/webhook"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// Schema is the service's schema.
const Schema = "notifications"

// MailFrom is the tests' From.
const MailFrom = "Thumela <no-reply@thumela.co.za>"

// SupportEmail is the tests' support inbox.
const SupportEmail = "support@thumela.test"

// Discard is a logger that writes nothing.
var Discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// Options tune an Env.
type Options struct {
	// RetryWindow defaults to 24h.
	RetryWindow time.Duration
	// DedupMemory defaults to 11h.
	DedupMemory time.Duration
	// Reports: the BulkSMS double posts a delivery report for every message to the webhook.
	Reports bool
	// SMSPerRecipientPerDay is the per-number SMS budget (default 0: none).
	SMSPerRecipientPerDay int
	// Logger defaults to Discard.
	Logger *slog.Logger
}

// Env is one test's notifications service, in process: a fresh migrated database, an embedded
// NATS with the streams, the SMTP and BulkSMS doubles, the consumer and the outbox relay
// running, the webhook on an httptest server and the gRPC API behind the production token
// checks.
type Env struct {
	Pool      *pgxpool.Pool
	NATS      *natstest.Server
	NC        *nats.Conn
	JS        jetstream.JetStream
	SMTP      *SMTPServer
	SMS       *BulkSMS
	Key       seal.PrivateKey
	Store     *postgres.Store
	Deliverer *app.Deliverer
	// WebhookBase is the webhook server's URL; WebhookURL the reports' URL with the token.
	WebhookBase, WebhookURL string
	Client                  notificationsv1.NotificationsServiceClient
	Signer                  auth.Signer
}

// WebhookToken is the tests' NOTIFICATIONS_WEBHOOK_TOKEN.
const WebhookToken = "test-webhook-token-0123456789abcdef"

// New builds an Env; everything stops when the test ends.
func New(t testing.TB, opts Options) *Env {
	t.Helper()
	if opts.RetryWindow == 0 {
		opts.RetryWindow = 24 * time.Hour
	}
	logger := opts.Logger
	if logger == nil {
		logger = Discard
	}
	e := &Env{SMTP: StartSMTP(t), SMS: StartBulkSMS(t)}
	e.Pool = pgtest.NewPool(t, Schema, outbox.Migrations, postgres.Migrations)
	e.NATS = natstest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	// The test publishes and inspects as the test admin (fixtures no service would send); the
	// relay and the consumer under test run with notifications' own credentials, so the
	// permission table is enforced on them.
	nc, js, err := bus.Connect(ctx, e.NATS.URL(), "notifications-test", logger, bus.WithCredentials(e.NATS.Credentials(bus.IdentityAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	svcNC, svcJS, err := bus.Connect(ctx, e.NATS.URL(), "notifications", logger, bus.WithCredentials(e.NATS.Credentials("notifications")))
	if err != nil {
		t.Fatal(err)
	}
	e.NC, e.JS = nc, js
	if err := bus.EnsureStreams(ctx, js); err != nil {
		t.Fatal(err)
	}
	e.Key = sealtest.NewKey(t)
	keyring, err := seal.NewKeyring(e.Key)
	if err != nil {
		t.Fatal(err)
	}
	mailer, err := smtpadapter.New(smtpadapter.Config{
		Addr: e.SMTP.Addr, TLS: smtpadapter.TLSStartTLS, Username: e.SMTP.Username, Password: e.SMTP.Password,
		CAFile: e.SMTP.CAFile, From: MailFrom, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	sms, err := bulksms.New(bulksms.Config{URL: e.SMS.URL, TokenID: e.SMS.TokenID, TokenSecret: e.SMS.TokenSecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.Store = postgres.New(e.Pool)
	e.Deliverer, err = app.NewDeliverer(e.Store, mailer, sms, keyring, app.DeliverConfig{
		RetryWindow: opts.RetryWindow, SendTimeout: 5 * time.Second, DedupMemory: opts.DedupMemory,
		BackoffBase: 50 * time.Millisecond, BackoffMax: 400 * time.Millisecond, SMSPerRecipientPerDay: opts.SMSPerRecipientPerDay,
	}, nil, logger)
	if err != nil {
		t.Fatal(err)
	}

	relay, err := outbox.NewRelay(e.Pool, svcJS, Schema, logger)
	if err != nil {
		t.Fatal(err)
	}
	consumer := events.New(svcJS, e.Deliverer, events.Config{Workers: 4, AckWait: 20 * time.Second}, logger)
	var wg sync.WaitGroup
	wg.Go(func() { _ = relay.Run(ctx) })
	wg.Go(func() { _ = consumer.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		nc.Close()
		svcNC.Close()
	})

	hook := httptest.NewServer(webhook.New(e.Deliverer, WebhookToken, logger).ServeMux())
	t.Cleanup(hook.Close)
	e.WebhookBase = hook.URL
	e.WebhookURL = hook.URL + "/webhooks/bulksms/" + WebhookToken
	if opts.Reports {
		e.SMS.ReportTo(e.WebhookURL)
	}

	e.Signer = servicetest.NewSigner(t)
	verifier := auth.NewVerifier(auth.StaticKeys{e.Signer.PublicKey()}, service.TokenIssuer)
	if err := grpcport.Policy.Check(&notificationsv1.NotificationsService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	srv := grpcserver.New(logger, grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, grpcport.Policy)))
	notificationsv1.RegisterNotificationsServiceServer(srv, grpcport.NewServer(
		app.NewService(e.Store, e.Store, e.Deliverer, SupportEmail, nil, logger), logger))
	e.Client = notificationsv1.NewNotificationsServiceClient(grpctest.Serve(t, srv))
	return e
}

// UserContext returns a context carrying a user token for userID (Thandi Nkosi).
func (e *Env) UserContext(t *testing.T, userID string) context.Context {
	t.Helper()
	c := servicetest.UserClaims(userID)
	c.Email = "thandi@example.co.za"
	return servicetest.BearerContext(t, e.Signer, c)
}

// ServiceContext returns a context carrying a service token naming caller.
func (e *Env) ServiceContext(t *testing.T, caller string) context.Context {
	t.Helper()
	return servicetest.BearerContext(t, e.Signer, auth.Claims{Subject: caller, Kind: auth.KindService})
}

// Seal seals values to pub as a request's secrets.
func Seal(t testing.TB, pub seal.PublicKey, values map[string]string) *notificationsv1.Sealed {
	t.Helper()
	plain, err := proto.Marshal(&notificationsv1.Secrets{Values: values})
	if err != nil {
		t.Fatal(err)
	}
	s, err := seal.Seal(pub, plain)
	if err != nil {
		t.Fatal(err)
	}
	return &notificationsv1.Sealed{KeyId: s.KeyID, Box: s.Box}
}

// CodeRequest is a sign-up code e-mail to email about user, with code sealed to pub.
func CodeRequest(t testing.TB, pub seal.PublicKey, user, email, code string) *notificationsv1.NotificationRequest {
	return &notificationsv1.NotificationRequest{
		Id: uuid.NewString(), Channel: notificationsv1.Channel_CHANNEL_EMAIL, Recipient: email,
		Template: notificationsv1.Template_TEMPLATE_SIGN_UP_CODE,
		Params:   map[string]string{domain.ParamFirstName: "Thandi", domain.ParamTTLMinutes: "10"},
		Secrets:  Seal(t, pub, map[string]string{domain.SecretCode: code}),
		UserId:   user, Reference: "signup", SourceService: "identity", CreatedAt: timestamppb.Now(),
	}
}

// VoucherRequest is the recipient's voucher SMS to phone about user's transfer reference,
// with the voucher number and PIN sealed to pub.
func VoucherRequest(t testing.TB, pub seal.PublicKey, user, phone, reference string) *notificationsv1.NotificationRequest {
	return &notificationsv1.NotificationRequest{
		Id: uuid.NewString(), Channel: notificationsv1.Channel_CHANNEL_SMS, Recipient: phone,
		Template: notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED,
		Params: map[string]string{
			domain.ParamSenderName: "Thandi Nkosi", domain.ParamAmountCents: "123400", domain.ParamBank: "standard_bank",
			domain.ParamExpiresAt: "2026-03-25T11:12:00Z", domain.ParamReference: reference,
		},
		Secrets: Seal(t, pub, map[string]string{domain.SecretVoucherNumber: "1234 5678 9012", domain.SecretPIN: "4821"}),
		UserId:  user, Reference: reference, SourceService: "transfers", CreatedAt: timestamppb.Now(),
	}
}

// Publish publishes req on thumela.notifications.<source service>.<user>.<channel>, as its
// publisher's relay would (Nats-Msg-Id = the request id).
func Publish(t testing.TB, js jetstream.JetStream, req *notificationsv1.NotificationRequest) {
	t.Helper()
	data, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	channel := strings.TrimPrefix(strings.ToLower(req.GetChannel().String()), "channel_")
	subject, err := bus.NotificationSubject(req.GetSourceService(), req.GetUserId(), channel)
	if err != nil {
		t.Fatal(err)
	}
	PublishRaw(t, js, subject, data, req.GetId())
}

// PublishRaw publishes data on subject with msgID.
func PublishRaw(t testing.TB, js jetstream.JetStream, subject string, data []byte, msgID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.Publish(ctx, subject, data, jetstream.WithMsgID(msgID)); err != nil {
		t.Fatal(err)
	}
}

// Publish is Publish on e's NATS.
func (e *Env) Publish(t testing.TB, req *notificationsv1.NotificationRequest) { Publish(t, e.JS, req) }

// Delivery reads the delivery of requestID; ok is false when there is none.
func (e *Env) Delivery(t testing.TB, requestID string) (domain.Delivery, bool) {
	t.Helper()
	id := uuid.MustParse(requestID)
	d, err := e.Store.Get(context.Background(), id)
	if err != nil {
		return domain.Delivery{}, false
	}
	return d, true
}

// WaitStatus waits until the delivery of requestID has status.
func (e *Env) WaitStatus(t testing.TB, requestID string, status domain.Status, within time.Duration) domain.Delivery {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		d, ok := e.Delivery(t, requestID)
		if ok && d.Status == status {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s: %v (found %v) after %s, want %s", requestID, d.Status, ok, within, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Events reads every DeliveryChanged of user from the events stream, in order.
func Events(t testing.TB, js jetstream.JetStream, user string) []*notificationsv1.DeliveryChanged {
	t.Helper()
	subject, err := bus.Subject(bus.DomainDeliveries, user, "changed")
	if err != nil {
		t.Fatal(err)
	}
	var out []*notificationsv1.DeliveryChanged
	for _, m := range ReadStream(t, js, bus.StreamEvents, subject) {
		var ev notificationsv1.DeliveryChanged
		if err := proto.Unmarshal(m.Data, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, &ev)
	}
	return out
}

// WaitEvents waits until user's events about requestID reach the statuses want, in order.
func WaitEvents(t testing.TB, js jetstream.JetStream, user, requestID string, want ...notificationsv1.DeliveryStatus) []*notificationsv1.DeliveryChanged {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var got []notificationsv1.DeliveryStatus
	for {
		var evs []*notificationsv1.DeliveryChanged
		got = got[:0]
		for _, ev := range Events(t, js, user) {
			if ev.GetDelivery().GetRequestId() == requestID {
				evs = append(evs, ev)
				got = append(got, ev.GetDelivery().GetStatus())
			}
		}
		if len(got) >= len(want) {
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("events of %s: %v, want %v", requestID, got, want)
				}
			}
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("events of %s: %v, want %v", requestID, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StreamMsg is one message read from a stream.
type StreamMsg struct {
	Subject string
	Data    []byte
	Header  nats.Header
}

// ReadStream reads every message of stream on subject (a filter; "" for all), by sequence
// number, so that it also reads a work queue without consuming it.
func ReadStream(t testing.TB, js jetstream.JetStream, stream, subject string) []StreamMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []StreamMsg
	if info.State.Msgs == 0 {
		return nil
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if subject != "" && !subjectMatches(subject, m.Subject) {
			continue
		}
		out = append(out, StreamMsg{Subject: m.Subject, Data: m.Data, Header: m.Header})
	}
	return out
}

// subjectMatches reports whether subject matches filter (literal tokens, * and >).
func subjectMatches(filter, subject string) bool {
	f, s := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, tok := range f {
		if tok == ">" {
			return len(s) > i
		}
		if i >= len(s) || tok != "*" && tok != s[i] {
			return false
		}
	}
	return len(f) == len(s)
}

// WaitDead waits until the dead-letter stream holds n messages and returns them.
func WaitDead(t testing.TB, js jetstream.JetStream, n int) []StreamMsg {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := ReadStream(t, js, bus.StreamNotificationsDead, "")
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d dead letters, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
