package atmnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Client errors.
var (
	// ErrClosed: the connection is closed (by Close, or because reading from it failed); dial
	// again.
	ErrClosed = errors.New("atmnet: connection closed")
	// ErrInFlight: a request with the same MTI, STAN, RRN and terminal is already waiting for
	// its answer on this connection, so the answers could not be told apart.
	ErrInFlight = errors.New("atmnet: a request with these references is already in flight")
)

// DefaultTimeout bounds Do when its context has no deadline: about what an ATM waits before it
// gives up and reverses.
const DefaultTimeout = 30 * time.Second

// Client is one connection to a gateway (or a switch), safe for concurrent use: requests are
// written as they come and answers are matched to them by response MTI, STAN (DE 11), RRN
// (DE 37) and terminal id (DE 41), in whatever order they arrive, as switches do. It is a link
// of one zone: every request carries a MAC under the link's zone MAC key (and DE 53 naming it
// when the request names no zone keys itself), and every answer's MAC is checked.
type Client struct {
	conn net.Conn
	key  MACKey

	wmu sync.Mutex // one frame at a time

	mu      sync.Mutex
	pending map[string]chan answer
	err     error // set once the reader stops
	done    chan struct{}
}

// answer is an answer as read, and why it must not be trusted when its MAC does not verify.
type answer struct {
	res *Message
	err error
}

// Dial connects to addr as a link whose zone MAC key is key.
func Dial(ctx context.Context, addr string, key MACKey) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("atmnet: dial %s: %w", addr, err)
	}
	return NewClient(conn, key), nil
}

// NewClient runs a client over an open connection, which it then owns, as a link whose zone MAC
// key is key.
func NewClient(conn net.Conn, key MACKey) *Client {
	c := &Client{conn: conn, key: key, pending: map[string]chan answer{}, done: make(chan struct{})}
	go c.read()
	return c
}

func matchKey(mti, stan, rrn, terminal string) string {
	return mti + "|" + stan + "|" + rrn + "|" + terminal
}

// Do sends req, MAC'd under the link's key, and waits for its answer, until ctx ends
// (DefaultTimeout if ctx has no deadline). A request without DE 53 gets the link's zone keys'
// id; req itself is not changed. A request that timed out may still have been acted on: a
// withdrawal then calls for a reversal (NewReversal), as an ATM would send.
//
// An answer whose MAC is missing or does not verify (the gateway cannot MAC its answer to a
// request naming unknown zone keys, or someone altered it) is returned with an error wrapping
// ErrMACMissing or ErrMACInvalid: it is there to be logged or tested, never acted on. An ATM
// treats it as no answer.
func (c *Client) Do(ctx context.Context, req *Message) (*Message, error) {
	resMTI, ok := ResponseMTI(req.MTI)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a request MTI", ErrFormat, req.MTI)
	}
	out := *req
	if out.PINKeyID == "" {
		out.PINKeyID = c.key.ID()
	}
	payload, err := PackMAC(&out, c.key)
	if err != nil {
		return nil, err
	}
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	key := matchKey(resMTI, req.STAN, req.RRN, req.TerminalID)
	ch := make(chan answer, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	if _, busy := c.pending[key]; busy {
		c.mu.Unlock()
		return nil, ErrInFlight
	}
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()

	c.wmu.Lock()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.conn.SetWriteDeadline(dl)
	}
	err = WriteFrame(c.conn, payload)
	c.wmu.Unlock()
	if err != nil {
		c.fail(fmt.Errorf("%w: write: %w", ErrClosed, err))
		return nil, err
	}

	select {
	case a := <-ch:
		if a.err != nil {
			return a.res, fmt.Errorf("atmnet: answer to %s STAN %s not authenticated: %w", req.MTI, req.STAN, a.err)
		}
		return a.res, nil
	case <-c.done:
		return nil, c.closedErr()
	case <-ctx.Done():
		return nil, fmt.Errorf("atmnet: no answer to %s STAN %s: %w", req.MTI, req.STAN, ctx.Err())
	}
}

// read delivers each answer to the request waiting for it; an answer nobody waits for any
// more (it came after the request's timeout) is dropped.
func (c *Client) read() {
	for {
		frame, err := ReadFrame(c.conn)
		if err != nil {
			c.fail(fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		if len(frame) == 0 {
			continue // keep-alive
		}
		res, err := Unpack(frame)
		if err != nil {
			continue // not ours to answer; the request it belonged to times out
		}
		verr := VerifyMAC(frame, res, c.key)
		key := matchKey(res.MTI, res.STAN, res.RRN, res.TerminalID)
		c.mu.Lock()
		ch := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if ch != nil {
			ch <- answer{res: res, err: verr}
		}
	}
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
	_ = c.conn.Close()
}

func (c *Client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection; requests waiting for answers fail with ErrClosed.
func (c *Client) Close() error {
	c.fail(ErrClosed)
	return nil
}
