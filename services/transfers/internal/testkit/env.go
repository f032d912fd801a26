package testkit

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
)

// Schema is the service's schema.
const Schema = "transfers"

// Options tune an Env.
type Options struct {
	// Limits default to domain.DefaultLimits.
	Limits domain.Limits
	// Start is the clock's start (default: a Wednesday noon in Johannesburg, mid-month).
	Start time.Time
	// MaxConns sizes the pool (default 4: many packages share one server).
	MaxConns int32
	// WrapFees and WrapPayments, when set, put something between the App and the fakes (the
	// local fee schedule, the card cache), as the binary does.
	WrapFees     func(app.Fees) app.Fees
	WrapPayments func(app.PaymentMethods) app.PaymentMethods
}

// Env is one test's service: a fresh migrated database, the fakes, the app and the real gRPC
// API on loopback behind the production token checks.
type Env struct {
	DBURL    string
	Pool     *pgxpool.Pool
	Clock    *Clock
	Payments *FakePayments
	Fees     *FakeFees
	// Repo is the repository the App writes through; a worker started on the env's pool
	// shares it, so the App's commits wake that worker as in the binary.
	Repo *postgres.Transfers
	App  *app.Service
	// PINs MACs the vouchers' PINs under PINKey.
	PINs *domain.PINHasher
	// SealKey is the notifications service's key pair: the repository seals the secrets of
	// notification requests to its public half; Secrets opens them with the private one.
	SealKey seal.PrivateKey
	Client  transfersv1.TransfersServiceClient
	Logger  *slog.Logger
	// Reconciler is the reconciliation job over the env's database and Payments (its Reconcile
	// is the RPC's).
	Reconciler *app.Reconciler
	signer     auth.Signer
}

// PINKey is the tests' TRANSFERS_PIN_KEY: base64 of 32 bytes.
const PINKey = "dGVzdC1waW4ta2V5LTAxMjM0NTY3ODlhYmNkZWYwMTI="

// PINHasher returns a hasher under PINKey.
func PINHasher(t testing.TB) *domain.PINHasher {
	t.Helper()
	k, err := domain.ParsePINKey(PINKey)
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewPINHasher(k)
}

// DefaultStart is 2026-03-18 12:00 in Johannesburg.
var DefaultStart = time.Date(2026, time.March, 18, 12, 0, 0, 0, domain.Johannesburg)

// Discard is a logger that writes nothing.
var Discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// OpenPool opens another pool on the database at url, as a second replica would.
func OpenPool(t testing.TB, url string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := platformpg.Open(ctx, url, Schema, platformpg.WithMaxConns(maxConns), platformpg.WithWait(10*time.Second))
	if err != nil {
		t.Fatalf("open pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// New builds an Env.
func New(t testing.TB, opts Options) *Env {
	t.Helper()
	if opts.Limits == (domain.Limits{}) {
		opts.Limits = domain.DefaultLimits
	}
	if opts.Start.IsZero() {
		opts.Start = DefaultStart
	}
	if opts.MaxConns == 0 {
		opts.MaxConns = 4
	}
	url := pgtest.NewDatabase(t)
	pool := OpenPool(t, url, opts.MaxConns)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := platformpg.Migrate(ctx, pool, Schema, outbox.Migrations, postgres.Migrations); err != nil {
		t.Fatalf("migrate: %v", err)
	}

	sealKey := sealtest.NewKey(t)
	e := &Env{
		DBURL: url, Pool: pool, Clock: NewClock(opts.Start), Payments: NewFakePayments(), Fees: NewFakeFees(),
		Repo: postgres.NewTransfers(pool, sealKey.Public()), PINs: PINHasher(t), SealKey: sealKey, Logger: Discard,
	}
	var (
		fees     app.Fees           = e.Fees
		payments app.PaymentMethods = e.Payments
	)
	if opts.WrapFees != nil {
		fees = opts.WrapFees(fees)
	}
	if opts.WrapPayments != nil {
		payments = opts.WrapPayments(payments)
	}
	svc, err := app.New(e.Repo, payments, fees, app.Config{Limits: opts.Limits, Now: e.Clock.Now, PINs: e.PINs}, e.Logger)
	if err != nil {
		t.Fatal(err)
	}
	e.App = svc

	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	e.signer = auth.Signer{KeyID: "test-key", Key: key}
	verifier := auth.NewVerifier(auth.StaticKeys{e.signer.PublicKey()}, service.TokenIssuer)
	if err := grpcport.Policy.Check(&transfersv1.TransfersService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	srv := grpcserver.New(e.Logger, grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, grpcport.Policy)))
	rec, err := app.NewReconciler(postgres.NewReconciliation(pool), e.Payments, app.ReconcileConfig{Now: e.Clock.Now}, e.Logger)
	if err != nil {
		t.Fatal(err)
	}
	e.Reconciler = rec
	transfersv1.RegisterTransfersServiceServer(srv, grpcport.WithReconciler(grpcport.NewServer(svc, e.Logger), rec))
	e.Client = transfersv1.NewTransfersServiceClient(grpctest.Serve(t, srv))
	return e
}

// NewUser returns a fresh user id with a card (TokenApprove unless token is given).
func (e *Env) NewUser(token ...string) (userID, paymentMethodID string) {
	userID, paymentMethodID = uuid.NewString(), uuid.NewString()
	tok := TokenApprove
	if len(token) > 0 {
		tok = token[0]
	}
	e.Payments.AddCard(userID, paymentMethodID, "Everyday Visa", "4242", tok)
	return userID, paymentMethodID
}

// Ctx returns a context whose calls carry userID's access token (Thandi Nkosi, SenderEmail),
// stepped up a moment ago, so that any transfer may be created with it; the step-up tests use
// CtxSteppedUpAt.
func (e *Env) Ctx(t testing.TB, userID string) context.Context {
	t.Helper()
	return e.CtxWithEmail(t, userID, SenderEmail)
}

// CtxWithEmail is Ctx with another e-mail address in the token.
func (e *Env) CtxWithEmail(t testing.TB, userID, email string) context.Context {
	t.Helper()
	return e.token(t, userID, email, time.Now())
}

// CtxSteppedUpAt is Ctx with the token's step-up ("sua") at steppedUpAt; a zero time gives a
// token with no step-up.
func (e *Env) CtxSteppedUpAt(t testing.TB, userID string, steppedUpAt time.Time) context.Context {
	t.Helper()
	return e.token(t, userID, SenderEmail, steppedUpAt)
}

func (e *Env) token(t testing.TB, userID, email string, steppedUpAt time.Time) context.Context {
	t.Helper()
	token, err := e.signer.Sign(auth.Claims{
		Subject: userID, Kind: auth.KindUser, GivenName: "Thandi", FamilyName: "Nkosi", Email: email,
		SteppedUpAt: steppedUpAt, Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(10 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithBearer(t.Context(), token)
}

// ServiceCtx returns a context whose calls carry a service token for the service name (the
// ATM gateway is "atm-gateway").
func (e *Env) ServiceCtx(t testing.TB, name string) context.Context {
	t.Helper()
	token, err := e.signer.Sign(auth.Claims{
		Subject: name, Kind: auth.KindService,
		Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(10 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithBearer(t.Context(), token)
}

// SenderEmail is the test senders' address, in their access tokens.
const SenderEmail = "thandi@example.com"

// Caller is userID as the app sees a caller, stepped up a moment ago (as Ctx's token is).
func Caller(userID string) app.Caller {
	return app.Caller{UserID: userID, GivenName: "Thandi", FamilyName: "Nkosi", Email: SenderEmail, SteppedUpAt: time.Now()}
}

// Request is a valid create request for R500 to Capitec with paymentMethodID, with the
// sender's confirmation that they know the recipient (needed on a first payment to a phone).
func Request(key, paymentMethodID string) *transfersv1.CreateTransferRequest {
	return &transfersv1.CreateTransferRequest{
		IdempotencyKey:          key,
		RecipientName:           "Sipho Dlamini",
		RecipientPhone:          "082 123 4567",
		Bank:                    feesv1.Bank_BANK_CAPITEC,
		AmountCents:             50_000,
		PaymentMethodId:         paymentMethodID,
		RecipientKnownConfirmed: true,
	}
}

// Input is a valid app-level create input for amount cents with paymentMethodID, with the
// sender's confirmation that they know the recipient.
func Input(key, paymentMethodID string, amount int64) domain.RequestInput {
	return domain.RequestInput{
		IdempotencyKey: key, RecipientName: "Sipho Dlamini", RecipientPhone: "082 123 4567",
		Bank: domain.Capitec, AmountCents: amount, PaymentMethodID: paymentMethodID,
		RecipientKnownConfirmed: true,
	}
}

// WorkerConfig is a worker tuned for tests: short sweeps and retries, the env's clock and PIN
// key.
func (e *Env) WorkerConfig() app.WorkerConfig {
	return app.WorkerConfig{
		Concurrency: 4, Lease: time.Minute, Sweep: 200 * time.Millisecond,
		RetryBase: 20 * time.Millisecond, RetryMax: 100 * time.Millisecond, Now: e.Clock.Now,
		PINs: e.PINs,
	}
}

// StartWorker runs a worker until the returned stop is called or the test ends. With a nil
// pool it works through the env's repository, so the App's commits wake it as they would in
// the binary; with another pool it is a second replica, which only its own commits and its
// sweeps wake.
func (e *Env) StartWorker(t testing.TB, pool *pgxpool.Pool, cfg app.WorkerConfig) (w *app.Worker, stop func()) {
	t.Helper()
	repo := e.Repo
	if pool != nil {
		repo = postgres.NewTransfers(pool, e.SealKey.Public())
	}
	w, err := app.NewWorker(repo, e.Payments, cfg, e.Logger)
	if err != nil {
		t.Fatal(err)
	}
	repo.OnWork(w.Notify)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.Run(ctx) })
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return w, stop
}

// OutboxRow is one event written to the outbox.
type OutboxRow struct {
	Subject string
	Type    string
	Payload []byte
	// Headers are the message's headers (the event type, traceparent, …).
	Headers map[string]string
	// Ephemeral rows are deleted by the relay once JetStream has them.
	Ephemeral bool
}

// Outbox returns every outbox row in write order (the Env runs no relay: they stay).
func (e *Env) Outbox(t testing.TB) []OutboxRow {
	t.Helper()
	rows, err := e.Pool.Query(context.Background(), `SELECT subject, headers->>'`+outbox.HeaderEventType+`', payload, headers, ephemeral
		FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (OutboxRow, error) {
		var o OutboxRow
		err := r.Scan(&o.Subject, &o.Type, &o.Payload, &o.Headers, &o.Ephemeral)
		return o, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// StatusEvents decodes the TransferStatusChanged events of transferID, in order.
func (e *Env) StatusEvents(t testing.TB, transferID string) []*transfersv1.TransferStatusChanged {
	t.Helper()
	var out []*transfersv1.TransferStatusChanged
	for _, row := range e.Outbox(t) {
		if row.Type != "thumela.transfers.v1.TransferStatusChanged" {
			continue
		}
		var ev transfersv1.TransferStatusChanged
		if err := proto.Unmarshal(row.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetTransfer().GetId() == transferID {
			out = append(out, &ev)
		}
	}
	return out
}

// VoucherEvents decodes the VoucherChanged events of transferID, in order.
func (e *Env) VoucherEvents(t testing.TB, transferID string) []*transfersv1.VoucherChanged {
	t.Helper()
	var out []*transfersv1.VoucherChanged
	for _, row := range e.Outbox(t) {
		if row.Type != "thumela.transfers.v1.VoucherChanged" {
			continue
		}
		var ev transfersv1.VoucherChanged
		if err := proto.Unmarshal(row.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetTransferId() == transferID {
			out = append(out, &ev)
		}
	}
	return out
}

// RequestType is the event type of a notification request in the outbox.
const RequestType = "thumela.notifications.v1.NotificationRequest"

// Notification is one notification request in the outbox.
type Notification struct {
	Subject string
	Request *notificationsv1.NotificationRequest
	// Payload is the request as stored (marshalled).
	Payload   []byte
	Ephemeral bool
}

// Notifications decodes every notification request in the outbox, in write order.
func (e *Env) Notifications(t testing.TB) []Notification {
	t.Helper()
	var out []Notification
	for _, row := range e.Outbox(t) {
		if row.Type != RequestType {
			continue
		}
		n := Notification{Subject: row.Subject, Payload: row.Payload, Ephemeral: row.Ephemeral,
			Request: &notificationsv1.NotificationRequest{}}
		if err := proto.Unmarshal(row.Payload, n.Request); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// NotificationsOf returns the notification requests about transferID of template (all
// templates when unspecified), in write order.
func (e *Env) NotificationsOf(t testing.TB, transferID string, template notificationsv1.Template) []Notification {
	t.Helper()
	var out []Notification
	for _, n := range e.Notifications(t) {
		if n.Request.GetReference() == transferID &&
			(template == notificationsv1.Template_TEMPLATE_UNSPECIFIED || n.Request.GetTemplate() == template) {
			out = append(out, n)
		}
	}
	return out
}

// Secrets opens req's sealed secrets with the Env's notifications key.
func (e *Env) Secrets(t testing.TB, req *notificationsv1.NotificationRequest) map[string]string {
	t.Helper()
	return sealtest.OpenSecrets(t, e.SealKey, req)
}

// VoucherPIN returns the PIN of transferID's voucher, opened from the recipient's SMS request
// as the notifications service would: the only place it exists in clear outside the worker's
// memory.
func (e *Env) VoucherPIN(t testing.TB, transferID string) string {
	t.Helper()
	sms := e.NotificationsOf(t, transferID, notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED)
	if len(sms) != 1 {
		t.Fatalf("%d voucher SMS requests for %s, want 1", len(sms), transferID)
	}
	return e.Secrets(t, sms[0].Request)["pin"]
}

// VoucherSMSes returns the VOUCHER_ISSUED requests about transferID in write order: the first
// issue's, then each re-issue's.
func (e *Env) VoucherSMSes(t testing.TB, transferID string) []Notification {
	t.Helper()
	return e.NotificationsOf(t, transferID, notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED)
}

// Eventually polls cond every 10 ms until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitStatus waits until transferID has status, and returns it.
func (e *Env) WaitStatus(t testing.TB, transferID string, status domain.Status, timeout time.Duration) *domain.Transfer {
	t.Helper()
	id := uuid.MustParse(transferID)
	var got *domain.Transfer
	Eventually(t, timeout, "transfer "+transferID+" to be "+string(status), func() bool {
		var s string
		if err := e.Pool.QueryRow(context.Background(), `SELECT user_id::text FROM transfers WHERE id = $1`, id).Scan(&s); err != nil {
			return false
		}
		tr, err := e.Repo.Get(context.Background(), uuid.MustParse(s), id)
		if err != nil {
			return false
		}
		got = tr
		return tr.Status() == status
	})
	return got
}

// CheckLedger asserts the ledger's invariants: the accounts sum to zero, each balance is the
// sum of its entries, every movement is two entries summing to zero, no user is below zero, and
// the credit spent is exactly the credit of the transfers that still hold it.
func (e *Env) CheckLedger(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	var sum, negatives, unbalanced, drifted, spent, held int64
	if err := e.Pool.QueryRow(ctx, `SELECT
			coalesce((SELECT sum(balance_cents) FROM credit_accounts), 0),
			(SELECT count(*) FROM credit_accounts WHERE account LIKE 'user:%' AND balance_cents < 0),
			(SELECT count(*) FROM (SELECT movement_id FROM credit_entries GROUP BY movement_id
				HAVING count(*) <> 2 OR sum(amount_cents) <> 0 OR count(DISTINCT account) <> 2) m),
			(SELECT count(*) FROM credit_accounts a WHERE balance_cents <>
				coalesce((SELECT sum(amount_cents) FROM credit_entries WHERE account = a.account), 0)),
			coalesce((SELECT balance_cents FROM credit_accounts WHERE account = 'system:credit_spent'), 0),
			coalesce((SELECT sum(credit_applied_cents) FROM transfers WHERE status <> 'failed'
				AND (collection_status IS NULL OR collection_status NOT IN ('cancelled', 'expired'))), 0),
			(SELECT count(*) FROM transfers WHERE card_charge_cents <> total_cents - credit_applied_cents)`).
		Scan(&sum, &negatives, &unbalanced, &drifted, &spent, &held, new(int64)); err != nil {
		t.Fatal(err)
	}
	if sum != 0 || negatives != 0 || unbalanced != 0 || drifted != 0 || spent != held {
		t.Fatalf("ledger: sum %d, %d negative users, %d unbalanced movements, %d drifted balances, spent %d vs held by transfers %d",
			sum, negatives, unbalanced, drifted, spent, held)
	}
}
