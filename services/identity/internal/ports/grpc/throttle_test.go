package grpcport_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/app"
)

// wantCode is err's status, whatever its code (nil is OK).
func wantCode(t *testing.T, err error) *status.Status {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("not a status: %v", err)
	}
	return st
}

// The production policy: 5 free failures per (account, address), 50 per address, 100 per
// account, then 2 s doubling up to 15 min.
func withDefaultThrottle() option {
	return withThrottlePolicy(func(p *app.ThrottlePolicy) { *p = app.DefaultThrottlePolicy() })
}

func signInFrom(e *env, t *testing.T, email, password, addr string) error {
	t.Helper()
	_, err := e.bff.SignIn(ctxT(t), &identityv1.SignInRequest{Email: email, Password: password,
		Client: &identityv1.Client{Address: addr}})
	return err
}

// TestAStrangerCannotLockTheOwnerOut: fifty wrong passwords from a stranger's address (the
// delays make them take a while) leave the owner, signing in from home, untouched.
func TestAStrangerCannotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withDefaultThrottle())
	e.signUpVerified("owner@example.com")

	const stranger, home = "203.0.113.66", "198.51.100.20"
	failures := 0
	for failures < 50 {
		err := signInFrom(e, t, "owner@example.com", "not-the-password", stranger)
		switch status := wantCode(t, err); status.Code() {
		case codes.Unauthenticated:
			failures++
		case codes.ResourceExhausted:
			// The stranger waits as told, and goes on.
			e.clock.Advance(retryDelay(t, status))
		default:
			t.Fatalf("stranger's try: %v", err)
		}
	}
	if err := signInFrom(e, t, "owner@example.com", goodPassword, home); err != nil {
		t.Fatalf("the owner from home after a stranger's 50 failures: %v", err)
	}
	// And the stranger's own address is held off, even with the right password.
	err := signInFrom(e, t, "owner@example.com", goodPassword, stranger)
	if st := wantStatus(t, err, codes.ResourceExhausted, ""); !strings.HasPrefix(st.Message(), "Too many sign-in attempts.") {
		t.Fatalf("message %q", st.Message())
	}
}

// TestFailuresFromOneAddressBackOffProgressively: after 5 free failures each further one
// doubles the wait, up to the cap; no lock, and the right password works once the wait is over.
func TestFailuresFromOneAddressBackOffProgressively(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withDefaultThrottle())
	e.signUpVerified("thandi@example.com")
	const addr = "198.51.100.30"
	for i := range 5 {
		if err := signInFrom(e, t, "thandi@example.com", "wrong-"+strconv.Itoa(i), addr); wantCode(t, err).Code() != codes.Unauthenticated {
			t.Fatalf("free failure %d: %v", i, err)
		}
	}
	var delays []time.Duration
	// Eleven: the last two at the cap (more would outlast the hour-long window, whose oldest
	// failures then stop counting).
	for i := range 11 {
		err := signInFrom(e, t, "thandi@example.com", "wrong-again", addr)
		st := wantStatus(t, err, codes.ResourceExhausted, "")
		d := retryDelay(t, st)
		delays = append(delays, d)
		// Waiting one second less is still too early.
		if d > time.Second {
			e.clock.Advance(d - time.Second)
			if err := signInFrom(e, t, "thandi@example.com", "wrong-again", addr); wantCode(t, err).Code() != codes.ResourceExhausted {
				t.Fatalf("try %d, %s before the end of a %s wait: %v (delays so far %v)", i, time.Second, d, err, delays)
			}
			e.clock.Advance(time.Second)
		} else {
			e.clock.Advance(d)
		}
		if err := signInFrom(e, t, "thandi@example.com", "wrong-"+strconv.Itoa(i), addr); wantCode(t, err).Code() != codes.Unauthenticated {
			t.Fatalf("try after waiting %s: %v", d, err)
		}
	}
	want := []time.Duration{2, 4, 8, 16, 32, 64, 128, 256, 512}
	for i, w := range want {
		if delays[i] != w*time.Second {
			t.Fatalf("delays = %v, want doubling from 2 s", delays)
		}
	}
	if last := delays[len(delays)-1]; last != 15*time.Minute {
		t.Fatalf("delays = %v, want capped at 15 min", delays)
	}
	e.clock.Advance(15 * time.Minute)
	if err := signInFrom(e, t, "thandi@example.com", goodPassword, addr); err != nil {
		t.Fatalf("right password after the wait: %v", err)
	}
}

// TestTheAccountCeilingSlowsADistributedAttack: failures spread over many addresses reach
// the per-account ceiling, which then makes everyone wait (the documented trade-off), briefly.
func TestTheAccountCeilingSlowsADistributedAttack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withThrottlePolicy(func(p *app.ThrottlePolicy) {
		*p = app.DefaultThrottlePolicy()
		p.AccountFailures = 20
	}))
	e.signUpVerified("target@example.com")
	for i := range 20 {
		err := signInFrom(e, t, "target@example.com", "guess", "192.0.2."+strconv.Itoa(i+1))
		if wantCode(t, err).Code() != codes.Unauthenticated {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	st := wantStatus(t, signInFrom(e, t, "target@example.com", goodPassword, "198.51.100.40"), codes.ResourceExhausted, "")
	if d := retryDelay(t, st); d != 2*time.Second {
		t.Fatalf("ceiling delay %s, want the first step (2 s)", d)
	}
	e.clock.Advance(2 * time.Second)
	if err := signInFrom(e, t, "target@example.com", goodPassword, "198.51.100.40"); err != nil {
		t.Fatalf("owner after the ceiling's delay: %v", err)
	}
}

// TestCodeSpraysFromOneAddressAreRefused: wrong codes tried on many accounts, a few each, from
// one address are held off per address; another address is unaffected.
func TestCodeSpraysFromOneAddressAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withDefaultThrottle())
	const sprayer = "203.0.113.77"
	var emails []string
	codesOf := map[string]string{}
	for i := range 12 {
		email := "fresh" + strconv.Itoa(i) + "@example.com"
		_, code := e.signUp(email)
		emails, codesOf[email] = append(emails, email), code
	}
	verify := func(email, code, addr string) error {
		_, err := e.bff.VerifyEmail(ctxT(t), &identityv1.VerifyEmailRequest{Email: email, Code: code,
			Client: &identityv1.Client{Address: addr}})
		return err
	}
	wrongFor := func(email string) string {
		if codesOf[email] == "000000" {
			return "999999"
		}
		return "000000"
	}
	// Two wrong codes on each of ten accounts: 20 failures, the address's free allowance.
	for _, email := range emails[:10] {
		for range 2 {
			if wantCode(t, verify(email, wrongFor(email), sprayer)).Code() == codes.ResourceExhausted {
				t.Fatalf("refused before the address's allowance was used (%s)", email)
			}
		}
	}
	// The next account's first guess is refused: the address, not the account, is counted.
	st := wantStatus(t, verify(emails[10], wrongFor(emails[10]), sprayer), codes.ResourceExhausted, "")
	if d := retryDelay(t, st); d < time.Second {
		t.Fatalf("retry after %s", d)
	}
	// The owner of that account, elsewhere, verifies with the right code.
	if err := verify(emails[10], codesOf[emails[10]], "198.51.100.50"); err != nil {
		t.Fatalf("owner verifying from another address: %v", err)
	}
}

// The signed-out browser's calls are the BFF's alone: they carry the client address the
// throttles count by, so a caller that reached identity's port directly could name a new address
// for every guess. Without a token, or with another service's, they are refused.
func TestSignedOutCallsAreTheBFFsAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, err := e.client.IssueServiceToken(ctxT(t), &identityv1.IssueServiceTokenRequest{Service: "transfers", Secret: testServiceSecret})
	if err != nil {
		t.Fatal(err)
	}
	asTransfers := auth.WithBearer(ctxT(t), other.GetAccessToken())
	for name, ctx := range map[string]context.Context{"no token": ctxT(t), "another service's token": asTransfers} {
		_, err := e.client.SignIn(ctx, &identityv1.SignInRequest{Email: "a@example.com", Password: goodPassword, Client: browser})
		want := codes.PermissionDenied
		if name == "no token" {
			want = codes.Unauthenticated
		}
		wantStatus(t, err, want, "")
		_, err = e.client.SignUp(ctx, &identityv1.SignUpRequest{FirstName: "A", LastName: "B", Email: "a@example.com",
			Password: goodPassword, Client: browser})
		wantStatus(t, err, want, "")
		_, err = e.client.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: "x"})
		wantStatus(t, err, want, "")
	}
	// The public keys and service tokens stay public: every service needs them first.
	if _, err := e.client.GetPublicKeys(ctxT(t), &identityv1.GetPublicKeysRequest{}); err != nil {
		t.Fatalf("GetPublicKeys without a token: %v", err)
	}
	if _, err := e.bff.SignIn(ctxT(t), &identityv1.SignInRequest{Email: "a@example.com", Password: goodPassword, Client: browser}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the BFF's sign-in of an unknown account: %v, want the usual refusal", err)
	}
}

// TestOneIPv6NetworkIsOneAddress: a subscriber holds a whole IPv6 /64 and can send every try
// from another address of it, so the per-pair and per-address throttles count the /64 (as the
// BFF's rate limits do), not the single address: the sixth wrong password from the network is
// held off whichever of its addresses it comes from; another network is not.
func TestOneIPv6NetworkIsOneAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withDefaultThrottle())
	e.signUpVerified("nomvula@example.com")
	for i := range 5 {
		addr := "2001:db8:1:2::" + strconv.FormatInt(int64(i+1), 16)
		if err := signInFrom(e, t, "nomvula@example.com", "wrong-"+strconv.Itoa(i), addr); wantCode(t, err).Code() != codes.Unauthenticated {
			t.Fatalf("free failure %d: %v", i, err)
		}
	}
	for _, addr := range []string{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0DB8:0001:0002::99"} {
		st := wantStatus(t, signInFrom(e, t, "nomvula@example.com", "wrong-again", addr), codes.ResourceExhausted, "")
		if d := retryDelay(t, st); d < time.Second {
			t.Fatalf("from %s: retry after %s", addr, d)
		}
	}
	// Codes too: wrong codes spread over the network's addresses count as one address's.
	e.clock.Advance(2 * time.Hour)
	if err := signInFrom(e, t, "nomvula@example.com", goodPassword, "2001:db8:9:9::1"); err != nil {
		t.Fatalf("the owner from another network: %v", err)
	}
	for i := range 20 {
		email := "spray" + strconv.Itoa(i) + "@example.com"
		_, err := e.bff.VerifyEmail(ctxT(t), &identityv1.VerifyEmailRequest{Email: email, Code: "000000",
			Client: &identityv1.Client{Address: "2001:db8:5:5::" + strconv.FormatInt(int64(i+1), 16)}})
		if wantCode(t, err).Code() == codes.ResourceExhausted {
			t.Fatalf("code try %d refused before the address's allowance was used", i)
		}
	}
	_, err := e.bff.VerifyEmail(ctxT(t), &identityv1.VerifyEmailRequest{Email: "spray-last@example.com", Code: "000000",
		Client: &identityv1.Client{Address: "2001:db8:5:5:abcd::1"}})
	wantStatus(t, err, codes.ResourceExhausted, "")
	// IPv4 is counted by the address, as before, an IPv4-mapped IPv6 address with it.
	for i := range 5 {
		if err := signInFrom(e, t, "nomvula@example.com", "wrong-"+strconv.Itoa(i), "198.51.100.7"); wantCode(t, err).Code() != codes.Unauthenticated {
			t.Fatalf("IPv4 free failure %d: %v", i, err)
		}
	}
	wantStatus(t, signInFrom(e, t, "nomvula@example.com", "wrong-again", "::ffff:198.51.100.7"), codes.ResourceExhausted, "")
	if err := signInFrom(e, t, "nomvula@example.com", goodPassword, "198.51.100.8"); err != nil {
		t.Fatalf("the next IPv4 address: %v", err)
	}
}
