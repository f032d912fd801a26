package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"

	"github.com/thumela/thumela/services/identity/internal/server"
)

func seed(t *testing.T) string {
	t.Helper()
	b := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	key := seed(t)
	sealKey := sealtest.NewKey(t)
	env := map[string]string{
		"DATABASE_URL":                  "postgres://x@localhost/db",
		"IDENTITY_SIGNING_KEY":          key,
		"IDENTITY_SERVICE_SECRETS":      "transfers=c2VjcmV0LXNlY3JldC1zZWNyZXQ=, bff=another-long-secret",
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": sealKey.Public().String(),
	}
	var cfg server.Config
	if err := config.LoadWith(config.MapLookup(env), "IDENTITY", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.AccessTokenTTL != 10*time.Minute || cfg.SessionIdleTTL != 720*time.Hour || cfg.SessionAbsoluteTTL != 2160*time.Hour ||
		cfg.CodeTTL != 10*time.Minute || cfg.CodeResendAfter != time.Minute || cfg.CodeMaxAttempts != 5 {
		t.Fatalf("defaults = %+v", cfg)
	}
	appCfg, err := cfg.AppConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if appCfg.ServiceSecrets["transfers"] != "c2VjcmV0LXNlY3JldC1zZWNyZXQ=" || len(appCfg.ServiceSecrets) != 2 {
		t.Fatalf("secrets parsed as %v", appCfg.ServiceSecrets)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(appCfg.Signer.KeyID) {
		t.Fatalf("key id %q", appCfg.Signer.KeyID)
	}
	if appCfg.SealTo != sealKey.Public() {
		t.Fatalf("codes sealed to %q, want the configured notifications key", appCfg.SealTo.ID)
	}
	// Secrets never show in the logged configuration.
	for _, a := range config.Describe(&cfg) {
		if strings.Contains(a.Value.String(), key) || strings.Contains(a.Value.String(), "another-long-secret") {
			t.Fatalf("%s logged in clear", a.Key)
		}
	}

	// No signing key, or no notifications key: refused at load.
	for _, name := range []string{"IDENTITY_SIGNING_KEY", "NOTIFICATIONS_SEAL_PUBLIC_KEY"} {
		without := maps.Clone(env)
		delete(without, name)
		var missing server.Config
		if err := config.LoadWith(config.MapLookup(without), "IDENTITY", &missing); !errors.Is(err, config.ErrMissing) {
			t.Fatalf("no %s: %v", name, err)
		}
	}

	for name, mutate := range map[string]func(*server.Config){
		"TTL over 10m":   func(c *server.Config) { c.AccessTokenTTL = 11 * time.Minute },
		"short key":      func(c *server.Config) { c.SigningKey = base64.StdEncoding.EncodeToString([]byte("short")) },
		"not base64":     func(c *server.Config) { c.SigningKey = "%%%" },
		"bad previous":   func(c *server.Config) { c.PreviousSigningKeys = key + ",nope" },
		"bad secrets":    func(c *server.Config) { c.ServiceSecrets = "transfers" },
		"short secret":   func(c *server.Config) { c.ServiceSecrets = "transfers=short" },
		"duplicate name": func(c *server.Config) { c.ServiceSecrets = "a=0123456789abcdef,a=0123456789abcdefg" },
		"seal key no id": func(c *server.Config) {
			c.NotificationsSealPublicKey = strings.SplitN(c.NotificationsSealPublicKey, ":", 2)[1]
		},
		"seal key short": func(c *server.Config) { c.NotificationsSealPublicKey = "k1:c2hvcnQ=" },
	} {
		c := cfg
		mutate(&c)
		if _, err := c.AppConfig(nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseSigningKeyEncodings(t *testing.T) {
	t.Parallel()
	raw := make([]byte, ed25519.SeedSize)
	_, _ = rand.Read(raw)
	want, err := server.ParseSigningKey(base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		got, err := server.ParseSigningKey(enc.EncodeToString(raw))
		if err != nil || got.KeyID != want.KeyID || !got.Key.Equal(want.Key) {
			t.Fatalf("encoding %v: %v", enc, err)
		}
	}
	if want.KeyID != server.KeyID(want.PublicKey().Key) {
		t.Fatal("key id is not derived from the public key")
	}
}

// The binary's wiring end to end: service.Run with identity's Setup on a real PostgreSQL and
// NATS; a sign-up's e-mail request reaches the notifications stream through the outbox relay
// (its code sealed, its outbox row deleted once published), the policy lets a signed-out
// caller in but not to GetUser, and it stops cleanly on SIGTERM.
func TestServiceEndToEnd(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	// identity verifies tokens with its own keys (IDENTITY_SIGNING_KEY), not servicetest's.
	sealKey := sealtest.NewKey(t)
	svc := servicetest.Start(t, "identity", func(auth.KeySource) service.Spec {
		var cfg server.Config
		return service.Spec{Name: "identity", Config: &cfg, Migrations: server.Migrations, Setup: server.Setup(&cfg)}
	}, map[string]string{
		"IDENTITY_SIGNING_KEY":          seed(t),
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": sealKey.Public().String(),
		"LOG_LEVEL":                     "error",
	})
	conn := svc.Conn

	client := identityv1.NewIdentityServiceClient(conn)
	rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer rcancel()
	res, err := client.SignUp(rctx, &identityv1.SignUpRequest{
		FirstName: "Sipho", LastName: "Dlamini", Email: "sipho@example.com", Password: "correct-horse-battery",
	})
	if err != nil {
		t.Fatal(err)
	}

	// The test reads the stream as the dev tools' read-only identity.
	nc, err := nats.Connect(svc.NATSURL, svc.NATS.Options(bus.IdentityObserver)...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	var userID string
	if err := pgxQueryRow(t, svc.DatabaseURL, `SELECT id FROM identity.users WHERE email = $1`, res.GetEmail(), &userID); err != nil {
		t.Fatal(err)
	}
	subject, _ := bus.Subject(bus.DomainNotifications, userID, "email")
	var data []byte
	for data == nil {
		stream, err := js.Stream(rctx, bus.StreamNotifications)
		var raw *jetstream.RawStreamMsg
		if err == nil {
			raw, err = stream.GetLastMsgForSubject(rctx, subject)
		}
		if err != nil {
			if rctx.Err() != nil {
				t.Fatalf("the e-mail never reached the stream: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		data = raw.Data
	}
	n := &notificationsv1.NotificationRequest{}
	if err := proto.Unmarshal(data, n); err != nil {
		t.Fatal(err)
	}
	if n.GetRecipient() != "sipho@example.com" || n.GetTemplate() != notificationsv1.Template_TEMPLATE_SIGN_UP_CODE {
		t.Fatalf("notification request = %v", n)
	}
	// The code is on the stream sealed to the notifications service, never in clear.
	code := sealtest.OpenSecrets(t, sealKey, n)["code"]
	if !regexp.MustCompile(`^[0-9]{6}$`).MatchString(code) || bytes.Contains(data, []byte(code)) {
		t.Fatalf("the sealed code is %d characters, or the request holds it in clear", len(code))
	}
	// Once JetStream has the request, the relay deletes its outbox row (ephemeral); the
	// signed_up event's row stays, published, until the prune.
	db, err := pgx.Connect(rctx, svc.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	for {
		var requests, published int
		if err := db.QueryRow(rctx, `SELECT count(*) FILTER (WHERE subject = $1),
			count(*) FILTER (WHERE subject <> $1 AND published_at IS NOT NULL) FROM identity.outbox`, subject).
			Scan(&requests, &published); err != nil {
			t.Fatal(err)
		}
		if requests == 0 && published > 0 {
			break
		}
		if rctx.Err() != nil {
			t.Fatalf("outbox: %d e-mail requests left, %d events published", requests, published)
		}
		time.Sleep(20 * time.Millisecond)
	}
	v, err := client.VerifyEmail(rctx, &identityv1.VerifyEmailRequest{Email: "sipho@example.com", Code: code})
	if err != nil {
		t.Fatal(err)
	}
	r, err := client.Refresh(rctx, &identityv1.RefreshRequest{SessionToken: v.GetSession().GetToken()})
	if err != nil {
		t.Fatal(err)
	}
	// Verified the way other services do: keys fetched from identity's GetPublicKeys.
	verifier := auth.NewVerifier(auth.IdentityKeySource(conn), service.TokenIssuer)
	claims, err := verifier.Verify(rctx, r.GetAccessToken())
	if err != nil || claims.Subject != userID {
		t.Fatalf("claims %+v, %v", claims, err)
	}
	if _, err := client.GetUser(rctx, &identityv1.GetUserRequest{UserId: userID}); err == nil {
		t.Fatal("GetUser answered without a token")
	}
	if _, err := client.GetUser(auth.WithBearer(rctx, r.GetAccessToken()), &identityv1.GetUserRequest{UserId: userID}); err != nil {
		t.Fatal(err)
	}
	svc.StopWithSIGTERM(t)
}

// pgxQueryRow reads one value from the service's database: the sign-up answer names no user.
func pgxQueryRow(t *testing.T, url, query string, arg any, dest any) error {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(t.Context(), query, arg).Scan(dest)
}
