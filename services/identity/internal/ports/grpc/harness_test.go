package grpcport_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"

	pgstore "github.com/thumela/thumela/services/identity/internal/adapters/postgres"
	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/domain"
	grpcport "github.com/thumela/thumela/services/identity/internal/ports/grpc"
)

// clock is a settable clock; it starts at the real time so that tokens verify normally.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one identity service on a fresh database, served over loopback gRPC with the same
// interceptors as production (service.Runtime.Serve).
type env struct {
	t *testing.T
	// client calls with no credentials of its own (a user's calls add the user's token); bff
	// calls as the BFF does, with its service token: the signed-out browser's calls need it.
	client   identityv1.IdentityServiceClient
	bff      identityv1.IdentityServiceClient
	svc      *app.Service
	pool     *pgxpool.Pool
	clock    *clock
	keys     auth.StaticKeys
	previous auth.PublicKey
	// sealKey is the notifications service's key pair: identity seals codes to its public half;
	// the tests open them with the private one.
	sealKey seal.PrivateKey
	// logs holds everything the service logged, at debug level, for secret scans.
	logs *lockedBuffer
	// codeKey is the key codes are stored under (IDENTITY_CODE_KEY).
	codeKey []byte
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type option func(*app.Config)

// withThrottle makes the throttle strict, as a test of a refusal wants it: delays start after
// account failures of one account (per pair and per account alike), address failures per
// address, and codes wrong codes of one account.
func withThrottle(account, address, codes int) option {
	return withThrottlePolicy(func(p *app.ThrottlePolicy) {
		p.PairFailures, p.AccountFailures, p.AddressFailures = account, account, address
		p.CodePairFailures, p.CodeAccountFailures = codes, codes
	})
}

// withThrottlePolicy edits the throttle policy.
func withThrottlePolicy(edit func(*app.ThrottlePolicy)) option {
	return func(c *app.Config) { edit(&c.Throttle) }
}

const testServiceSecret = "transfers-secret-0123456789abcdef=="

// newSigner returns a fresh Ed25519 signing key named kid.
func newSigner(t *testing.T, kid string) auth.Signer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Signer{KeyID: kid, Key: key}
}

func newEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	pool := pgtest.NewPool(t, "identity", outbox.Migrations, pgstore.Migrations)
	sealKey := sealtest.NewKey(t)

	codeKey := make([]byte, domain.MinCodeKeySize)
	if _, err := rand.Read(codeKey); err != nil {
		t.Fatal(err)
	}

	logs := &lockedBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// As cmd/identity's configuration builds it, with a stricter pair throttle than the default.
	appCfg := app.Config{
		Codes:          domain.CodePolicy{TTL: 10 * time.Minute, ResendAfter: 60 * time.Second, MaxAttempts: 5, Key: codeKey},
		Sessions:       domain.SessionPolicy{IdleTTL: 720 * time.Hour, AbsoluteTTL: 2160 * time.Hour},
		AccessTokenTTL: 10 * time.Minute,
		Throttle: app.ThrottlePolicy{
			Window: 15 * time.Minute, BaseDelay: 2 * time.Second, MaxDelay: 15 * time.Minute,
			PairFailures: 10, AddressFailures: 50, AccountFailures: 100,
			CodePairFailures: 10, CodeAddressFailures: 20, CodeAccountFailures: 50,
		},
		Issuer:   service.TokenIssuer,
		Signer:   newSigner(t, "current"),
		Previous: []auth.PublicKey{newSigner(t, "previous").PublicKey()},
		ServiceSecrets: map[string]string{
			"transfers": testServiceSecret,
			"bff":       "bff-secret-0123456789abcdef",
		},
		SealTo: sealKey.Public(),
		Logger: logger,
	}
	clk := &clock{t: time.Now()}
	appCfg.Now = clk.Now
	for _, o := range opts {
		o(&appCfg)
	}
	svc, err := app.New(pgstore.New(pool), appCfg)
	if err != nil {
		t.Fatal(err)
	}

	// As service.Runtime.Serve builds it.
	keys := auth.StaticKeys(svc.PublicKeys())
	policy := grpcport.Policy()
	verifier := auth.NewVerifier(keys, service.TokenIssuer)
	srv := grpcserver.New(logger,
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, policy)),
		grpcserver.WithStreamInterceptors(auth.StreamServerInterceptor(verifier, policy)),
	)
	grpcport.New(svc, logger).Register(srv.GRPC())
	if err := policy.Check(&identityv1.IdentityService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	addr := grpctest.Listen(t, srv)
	conn := dial(t, addr)
	// The BFF's connection: every call carries its service token unless it carries a user's.
	bffToken, err := appCfg.Signer.Sign(auth.Claims{Subject: grpcport.BFFService, Kind: auth.KindService,
		Issuer: service.TokenIssuer, IssuedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	bffConn := dial(t, addr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(staticToken(bffToken))))
	return &env{
		t: t, client: identityv1.NewIdentityServiceClient(conn), bff: identityv1.NewIdentityServiceClient(bffConn),
		svc: svc, pool: pool, clock: clk, keys: keys, previous: appCfg.Previous[0], sealKey: sealKey, logs: logs,
		codeKey: codeKey,
	}
}

// dial is a plaintext client connection to addr, closed at cleanup.
func dial(t *testing.T, addr string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// staticToken is a TokenSource of one token.
type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var browser = &identityv1.Client{Address: "198.51.100.7", UserAgent: "Mozilla/5.0 (test)"}

const goodPassword = "correct-horse-battery"

// signUp signs up email and returns the user id and the code e-mailed.
func (e *env) signUp(email string) (string, string) {
	e.t.Helper()
	res, err := e.bff.SignUp(ctxT(e.t), &identityv1.SignUpRequest{
		FirstName: "Thandi", LastName: "Nkosi", Email: email, Password: goodPassword, Client: browser,
	})
	if err != nil {
		e.t.Fatalf("SignUp(%s): %v", email, err)
	}
	var id string
	if err := e.pool.QueryRow(ctxT(e.t), `SELECT id FROM users WHERE lower(email) = lower($1)`, res.GetEmail()).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	return id, e.lastCode(id, "sign_up_code")
}

// signUpVerified signs up and verifies email, returning the user id and session token.
func (e *env) signUpVerified(email string) (string, string) {
	e.t.Helper()
	id, code := e.signUp(email)
	res, err := e.bff.VerifyEmail(ctxT(e.t), &identityv1.VerifyEmailRequest{Email: email, Code: code, Client: browser})
	if err != nil {
		e.t.Fatalf("VerifyEmail: %v", err)
	}
	return id, res.GetSession().GetToken()
}

var sixDigits = regexp.MustCompile(`^[0-9]{6}$`)

// outboxRequest is one notification request identity wrote to its outbox, as stored.
type outboxRequest struct {
	req       *notificationsv1.NotificationRequest
	payload   []byte
	ephemeral bool
}

// outboxRequests returns the e-mail requests identity wrote to its outbox for userID, oldest
// first (the harness runs no relay, so they stay there).
func (e *env) outboxRequests(userID string) []outboxRequest {
	e.t.Helper()
	rows, err := e.pool.Query(ctxT(e.t), `SELECT payload, ephemeral FROM outbox WHERE subject = $1 ORDER BY seq`,
		"thumela.notifications.identity."+userID+".email")
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (outboxRequest, error) {
		var r outboxRequest
		if err := row.Scan(&r.payload, &r.ephemeral); err != nil {
			return r, err
		}
		r.req = &notificationsv1.NotificationRequest{}
		return r, proto.Unmarshal(r.payload, r.req)
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// notifications returns the e-mail requests identity wrote to its outbox for userID, oldest
// first.
func (e *env) notifications(userID string) []*notificationsv1.NotificationRequest {
	e.t.Helper()
	var out []*notificationsv1.NotificationRequest
	for _, r := range e.outboxRequests(userID) {
		out = append(out, r.req)
	}
	return out
}

// templateName is the lower snake name of a template (sign_up_code), as in headers and logs.
func templateName(t notificationsv1.Template) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "TEMPLATE_"))
}

// lastCode opens the code of the newest e-mail request of template (sign_up_code,
// password_reset_code) for userID with the notifications key, as the notifications service
// would. The stored request must carry it only sealed.
func (e *env) lastCode(userID, template string) string {
	e.t.Helper()
	rs := e.outboxRequests(userID)
	for i := len(rs) - 1; i >= 0; i-- {
		if templateName(rs[i].req.GetTemplate()) != template {
			continue
		}
		code := sealtest.OpenSecrets(e.t, e.sealKey, rs[i].req)["code"]
		if !sixDigits.MatchString(code) {
			e.t.Fatalf("the sealed code of a %s request is %d characters, want six digits", template, len(code))
		}
		if bytes.Contains(rs[i].payload, []byte(code)) {
			e.t.Fatalf("the %s request holds its code in clear", template)
		}
		return code
	}
	e.t.Fatalf("no %s e-mail for %s", template, userID)
	return ""
}

func (e *env) signIn(email, password string) (*identityv1.SignInResponse, error) {
	return e.bff.SignIn(ctxT(e.t), &identityv1.SignInRequest{Email: email, Password: password, Client: browser})
}

func (e *env) accessToken(session string) string {
	e.t.Helper()
	res, err := e.bff.Refresh(ctxT(e.t), &identityv1.RefreshRequest{SessionToken: session})
	if err != nil {
		e.t.Fatalf("Refresh: %v", err)
	}
	return res.GetAccessToken()
}

// wantStatus fails unless err is a status with code and, when msg is not empty, message msg.
func wantStatus(t *testing.T, err error, code codes.Code, msg string) *status.Status {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || err == nil {
		t.Fatalf("error = %v, want %s", err, code)
	}
	if st.Code() != code || (msg != "" && st.Message() != msg) {
		t.Fatalf("status = %s %q, want %s %q", st.Code(), st.Message(), code, msg)
	}
	return st
}

func badRequest(t *testing.T, st *status.Status) []*errdetails.BadRequest_FieldViolation {
	t.Helper()
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			return br.GetFieldViolations()
		}
	}
	t.Fatalf("no BadRequest detail in %v", st)
	return nil
}

func retryDelay(t *testing.T, st *status.Status) time.Duration {
	t.Helper()
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	t.Fatalf("no RetryInfo detail in %v", st)
	return 0
}
