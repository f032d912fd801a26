package server

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// maxRequestBytes is the largest request the API reads: a browser's request is small, anything
// bigger is a mistake or an attack. The analytics service has a smaller limit of its own
// (handlers.MaxTrackRequestBytes).
const maxRequestBytes = 1 << 20

// The read limits answer a request over them in one plain sentence (rpcerr.TooLarge:
// InvalidArgument, "The request is too large."), in every protocol, instead of connect's
// ResourceExhausted "message size 10000033 is larger than configured max 1048576", which tells
// a client to retry and gives the limit away. connect writes its own refusal before any
// interceptor runs, so the limits are not connect.WithReadMaxBytes but the standard library's
// http.MaxBytesReader, whose error tooLarge turns into the BFF's *connect.Error, which connect
// passes on as it is: limitBody bounds the bytes on the wire (the Connect body, or the gRPC and
// gRPC-Web envelopes whatever size their prefix claims), and limitedGzip the bytes a compressed
// message inflates to.

// limitBody refuses a request body longer than maxBytes.
func limitBody(maxBytes int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = tooLarge{http.MaxBytesReader(w, r.Body, maxBytes)}
		}
		next.ServeHTTP(w, r)
	})
}

// readLimit is the handler options that bound a compressed message to maxBytes once
// inflated: the only compression the API accepts is gzip, registered here.
func readLimit(maxBytes int64) []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithCompression("gzip",
			func() connect.Decompressor { return &limitedGzip{max: maxBytes} },
			func() connect.Compressor {
				w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // the level is valid
				return w
			}),
	}
}

// tooLarge reads through a MaxBytesReader and answers its "too large" with rpcerr.TooLarge.
type tooLarge struct{ io.ReadCloser }

func (r tooLarge) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if _, over := errors.AsType[*http.MaxBytesError](err); over {
		err = rpcerr.TooLarge()
	}
	return n, err
}

// limitedGzip is a gzip reader that fails with rpcerr.TooLarge past max inflated bytes.
type limitedGzip struct {
	gzip.Reader
	max     int64
	limited io.Reader
}

func (z *limitedGzip) Reset(r io.Reader) error {
	// No ResponseWriter: the limit is on what the message inflates to, not on the connection.
	z.limited = tooLarge{http.MaxBytesReader(nil, io.NopCloser(&z.Reader), z.max)}
	return z.Reader.Reset(r)
}

func (z *limitedGzip) Read(p []byte) (int, error) {
	return z.limited.Read(p)
}

// requestBodyTimeout is how long a request's body may take to arrive, counted from the end of
// its headers (which the server's ReadHeaderTimeout bounds). Without it a client could open many
// connections or streams and trickle each body a byte at a time, holding a goroutine and its
// buffers per request for as long as it liked (slow-loris). The largest request a person sends
// is a support message (5,000 characters, at most 20 KB of JSON, usually a few): about 8 s at
// 20 kbit/s, a phone's GPRS fallback, so 30 s leaves room for a stalled mobile link, and is the
// ATM gateway's bound on one frame (cashout's frameTimeout). Past it the request is answered
// DeadlineExceeded (rpcerr.TooSlow) and nothing of it is applied: a Connect handler runs only
// once its request message is read whole.
const requestBodyTimeout = 30 * time.Second

// bodyDeadline gives a request's body timeout to arrive, through a read deadline on the request
// (http.ResponseController: the connection's for HTTP/1.1, the stream's for HTTP/2).
//
// Not the server's WriteTimeout, which would end every live stream, nor its ReadTimeout, which
// bounds the body too but, when a body misses it, has the API answer connect's "read tcp
// 10.1.2.3:8080->…: i/o timeout", and on HTTP/1.1 keeps the connection and reads what is left of
// the body as the next request: a client could pass a request of its own that way, past any
// proxy in front (TestASlowRequestBodyIsCutAtTheDeadline checks the connection is closed).
//
// The deadline is taken away at the body's end. HTTP/1.1 then reads the connection in the
// background, to notice the client leaving, and a read deadline passing during that read cancels
// the connection's context: the request's, a live stream's, and that of every later request on
// the connection. net/http clears the deadline itself when it starts that read (Go 1.26), which
// it does not document, so the body clears it too. That read is also why a request without a
// body gets no deadline: HTTP/1.1 starts it before the handler runs.
//
// It must see the server's own ResponseWriter (the outermost handler): a writer without
// SetReadDeadline, a test's recorder, leaves the body unbounded.
func bodyDeadline(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No body (a GET, an empty POST): nothing to bound, and the background read has begun.
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
			next.ServeHTTP(w, r)
			return
		}
		body := &deadlineBody{ReadCloser: r.Body, rc: rc, http1: r.ProtoMajor == 1}
		r.Body = body
		next.ServeHTTP(w, r)
		body.handlerReturned()
	})
}

// deadlineBody reads a request body under bodyDeadline's read deadline, clears the deadline at
// the body's end, and answers a body that misses it with rpcerr.TooSlow.
//
// On HTTP/1.1 it never closes the body before its end. When the handler answers, the server reads
// what is left (up to 256 KiB, under the deadline still set) and keeps the connection only if
// that reaches the body's end. It can tell a body the handler closed half-read only by its own
// type, which any wrapper hides (this one, limitBody's): it would take such a body as read whole
// and parse what is left of it as the next request on the connection.
type deadlineBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	http1 bool

	mu     sync.Mutex
	ended  bool // read to its end
	closed bool
	done   bool // the deadline is cleared, or the handler has returned
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return 0, http.ErrBodyReadAfterClose
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		b.mu.Lock()
		b.ended = true
		b.clearLocked()
		b.mu.Unlock()
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: whatever reads the rest later (HTTP/1.1's discard after the
		// answer) fails at once, and HTTP/1.1 then closes the connection.
		err = rpcerr.TooSlow()
	}
	return n, err
}

func (b *deadlineBody) Close() error {
	b.mu.Lock()
	b.closed = true
	leaveToServer := b.http1 && !b.ended
	b.mu.Unlock()
	if leaveToServer {
		return nil
	}
	// HTTP/2 closes the stream's body alone (the connection is not at stake); HTTP/1.1 after
	// the end has nothing left to read.
	err := b.ReadCloser.Close()
	b.mu.Lock()
	b.clearLocked()
	b.mu.Unlock()
	return err
}

// clearLocked takes the read deadline away, once, while the handler runs.
func (b *deadlineBody) clearLocked() {
	if b.done {
		return
	}
	b.done = true
	_ = b.rc.SetReadDeadline(time.Time{})
}

// handlerReturned stops any later clearing: the ResponseController may no longer be used, and
// the server sets the connection's deadlines itself from here.
func (b *deadlineBody) handlerReturned() {
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
}
