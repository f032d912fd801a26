package grpcport_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/profiles/internal/adapters/postgres"
	"github.com/thumela/thumela/services/profiles/internal/app"
	grpcport "github.com/thumela/thumela/services/profiles/internal/ports/grpc"
)

// env is one test's service: a fresh migrated database and a real gRPC server on loopback
// behind the same access-token checks as in production, verifying with a test key.
type env struct {
	pool   *pgxpool.Pool
	client profilesv1.ProfilesServiceClient
	signer auth.Signer
}

func start(t *testing.T) env {
	t.Helper()
	pool := pgtest.NewPool(t, "profiles", outbox.Migrations, postgres.Migrations)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := auth.Signer{KeyID: "test-key", Key: key}
	verifier := auth.NewVerifier(auth.StaticKeys{signer.PublicKey()}, service.TokenIssuer)

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := grpcserver.New(logger,
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, grpcport.Policy)))
	profilesv1.RegisterProfilesServiceServer(srv, grpcport.NewServer(app.New(postgres.NewProfiles(pool)), logger))
	if err := grpcport.Policy.Check(&profilesv1.ProfilesService_ServiceDesc); err != nil {
		t.Fatal(err)
	}

	conn := grpctest.Serve(t, srv)
	return env{pool: pool, client: profilesv1.NewProfilesServiceClient(conn), signer: signer}
}

type user struct {
	id                    string
	givenName, familyName string
}

func newUser(given, family string) user {
	return user{id: uuid.NewString(), givenName: given, familyName: family}
}

// as returns a context whose calls carry u's access token.
func (e env) as(t *testing.T, u user) context.Context {
	t.Helper()
	token, err := e.signer.Sign(auth.Claims{
		Subject: u.id, Kind: auth.KindUser, Email: "someone@example.co.za",
		GivenName: u.givenName, FamilyName: u.familyName,
		Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(5 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithBearer(t.Context(), token)
}

func wantCode(t *testing.T, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

func (e env) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (e env) storedPhone(t *testing.T, userID string) *string {
	t.Helper()
	var phone *string
	if err := e.pool.QueryRow(t.Context(), "SELECT phone_number FROM profiles WHERE user_id = $1", userID).Scan(&phone); err != nil {
		t.Fatal(err)
	}
	return phone
}

func TestGetProfileCreatesFromSignUpNamesOnFirstRead(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser(" Thandi ", "Nkosi")
	res, err := e.client.GetProfile(e.as(t, u), &profilesv1.GetProfileRequest{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.GetProfile()
	if p.GetUserId() != u.id || p.GetFirstName() != "Thandi" || p.GetLastName() != "Nkosi" || p.GetPhoneNumber() != "" {
		t.Fatalf("created profile = %v", p)
	}
	if p.GetCreatedAt().AsTime().IsZero() || p.GetUpdatedAt().AsTime().IsZero() {
		t.Fatalf("timestamps missing: %v", p)
	}

	// Later reads return the stored profile, not the token's names again.
	renamed := u
	renamed.givenName = "Other"
	again, err := e.client.GetProfile(e.as(t, renamed), &profilesv1.GetProfileRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(again.GetProfile(), p) {
		t.Fatalf("second read = %v, want %v", again.GetProfile(), p)
	}
	if n := e.count(t, "SELECT count(*) FROM outbox"); n != 0 {
		t.Fatalf("a first read wrote %d outbox rows, want none", n)
	}
}

func TestConcurrentFirstReadsCreateOneProfile(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Sipho", "Dlamini")
	ctx := e.as(t, u)
	const readers = 16
	var wg sync.WaitGroup
	results := make([]*profilesv1.Profile, readers)
	errs := make([]error, readers)
	for i := range readers {
		wg.Go(func() {
			res, err := e.client.GetProfile(ctx, &profilesv1.GetProfileRequest{})
			results[i], errs[i] = res.GetProfile(), err
		})
	}
	wg.Wait()
	for i := range readers {
		if errs[i] != nil {
			t.Fatalf("reader %d: %v", i, errs[i])
		}
		if !proto.Equal(results[i], results[0]) {
			t.Fatalf("reader %d saw %v, reader 0 saw %v", i, results[i], results[0])
		}
	}
	if n := e.count(t, "SELECT count(*) FROM profiles"); n != 1 {
		t.Fatalf("profiles rows = %d, want 1", n)
	}
}

func badRequest(t *testing.T, err error) (msg string, fields, descriptions []string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("error = %v, want InvalidArgument", err)
	}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fields = append(fields, v.GetField())
				descriptions = append(descriptions, v.GetDescription())
			}
		}
	}
	return st.Message(), fields, descriptions
}

func TestUpdateProfileValidation(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	ctx := e.as(t, u)
	long := strings.Repeat("é", 51)
	const chars = "Names may only contain letters, spaces, apostrophes, hyphens and full stops."
	tests := []struct {
		name               string
		first, last, phone string
		wantFields         []string
		wantDescriptions   []string
	}{
		{"first name missing", "  ", "Nkosi", "", []string{"first_name"}, []string{"First name is required"}},
		{"last name missing", "Thandi", "", "", []string{"last_name"}, []string{"Last name is required"}},
		{"first name too long", long, "Nkosi", "", []string{"first_name"}, []string{"First name must be at most 50 characters"}},
		{"last name too long", "Thandi", long, "", []string{"last_name"}, []string{"Last name must be at most 50 characters"}},
		{"ESC and BEL", "Thandi", "Nkosi\x1b[31m\a", "", []string{"last_name"}, []string{chars}},
		{"right-to-left override", "\u202eidnahT", "Nkosi", "", []string{"first_name"}, []string{chars}},
		{"web address", "Visit fnb-secure.co.za", "Nkosi", "", []string{"first_name"}, []string{"Names can't contain a web address."}},
		{"web address as the last name", "Thandi", "www.fnb-help.co.za", "", []string{"last_name"}, []string{"Names can't contain a web address."}},
		{"phone invalid", "Thandi", "Nkosi", "12345", []string{"phone_number"}, []string{"Please enter a valid South African mobile number."}},
		{"all at once", "", "", "011 123 4567", []string{"first_name", "last_name", "phone_number"},
			[]string{"First name is required", "Last name is required", "Please enter a valid South African mobile number."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{
				FirstName: tt.first, LastName: tt.last, PhoneNumber: tt.phone,
			})
			msg, fields, descriptions := badRequest(t, err)
			if msg != tt.wantDescriptions[0] {
				t.Errorf("message = %q, want %q", msg, tt.wantDescriptions[0])
			}
			if !equal(fields, tt.wantFields) || !equal(descriptions, tt.wantDescriptions) {
				t.Errorf("violations = %v %q, want %v %q", fields, descriptions, tt.wantFields, tt.wantDescriptions)
			}
		})
	}
	// NUL was a 500: PostgreSQL refuses it in text. Now refused before the database, by every
	// server before any handler (grpcserver's NUL check), in that check's words.
	_, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{FirstName: "Tha\x00ndi", LastName: "Nkosi"})
	msg, fields, descriptions := badRequest(t, err)
	if msg != "The request contains a character that is not allowed." ||
		!equal(fields, []string{"first_name"}) || !equal(descriptions, []string{"This field contains a character that is not allowed."}) {
		t.Errorf("NUL: %q, violations %v %q", msg, fields, descriptions)
	}
	if n := e.count(t, "SELECT count(*) FROM profiles") + e.count(t, "SELECT count(*) FROM outbox"); n != 0 {
		t.Fatalf("refused updates wrote %d rows", n)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestUpdateProfileNormalisesPhone(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	ctx := e.as(t, u)
	tests := []struct {
		in   string
		want string // "" with ok: stored as NULL
		ok   bool
	}{
		{"082 123 4567", "+27821234567", true},
		{"0821234567", "+27821234567", true},
		{"+27 82 123 4567", "+27821234567", true},
		{"27821234567", "+27821234567", true},
		{"073-555-0199", "+27735550199", true},
		{"(061) 234 5678", "+27612345678", true},
		{"", "", true},
		{"011 123 4567", "", false},    // Johannesburg landline
		{"021 123 4567", "", false},    // Cape Town landline
		{"+1 415 555 0100", "", false}, // not South African
		{"082 123 45", "", false},
		{"082-CALL-NOW", "", false},
		{"not a number", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			res, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{
				FirstName: "Thandi", LastName: "Nkosi", PhoneNumber: tt.in,
			})
			if !tt.ok {
				_, fields, descriptions := badRequest(t, err)
				if !equal(fields, []string{"phone_number"}) || descriptions[0] != "Please enter a valid South African mobile number." {
					t.Fatalf("violations = %v %q", fields, descriptions)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.GetProfile().GetPhoneNumber(); got != tt.want {
				t.Fatalf("phone_number = %q, want %q", got, tt.want)
			}
			stored := e.storedPhone(t, u.id)
			switch {
			case tt.want == "" && stored != nil:
				t.Fatalf("empty phone stored as %q, want NULL", *stored)
			case tt.want != "" && (stored == nil || *stored != tt.want):
				t.Fatalf("stored phone = %v, want %q", stored, tt.want)
			}
		})
	}
}

func TestUpdateProfileTrimsAndClearsPhone(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	ctx := e.as(t, u)
	if _, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{
		FirstName: "  Lerato ", LastName: " Mokoena  ", PhoneNumber: "082 123 4567",
	}); err != nil {
		t.Fatal(err)
	}
	res, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{
		FirstName: "Lerato", LastName: "Mokoena", PhoneNumber: "   ",
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.GetProfile(); p.GetFirstName() != "Lerato" || p.GetLastName() != "Mokoena" || p.GetPhoneNumber() != "" {
		t.Fatalf("profile = %v", p)
	}
	if stored := e.storedPhone(t, u.id); stored != nil {
		t.Fatalf("cleared phone stored as %q, want NULL", *stored)
	}
	got, err := e.client.GetProfile(ctx, &profilesv1.GetProfileRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got.GetProfile(), res.GetProfile()) {
		t.Fatalf("read back %v, want %v", got.GetProfile(), res.GetProfile())
	}
}

// The token alone names the user: A's calls read, change and delete A's profile and never
// B's, which stays as it was.
func TestCallsActOnTheTokensUserOnly(t *testing.T) {
	t.Parallel()
	e := start(t)
	a, b := newUser("Alice", "Adams"), newUser("Bongani", "Zulu")
	asA, asB := e.as(t, a), e.as(t, b)
	if _, err := e.client.UpdateProfile(asB, &profilesv1.UpdateProfileRequest{
		FirstName: "Bongani", LastName: "Zulu", PhoneNumber: "082 123 4567",
	}); err != nil {
		t.Fatal(err)
	}
	before, err := e.client.GetProfile(asB, &profilesv1.GetProfileRequest{})
	if err != nil {
		t.Fatal(err)
	}

	got, err := e.client.GetProfile(asA, &profilesv1.GetProfileRequest{})
	if err != nil || got.GetProfile().GetUserId() != a.id || got.GetProfile().GetFirstName() != "Alice" {
		t.Fatalf("A's GetProfile = %v, %v; want A's own, from A's token", got.GetProfile(), err)
	}
	upd, err := e.client.UpdateProfile(asA, &profilesv1.UpdateProfileRequest{FirstName: "Evil", LastName: "Mallory"})
	if err != nil || upd.GetProfile().GetUserId() != a.id {
		t.Fatalf("A's UpdateProfile = %v, %v; want A's own", upd.GetProfile(), err)
	}
	if _, err := e.client.DeleteProfile(asA, &profilesv1.DeleteProfileRequest{}); err != nil {
		t.Fatal(err)
	}

	after, err := e.client.GetProfile(asB, &profilesv1.GetProfileRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(before.GetProfile(), after.GetProfile()) {
		t.Fatalf("B's profile changed: %v, was %v", after.GetProfile(), before.GetProfile())
	}
	if n := e.count(t, "SELECT count(*) FROM profiles WHERE user_id <> $1", b.id); n != 0 {
		t.Fatalf("%d profiles besides B's after A deleted theirs", n)
	}
}

func TestDeleteProfile(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	ctx := e.as(t, u)
	if _, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{FirstName: "T", LastName: "N"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.DeleteProfile(ctx, &profilesv1.DeleteProfileRequest{}); err != nil {
		t.Fatal(err)
	}
	if n := e.count(t, "SELECT count(*) FROM profiles"); n != 0 {
		t.Fatalf("profiles rows after delete = %d", n)
	}
	_, err := e.client.DeleteProfile(ctx, &profilesv1.DeleteProfileRequest{})
	wantCode(t, err, codes.NotFound)
}

func TestUpdateWritesProfileUpdatedInTheSameTransaction(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	res, err := e.client.UpdateProfile(e.as(t, u), &profilesv1.UpdateProfileRequest{
		FirstName: "Thandi", LastName: "Nkosi", PhoneNumber: "+27 82 123 4567",
	})
	if err != nil {
		t.Fatal(err)
	}

	var (
		subject              string
		payload              []byte
		eventType            string
		outboxXmin, profXmin string
	)
	if err := e.pool.QueryRow(t.Context(),
		`SELECT subject, payload, headers->>$1, xmin::text FROM outbox`, outbox.HeaderEventType,
	).Scan(&subject, &payload, &eventType, &outboxXmin); err != nil {
		t.Fatalf("outbox row: %v", err)
	}
	if err := e.pool.QueryRow(t.Context(), `SELECT xmin::text FROM profiles WHERE user_id = $1`, u.id).Scan(&profXmin); err != nil {
		t.Fatal(err)
	}
	if subject != "thumela.profiles."+u.id+".updated" {
		t.Fatalf("subject = %q", subject)
	}
	if eventType != "thumela.profiles.v1.ProfileUpdated" {
		t.Fatalf("event type header = %q", eventType)
	}
	if outboxXmin != profXmin {
		t.Fatalf("outbox row written by transaction %s, profile by %s: not one transaction", outboxXmin, profXmin)
	}
	var ev profilesv1.ProfileUpdated
	if err := proto.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(ev.GetProfile(), res.GetProfile()) {
		t.Fatalf("event profile = %v, want the saved %v", ev.GetProfile(), res.GetProfile())
	}
	if !ev.GetOccurredAt().AsTime().Equal(res.GetProfile().GetUpdatedAt().AsTime()) {
		t.Fatalf("occurred_at %v, updated_at %v", ev.GetOccurredAt().AsTime(), res.GetProfile().GetUpdatedAt().AsTime())
	}
}

// When the event cannot be written, the change is rolled back with it.
func TestUpdateRolledBackWhenTheOutboxFails(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	ctx := e.as(t, u)
	if _, err := e.client.GetProfile(ctx, &profilesv1.GetProfileRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(t.Context(), `ALTER TABLE outbox RENAME TO outbox_unavailable`); err != nil {
		t.Fatal(err)
	}
	_, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{FirstName: "Changed", LastName: "Name"})
	wantCode(t, err, codes.Internal)
	if msg := status.Convert(err).Message(); msg != "internal error" {
		t.Fatalf("Internal leaks its cause: %q", msg)
	}
	var first string
	if err := e.pool.QueryRow(t.Context(), `SELECT first_name FROM profiles WHERE user_id = $1`, u.id).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if first != "Thandi" {
		t.Fatalf("first_name = %q after a failed update, want the old value", first)
	}
}

func TestCallsNeedAUserToken(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser("Thandi", "Nkosi")
	calls := map[string]func(ctx context.Context) error{
		"GetProfile": func(ctx context.Context) error {
			_, err := e.client.GetProfile(ctx, &profilesv1.GetProfileRequest{})
			return err
		},
		"UpdateProfile": func(ctx context.Context) error {
			_, err := e.client.UpdateProfile(ctx, &profilesv1.UpdateProfileRequest{FirstName: "A", LastName: "B"})
			return err
		},
		"DeleteProfile": func(ctx context.Context) error {
			_, err := e.client.DeleteProfile(ctx, &profilesv1.DeleteProfileRequest{})
			return err
		},
	}
	serviceToken, err := e.signer.Sign(auth.Claims{
		Subject: "transfers", Kind: auth.KindService, Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	forged, err := auth.Signer{KeyID: e.signer.KeyID, Key: otherKey}.Sign(auth.Claims{
		Subject: u.id, Kind: auth.KindUser, Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range calls {
		wantCode(t, call(t.Context()), codes.Unauthenticated)
		wantCode(t, call(auth.WithBearer(t.Context(), forged)), codes.Unauthenticated)
		if err := call(auth.WithBearer(t.Context(), serviceToken)); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("%s with a service token: %v, want PermissionDenied", name, err)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM profiles"); n != 0 {
		t.Fatalf("unauthenticated calls created %d profiles", n)
	}
}
