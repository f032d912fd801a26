package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// The binary's wiring end to end: service.Run with identity's Setup on a real PostgreSQL and
// NATS; a sign-up's e-mail request reaches the notifications stream through the outbox relay
// (its code sealed, its outbox row deleted once published), the policy lets the BFF in with its
// service token for a signed-out browser's calls (and refuses them without it) but not to
// GetUser, and it stops cleanly on SIGTERM.
func TestServiceEndToEnd(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	// identity verifies tokens with its own keys (IDENTITY_SIGNING_KEY), not servicetest's.
	sealKey := sealtest.NewKey(t)
	svc := servicetest.Start(t, "identity", func(auth.KeySource) service.Spec { return spec() }, map[string]string{
		"IDENTITY_SIGNING_KEY":          seed(t),
		"IDENTITY_CODE_KEY":             codeKey(t),
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": sealKey.Public().String(),
		"LOG_LEVEL":                     "error",
		"IDENTITY_SERVICE_SECRETS":      "bff=bff-secret-0123456789abcdef",
	})
	conn := svc.Conn

	client := identityv1.NewIdentityServiceClient(conn)
	rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer rcancel()
	signUp := &identityv1.SignUpRequest{
		FirstName: "Sipho", LastName: "Dlamini", Email: "sipho@example.com", Password: "correct-horse-battery",
	}
	if _, err := client.SignUp(rctx, signUp); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("a sign-up without the BFF's token: %v, want Unauthenticated", err)
	}
	bffToken, err := client.IssueServiceToken(rctx, &identityv1.IssueServiceTokenRequest{Service: "bff", Secret: "bff-secret-0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	asBFF := auth.WithBearer(rctx, bffToken.GetAccessToken())
	res, err := client.SignUp(asBFF, signUp)
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
	subject, _ := bus.NotificationSubject("identity", userID, "email")
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
	v, err := client.VerifyEmail(asBFF, &identityv1.VerifyEmailRequest{Email: "sipho@example.com", Code: code})
	if err != nil {
		t.Fatal(err)
	}
	r, err := client.Refresh(asBFF, &identityv1.RefreshRequest{SessionToken: v.GetSession().GetToken()})
	if err != nil {
		t.Fatal(err)
	}
	// Verified the way other services do: keys fetched from identity's GetPublicKeys.
	verifier := auth.NewVerifier(auth.IdentityKeySource(conn), service.TokenIssuer)
	claims, err := verifier.Verify(rctx, r.GetAccessToken())
	if err != nil || claims.Subject != userID {
		t.Fatalf("claims %+v, %v", claims, err)
	}
	if _, err := client.GetUser(rctx, &identityv1.GetUserRequest{}); err == nil {
		t.Fatal("GetUser answered without a token")
	}
	if _, err := client.GetUser(auth.WithBearer(rctx, r.GetAccessToken()), &identityv1.GetUserRequest{}); err != nil {
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
