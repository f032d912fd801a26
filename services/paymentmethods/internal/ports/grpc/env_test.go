package grpcport_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/postgres"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/vault"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	"github.com/thumela/thumela/services/paymentmethods/internal/ports/events"
	grpcport "github.com/thumela/thumela/services/paymentmethods/internal/ports/grpc"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/logging"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
)

// spans records every span of every test in this package, as a production exporter would
// see them (the gRPC stats handler, pgx and the outbox trace through the global provider), so
// the leak test can check that no attribute, event or status carries card data.
var spans = tracetest.NewInMemoryExporter()

func TestMain(m *testing.M) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	code := m.Run()
	_ = tp.Shutdown(context.Background())
	os.Exit(code)
}

// syncBuffer collects the service's log output.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// countingProcessor counts the calls that reach the processor and can make the next charges
// fail as if the processor were unreachable.
type countingProcessor struct {
	next                   app.Processor
	verifies, charges      atomic.Int64
	refunds                atomic.Int64
	failCharges            atomic.Int64 // the next n charges fail before reaching the processor
	declineVerify          atomic.Bool  // verifications are declined card_declined (no sandbox card is)
	mu                     sync.Mutex
	chargeKeys, refundKeys []string
}

func (p *countingProcessor) Verify(ctx context.Context, key string, card app.Card) (domain.Outcome, error) {
	p.verifies.Add(1)
	if p.declineVerify.Load() {
		return domain.Outcome{DeclineCode: sandbox.CodeCardDeclined, DeclineMessage: sandbox.MsgCardDeclined}, nil
	}
	return p.next.Verify(ctx, key, card)
}

func (p *countingProcessor) Charge(ctx context.Context, key string, card app.Card, amount domain.Money, d string) (domain.Outcome, error) {
	p.charges.Add(1)
	p.mu.Lock()
	p.chargeKeys = append(p.chargeKeys, key)
	p.mu.Unlock()
	if p.failCharges.Add(-1) >= 0 {
		return domain.Outcome{}, fmt.Errorf("connection refused")
	}
	p.failCharges.Store(0)
	return p.next.Charge(ctx, key, card, amount, d)
}

func (p *countingProcessor) Records(ctx context.Context, keys []string) ([]app.ProcessorRecord, error) {
	return p.next.Records(ctx, keys)
}

func (p *countingProcessor) Refund(ctx context.Context, key, ref string, amount domain.Money) (domain.Outcome, error) {
	p.refunds.Add(1)
	p.mu.Lock()
	p.refundKeys = append(p.refundKeys, key)
	p.mu.Unlock()
	return p.next.Refund(ctx, key, ref, amount)
}

type options struct {
	sandboxDelay, slowDelay time.Duration
	keyring                 *vault.Keyring
	dbURL                   string // reuse a database (a second service over the same data)
}

// env is one test's service, wired as in production: a fresh migrated database, an embedded
// NATS with the streams, the outbox relay, the transfer-usage consumer, and a real gRPC server
// on loopback behind the access-token checks, logging JSON into logs.
type env struct {
	dbURL     string
	pool      *pgxpool.Pool
	js        jetstream.JetStream
	client    paymentmethodsv1.PaymentMethodsServiceClient
	signer    auth.Signer
	logs      *syncBuffer
	processor *countingProcessor
	keyring   *vault.Keyring
	svc       *app.Service
}

func randomKey(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func newKeyring(t *testing.T) *vault.Keyring {
	t.Helper()
	kek, err := vault.NewKEK(randomKey(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	return vault.NewKeyring(kek)
}

func start(t *testing.T, opt ...options) *env {
	t.Helper()
	var o options
	if len(opt) > 0 {
		o = opt[0]
	}
	ctx, cancel := context.WithCancel(context.Background())
	var background sync.WaitGroup

	e := &env{logs: &syncBuffer{}, dbURL: o.dbURL, keyring: o.keyring}
	logger := logging.New("paymentmethods", e.logs, slog.LevelDebug)
	if e.dbURL == "" {
		e.dbURL = pgtest.NewDatabase(t)
	}
	pool, err := platformpg.Open(ctx, e.dbURL, "paymentmethods", platformpg.WithMaxConns(8), platformpg.WithWait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := platformpg.Migrate(ctx, pool, "paymentmethods", outbox.Migrations, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	e.pool = pool

	// The test publishes and inspects as the test admin; the relay and the consumer under test
	// run with paymentmethods' own credentials, so the permission table is enforced on them.
	ns := natstest.Start(t)
	nc, js, err := bus.Connect(ctx, ns.URL(), "paymentmethods-test", logger, bus.WithCredentials(ns.Credentials(bus.IdentityAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	svcNC, svcJS, err := bus.Connect(ctx, ns.URL(), "paymentmethods", logger, bus.WithCredentials(ns.Credentials("paymentmethods")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svcNC.Close)
	if err := bus.EnsureStreams(ctx, js); err != nil {
		t.Fatal(err)
	}
	e.js = js

	if e.keyring == nil {
		e.keyring = newKeyring(t)
	}
	fp, err := vault.NewFingerprinter(randomKey(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox keeps its records in its own table of the same database, as in production.
	e.processor = &countingProcessor{next: sandbox.New(sandbox.Options{Delay: o.sandboxDelay, SlowDelay: o.slowDelay,
		Store: sandbox.NewPostgresStore(pool)})}
	e.svc = app.New(postgres.New(pool), e.keyring, fp, e.processor, app.Options{ProcessorTimeout: 5 * time.Second, Logger: logger})

	relay, err := outbox.NewRelay(pool, svcJS, "paymentmethods", logger, outbox.WithFallbackInterval(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	background.Go(func() { _ = relay.Run(ctx) })
	consumer := events.New(svcJS, e.svc, logger, 1)
	background.Go(func() { _ = consumer.Run(ctx) })

	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	e.signer = auth.Signer{KeyID: "test-key", Key: key}
	verifier := auth.NewVerifier(auth.StaticKeys{e.signer.PublicKey()}, service.TokenIssuer)
	srv := grpcserver.New(logger, grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, grpcport.Policy)))
	paymentmethodsv1.RegisterPaymentMethodsServiceServer(srv, grpcport.NewServer(e.svc, logger))
	if err := grpcport.Policy.Check(&paymentmethodsv1.PaymentMethodsService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	// Registered before the server's cleanup, so it runs after it: the relay and consumer stop
	// once no RPC can reach the service any more.
	t.Cleanup(func() {
		cancel()
		background.Wait()
	})
	conn := grpctest.Serve(t, srv)
	e.client = paymentmethodsv1.NewPaymentMethodsServiceClient(conn)
	return e
}

// as returns a context whose calls carry user's access token.
func (e *env) as(t *testing.T, userID string) context.Context {
	t.Helper()
	token, err := e.signer.Sign(auth.Claims{
		Subject: userID, Kind: auth.KindUser, Email: "someone@example.co.za", GivenName: "Thandi", FamilyName: "Nkosi",
		Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(5 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithBearer(t.Context(), token)
}

// asService returns a context whose calls carry the named service's token.
func (e *env) asService(t *testing.T, name string) context.Context {
	t.Helper()
	token, err := e.signer.Sign(auth.Claims{
		Subject: name, Kind: auth.KindService, Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(5 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithBearer(t.Context(), token)
}

func (e *env) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func wantCode(t *testing.T, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

func wantStatus(t *testing.T, err error, code codes.Code, msg string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code || st.Message() != msg {
		t.Fatalf("error = %v, want %s %q", err, code, msg)
	}
}

// cardNumber returns a random Luhn-valid 16-digit number starting with prefix that is none of
// the sandbox's special cards.
func cardNumber(t *testing.T, prefix string) string {
	t.Helper()
	for {
		digits := []byte(prefix)
		for len(digits) < 15 {
			n, err := rand.Int(rand.Reader, big.NewInt(10))
			if err != nil {
				t.Fatal(err)
			}
			digits = append(digits, byte('0'+n.Int64()))
		}
		for d := byte('0'); d <= '9'; d++ {
			s := string(append(digits, d))
			if domain.Luhn(s) {
				switch s {
				case sandbox.CardVisa, sandbox.CardMastercard, sandbox.CardDeclined, sandbox.CardInsufficientFunds,
					sandbox.CardSlow, sandbox.CardDeclinedOnCharge:
				default:
					return s
				}
			}
		}
	}
}

// nextYear is a valid two-digit expiry year.
func nextYear() int32 { return int32(time.Now().Year()%100 + 2) }

type user struct{ id string }

func newUser() user { return user{id: uuid.NewString()} }

// addCard adds a card for u and returns the method.
func (e *env) addCard(t *testing.T, u user, name, number string, isDefault bool) *paymentmethodsv1.PaymentMethod {
	t.Helper()
	res, err := e.client.AddCard(e.as(t, u.id), &paymentmethodsv1.AddCardRequest{
		Name: name, CardNumber: number, ExpiryMonth: 12, ExpiryYear: nextYear(), Cvv: "123", IsDefault: isDefault,
	})
	if err != nil {
		t.Fatalf("AddCard %s: %v", name, err)
	}
	return res.GetPaymentMethod()
}

// outboxEvents returns the PaymentMethodChanged events in the outbox, in order.
func (e *env) outboxEvents(t *testing.T) []*paymentmethodsv1.PaymentMethodChanged {
	t.Helper()
	rows, err := e.pool.Query(t.Context(), `SELECT subject, payload FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []*paymentmethodsv1.PaymentMethodChanged
	for rows.Next() {
		var (
			subject string
			payload []byte
		)
		if err := rows.Scan(&subject, &payload); err != nil {
			t.Fatal(err)
		}
		ev := &paymentmethodsv1.PaymentMethodChanged{}
		if err := proto.Unmarshal(payload, ev); err != nil {
			t.Fatal(err)
		}
		if want := "thumela.paymentmethods." + ev.GetUserId() + ".changed"; subject != want {
			t.Fatalf("subject %q, want %q", subject, want)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
