package server_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// signInCounter is fakeIdentity counting the SignIns that reach it.
type signInCounter struct {
	*fakeIdentity
	calls atomic.Int64
}

func (c *signInCounter) SignIn(ctx context.Context, req *identityv1.SignInRequest) (*identityv1.SignInResponse, error) {
	c.calls.Add(1)
	return c.fakeIdentity.SignIn(ctx, req)
}

// trickle writes body to w a byte every interval until it is all sent or stop is closed, and
// then waits for stop: a client that sends its body slowly, and its end never.
func trickle(w io.Writer, body string, interval time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i := range len(body) {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if _, err := w.Write([]byte{body[i]}); err != nil {
			return // the server hung up
		}
	}
	<-stop
}

// TestASlowRequestBodyIsCutAtTheDeadline: a client that sends a request's headers at once and
// its body a byte at a time, each byte well within the deadline but the whole never (slow-loris
// on the body), is answered DeadlineExceeded once the body's deadline has passed, over HTTP/1.1
// (which then closes the connection) and HTTP/2 (whose connection goes on serving); the call
// never reaches its handler.
func TestASlowRequestBodyIsCutAtTheDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	// How long the test waits for the server before it calls it hung: far past the deadline.
	const patience = 15 * time.Second
	identity := &signInCounter{fakeIdentity: &fakeIdentity{sessions: map[string]bool{}}}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	srv := serveBFFWith(t, &handlers.Deps{
		Logger:   quietLogger(),
		Identity: idClient,
		Profiles: profilesv1.NewProfilesServiceClient(conn),
		Tokens:   session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:  session.Cookies{Secure: true},
	}, func(o *server.Options) { o.BodyTimeout = timeout })

	// 100 bytes announced, 80 sent, one every quarter of the deadline.
	const announced = 100
	partial := `{"email":"thandi@example.co.za","password":"`
	partial += strings.Repeat("a", 80-len(partial))
	wantTooSlow := func(t *testing.T, res *http.Response) {
		t.Helper()
		answer, _ := io.ReadAll(res.Body)
		var wire struct{ Code, Message string }
		if err := json.Unmarshal(answer, &wire); err != nil || res.StatusCode != http.StatusGatewayTimeout ||
			wire.Code != connect.CodeDeadlineExceeded.String() || wire.Message != rpcerr.MsgTooSlow {
			t.Fatalf("answer %d %s, want 504 deadline_exceeded %q", res.StatusCode, answer, rpcerr.MsgTooSlow)
		}
	}

	t.Run("HTTP/1.1", func(t *testing.T) {
		tlsConf := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		tlsConf.NextProtos = []string{"http/1.1"}
		c, err := tls.Dial("tcp", srv.Listener.Addr().String(), tlsConf)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "POST "+bffv1connect.AuthServiceSignInProcedure+" HTTP/1.1\r\n"+
			"Host: "+srv.Listener.Addr().String()+"\r\nContent-Type: application/json\r\n"+
			"Content-Length: "+strconv.Itoa(announced)+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { trickle(c, partial, timeout/4, stop) })
		defer wg.Wait()
		defer close(stop)

		_ = c.SetReadDeadline(time.Now().Add(patience))
		r := bufio.NewReader(c)
		res, err := http.ReadResponse(r, nil)
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			t.Fatalf("no answer %v after the request: the server still waits for the body", patience)
		}
		if err != nil {
			t.Fatal(err)
		}
		wantTooSlow(t, res)
		// Then the connection ends: what is left of the body must not be read as a request.
		if n, err := r.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
			t.Fatalf("after the answer: %d bytes, %v; want the connection closed", n, err)
		}
	})

	t.Run("HTTP/2", func(t *testing.T) {
		hc := srv.Client()
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		pr, pw := io.Pipe()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+bffv1connect.AuthServiceSignInProcedure, pr)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = announced
		req.Header.Set("Content-Type", "application/json")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { trickle(pw, partial, timeout/4, stop); _ = pw.Close() })
		defer wg.Wait()
		defer close(stop)

		res, err := hc.Do(req)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("no answer %v after the request: the server still waits for the body", patience)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.ProtoMajor != 2 {
			t.Fatalf("served over %s, want HTTP/2", res.Proto)
		}
		wantTooSlow(t, res)

		// The connection serves the next request: the deadline was the stream's alone.
		_, err = bffv1connect.NewAuthServiceClient(hc, srv.URL).SignIn(context.Background(),
			&bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "wrong-password"})
		if connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Fatalf("SignIn after the slow one: %v, want Unauthenticated", err)
		}
		if n := identity.calls.Load(); n != 1 {
			t.Fatalf("identity got %d SignIns, want 1 (the slow ones never reach it)", n)
		}
	})
}

// TestALiveStreamOutlivesTheBodyDeadline: a live stream's request is read whole at once, and
// the stream then lasts as long as its tab, far past the deadline its request had to arrive:
// the deadline goes with the body's end, over HTTP/1.1 (where a deadline left on the connection
// would fail the server's background read of it and cancel the stream) and HTTP/2.
func TestALiveStreamOutlivesTheBodyDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	js := jetStream(t)
	b := newLiveBFFServed(t, js, live.Limits{}, nil, func(o *server.Options) { o.BodyTimeout = timeout })

	for _, tc := range []struct {
		proto, user string
		http1       bool
	}{{"HTTP/1.1", "u1", true}, {"HTTP/2.0", "u2", false}} {
		t.Run(tc.proto, func(t *testing.T) {
			tr := b.srv.Client().Transport.(*http.Transport).Clone()
			if tc.http1 {
				tr.Protocols = new(http.Protocols)
				tr.Protocols.SetHTTP1(true)
				tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
			}
			t.Cleanup(tr.CloseIdleConnections)
			rt := &protoRecorder{rt: tr}
			events := bffv1connect.NewEventsServiceClient(browserOver(t, b, tc.user, rt), b.srv.URL)

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, _ := watch(t, ctx, events, "")
			defer s.Close()
			// The stream started more than the deadline before this: its request's deadline has
			// passed, and the stream still carries what happens next.
			time.Sleep(4 * timeout)
			publishStatus(t, js, tc.user, "t-after-the-deadline")
			if id := next(t, s).GetTransferUpdated().GetTransfer().GetId(); id != "t-after-the-deadline" {
				t.Fatalf("event for transfer %q, want t-after-the-deadline", id)
			}
			got := rt.protos()
			for _, p := range got {
				if p != tc.proto {
					t.Fatalf("served over %v, want %s only", got, tc.proto)
				}
			}
		})
	}
}

// browserOver is liveBFF.browser over the round tripper rt.
func browserOver(t *testing.T, b *liveBFF, userID string, rt http.RoundTripper) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Transport: rt, Jar: jar}
	auth := bffv1connect.NewAuthServiceClient(hc, b.srv.URL)
	if _, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: userID + "@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	return hc
}

// protoRecorder is a round tripper that notes the protocol of every answer.
type protoRecorder struct {
	rt  http.RoundTripper
	mu  sync.Mutex
	got []string
}

func (p *protoRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := p.rt.RoundTrip(req)
	if err == nil {
		p.mu.Lock()
		p.got = append(p.got, res.Proto)
		p.mu.Unlock()
	}
	return res, err
}

func (p *protoRecorder) protos() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

// TestAnAnswerOutlivesTheBodyDeadline: a handler that has read its request's body (or had none
// to read) answers for as long as it takes, past the deadline the body had: the first half of
// its answer, a pause of several deadlines, then the rest, over HTTP/1.1 and HTTP/2. Over
// HTTP/1.1 the server reads a request without a body in the background from the start, so a
// deadline set on one would cancel it when it passed.
func TestAnAnswerOutlivesTheBodyDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	// A stand-in for the dev tools, the one handler a test can give the BFF: it reads a POST's
	// body (a GET's handler reads none), answers half, waits, and answers the rest unless the
	// request was cancelled.
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Method == http.MethodPost {
			var err error
			if body, err = io.ReadAll(r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		_, _ = io.WriteString(w, "read "+strconv.Itoa(len(body))+" bytes;")
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(4 * timeout):
		}
		_, _ = io.WriteString(w, " still answering")
	})
	deps := &handlers.Deps{Logger: quietLogger(), Cookies: session.Cookies{Secure: true}}
	srv := serveBFFWith(t, deps, func(o *server.Options) {
		o.BodyTimeout = timeout
		o.DevTools = slow
	})

	for _, proto := range []string{"HTTP/1.1", "HTTP/2.0"} {
		tr := srv.Client().Transport.(*http.Transport).Clone()
		if proto == "HTTP/1.1" {
			tr.Protocols = new(http.Protocols)
			tr.Protocols.SetHTTP1(true)
			tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
		}
		t.Cleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: tr}
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			var body io.Reader
			want := "read 0 bytes; still answering"
			if method == http.MethodPost {
				body = strings.NewReader(`{"note":"a body read whole at once"}`)
				want = "read 36 bytes; still answering"
			}
			req, err := http.NewRequest(method, srv.URL+"/dev/slow", body)
			if err != nil {
				t.Fatal(err)
			}
			res, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || string(got) != want || res.Proto != proto {
				t.Errorf("%s %s: %s %q, %v; want %q", proto, method, res.Proto, got, err, want)
			}
		}
	}
}
