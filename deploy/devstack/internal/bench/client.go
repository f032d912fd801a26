package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	"github.com/thumela/thumela/services/platform/intconv"
)

// ClientConfig says how the bench's Connect clients talk to the BFF.
type ClientConfig struct {
	BaseURL string
	// JSON makes the clients speak Connect with JSON bodies, as the browser does; otherwise
	// binary protobuf.
	JSON bool
	// StreamsHTTP1 opens each event stream on its own HTTP/1.1 connection; otherwise each user's
	// streams share one cleartext HTTP/2 connection, as a browser's tabs share one connection.
	StreamsHTTP1 bool
}

// Client makes users and their Connect clients.
type Client struct {
	cfg   ClientConfig
	unary *http.Transport
	outbx *http.Client
}

// NewClient returns a client for the stack at cfg.BaseURL.
func NewClient(cfg ClientConfig) *Client {
	return &Client{
		cfg: cfg,
		// Unary calls use HTTP/1.1 keep-alive connections: at most one call per connection, so
		// concurrent workers each hold their own, like pgbench's clients.
		unary: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 1024,
			IdleConnTimeout:     90 * time.Second,
		},
		outbx: &http.Client{Timeout: 10 * time.Second},
	}
}

// Close drops idle connections.
func (c *Client) Close() { c.unary.CloseIdleConnections() }

// User is one signed-in person of the bench with their own session cookie.
type User struct {
	Email    string
	Password string
	ID       string
	CardID   string

	session        *sessionTransport
	Auth           bffv1connect.AuthServiceClient
	Transfers      bffv1connect.TransfersServiceClient
	PaymentMethods bffv1connect.PaymentMethodsServiceClient
	Security       bffv1connect.SecurityServiceClient

	streamHTTP *http.Client
	Events     bffv1connect.EventsServiceClient
}

// sessionTransport keeps one session cookie, as a browser's cookie jar would for the BFF's
// origin. Go's cookiejar would not send the Secure cookie over plain http://127.0.0.1, so the
// cookie is kept by hand: taken from Set-Cookie, sent as Cookie.
type sessionTransport struct {
	base   http.RoundTripper
	mu     sync.Mutex
	cookie string
}

func (s *sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	cookie := s.cookie
	s.mu.Unlock()
	if cookie != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Cookie", cookie)
	}
	resp, err := s.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	for _, c := range resp.Cookies() {
		if !strings.HasSuffix(c.Name, "thumela_session") {
			continue
		}
		s.mu.Lock()
		if c.Value == "" || c.MaxAge < 0 {
			s.cookie = ""
		} else {
			s.cookie = c.Name + "=" + c.Value
		}
		s.mu.Unlock()
	}
	return resp, nil
}

func (c *Client) newUser(email, password string) *User {
	opts := []connect.ClientOption{}
	if c.cfg.JSON {
		opts = append(opts, connect.WithProtoJSON())
	}
	st := &sessionTransport{base: c.unary}
	hc := &http.Client{Transport: st}
	u := &User{
		Email:          email,
		Password:       password,
		session:        st,
		Auth:           bffv1connect.NewAuthServiceClient(hc, c.cfg.BaseURL, opts...),
		Transfers:      bffv1connect.NewTransfersServiceClient(hc, c.cfg.BaseURL, opts...),
		PaymentMethods: bffv1connect.NewPaymentMethodsServiceClient(hc, c.cfg.BaseURL, opts...),
		Security:       bffv1connect.NewSecurityServiceClient(hc, c.cfg.BaseURL, opts...),
	}
	// Streams get a transport of their own per user: one HTTP/2 connection carrying all of the
	// user's streams, or (HTTP/1.1) one connection per stream.
	streamBase := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
	}
	if !c.cfg.StreamsHTTP1 {
		streamBase.Protocols = new(http.Protocols)
		streamBase.Protocols.SetUnencryptedHTTP2(true)
	}
	u.streamHTTP = &http.Client{Transport: &sessionTransport{base: streamBase}}
	u.Events = bffv1connect.NewEventsServiceClient(u.streamHTTP, c.cfg.BaseURL, opts...)
	return u
}

// shareSession gives the user's stream client the session cookie of its unary client.
func (u *User) shareSession() {
	u.session.mu.Lock()
	cookie := u.session.cookie
	u.session.mu.Unlock()
	st := u.streamHTTP.Transport.(*sessionTransport)
	st.mu.Lock()
	st.cookie = cookie
	st.mu.Unlock()
}

// CloseStreams drops the user's stream connections.
func (u *User) CloseStreams() {
	if st, ok := u.streamHTTP.Transport.(*sessionTransport); ok {
		if t, ok := st.base.(*http.Transport); ok {
			t.CloseIdleConnections()
		}
	}
}

// Via returns u's clients for the BFF replica at baseURL, sharing u's session cookie and
// connections: the session lives in identity, so every replica accepts it.
func (c *Client) Via(u *User, baseURL string) *User {
	opts := []connect.ClientOption{}
	if c.cfg.JSON {
		opts = append(opts, connect.WithProtoJSON())
	}
	v := *u
	hc := &http.Client{Transport: u.session}
	v.Auth = bffv1connect.NewAuthServiceClient(hc, baseURL, opts...)
	v.Transfers = bffv1connect.NewTransfersServiceClient(hc, baseURL, opts...)
	v.PaymentMethods = bffv1connect.NewPaymentMethodsServiceClient(hc, baseURL, opts...)
	v.Security = bffv1connect.NewSecurityServiceClient(hc, baseURL, opts...)
	v.Events = bffv1connect.NewEventsServiceClient(u.streamHTTP, baseURL, opts...)
	return &v
}

// SetUpUsers signs n users up, verifies their e-mails with the codes from the dev outbox, and
// (when withCard) saves the sandbox's approving Visa card as each one's default.
func (c *Client) SetUpUsers(ctx context.Context, runID string, n, parallel int, withCard bool) ([]*User, error) {
	users := make([]*User, n)
	for i := range users {
		users[i] = c.newUser(fmt.Sprintf("bench+%s-%03d@example.co.za", runID, i), "Bench-Horse-"+runID+"-42")
	}
	// Sign up.
	if err := forEach(ctx, users, parallel, func(ctx context.Context, i int, u *User) error {
		err := whenAllowed(ctx, func() error {
			_, err := u.Auth.SignUp(ctx, &bffv1.SignUpRequest{
				FirstName: "Bench", LastName: "User " + letters(i), Email: u.Email,
				Password: u.Password, ConfirmPassword: u.Password,
			})
			return err
		})
		if err != nil {
			return fmt.Errorf("sign up %s: %w", u.Email, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// Codes.
	codes, err := c.verificationCodes(ctx, users, 30*time.Second)
	if err != nil {
		return nil, err
	}
	// Verify, which signs in, then the card.
	if err := forEach(ctx, users, parallel, func(ctx context.Context, _ int, u *User) error {
		var res *bffv1.VerifyEmailResponse
		err := whenAllowed(ctx, func() (err error) {
			res, err = u.Auth.VerifyEmail(ctx, &bffv1.VerifyEmailRequest{Email: u.Email, Code: codes[u.Email]})
			return err
		})
		if err != nil {
			return fmt.Errorf("verify %s: %w", u.Email, err)
		}
		u.ID = res.GetUser().GetId()
		u.shareSession()
		if !withCard {
			return nil
		}
		var card *bffv1.AddCardResponse
		err = whenAllowed(ctx, func() (err error) {
			card, err = u.PaymentMethods.AddCard(ctx, &bffv1.AddCardRequest{
				Name: "Bench Visa", CardNumber: "4242424242424242", ExpiryMonth: 12,
				ExpiryYear: intconv.Int32(time.Now().Year() + 3), Cvv: "123", IsDefault: true,
			})
			return err
		})
		if err != nil {
			return fmt.Errorf("add a card for %s: %w", u.Email, err)
		}
		u.CardID = card.GetPaymentMethod().GetId()
		return nil
	}); err != nil {
		return nil, err
	}
	return users, nil
}

// whenAllowed runs call, and again after the wait the BFF's rate limit asks for (Retry-After)
// while it answers ResourceExhausted, for up to a minute: setting many users up from one
// address is a burst the limits are there to slow down, and the set-up is not measured.
func whenAllowed(ctx context.Context, call func() error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := call()
		var ce *connect.Error
		if err == nil || !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || time.Now().After(deadline) {
			return err
		}
		wait := time.Second
		if s, perr := strconv.Atoi(ce.Meta().Get("Retry-After")); perr == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// letters numbers users in names, which take letters only: 0 → "A", 25 → "Z", 26 → "AA".
func letters(i int) string {
	s := ""
	for i++; i > 0; i = (i - 1) / 26 {
		s = string(rune('A'+(i-1)%26)) + s
	}
	return s
}

// StepUp proves the user afresh with their password (SecurityService.FinishStepUp), as the
// wizard's "Confirm it's you" does: for the next 5 minutes the session may create transfers
// above R1,000 or to a phone it never paid (the bench's recipient, at first). It is done
// before a phase's transfers, not timed with them: the create path measured is the one with
// the step-up check, not the password hash.
func (u *User) StepUp(ctx context.Context) error {
	if err := whenAllowed(ctx, func() error {
		_, err := u.Security.FinishStepUp(ctx, &bffv1.FinishStepUpRequest{
			Proof: &bffv1.FinishStepUpRequest_Password{Password: u.Password},
		})
		return err
	}); err != nil {
		return fmt.Errorf("step up %s: %w", u.Email, err)
	}
	return nil
}

// StepUpAll steps every user up (StepUp), parallel at a time.
func StepUpAll(ctx context.Context, users []*User, parallel int) error {
	return forEach(ctx, users, parallel, func(ctx context.Context, _ int, u *User) error { return u.StepUp(ctx) })
}

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

// TemplateSignUpCode is the sign-up code e-mail's template, as /dev/outbox names it (the
// e-mail's X-Thumela-Template).
const TemplateSignUpCode = "sign_up_code"

// verificationCodes polls the dev outbox until every user's sign-up code is there.
func (c *Client) verificationCodes(ctx context.Context, users []*User, timeout time.Duration) (map[string]string, error) {
	want := map[string]bool{}
	for _, u := range users {
		want[u.Email] = true
	}
	codes := map[string]string{}
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.BaseURL+"/dev/outbox?format=json", nil)
		resp, err := c.outbx.Do(req)
		if err == nil {
			var body struct {
				Messages []struct {
					Recipient string `json:"recipient"`
					Template  string `json:"template"`
					Body      string `json:"body"`
				} `json:"messages"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close() //nolint:errcheck // the body is only read; its Close error says nothing
			if err == nil {
				for _, m := range body.Messages {
					if want[m.Recipient] && m.Template == TemplateSignUpCode {
						if code := sixDigits.FindStringSubmatch(m.Body); code != nil {
							codes[m.Recipient] = code[1]
						}
					}
				}
			}
		}
		if len(codes) == len(want) {
			return codes, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the dev outbox has %d of %d sign-up codes after %s (is BFF_DEV_MODE on?)", len(codes), len(want), timeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// forEach calls f for every user, at most parallel at a time, and returns the first error.
func forEach(ctx context.Context, users []*User, parallel int, f func(context.Context, int, *User) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i, u := range users {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(ctx, i, u); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// NewIdempotencyKey returns a fresh random key.
func NewIdempotencyKey() string { return "bench-" + randomHex(16) }

// TransferRequest is the bench's transfer: R10.00, the minimum, to one recipient at FNB, with
// the sender's tick on "Do you know {name} personally?" (a new user has never paid the phone).
func TransferRequest(u *User) *bffv1.CreateTransferRequest {
	return &bffv1.CreateTransferRequest{
		IdempotencyKey:          NewIdempotencyKey(),
		RecipientName:           "Lerato Bench",
		RecipientPhone:          "+27821234567",
		Bank:                    bffv1.Bank_BANK_FNB,
		AmountCents:             1000,
		PaymentMethodId:         u.CardID,
		RecipientKnownConfirmed: true,
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// IsLimitError reports whether err is a transfer refused by the sender's limits.
func IsLimitError(err error) bool {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return false
	}
	return strings.Contains(strings.ToLower(ce.Message()), "limit")
}
