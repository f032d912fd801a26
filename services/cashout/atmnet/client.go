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
// (DE 37) and terminal id (DE 41), in whatever order they arrive, as switches do.
type Client struct {
	conn net.Conn

	wmu sync.Mutex // one frame at a time

	mu      sync.Mutex
	pending map[string]chan *Message
	err     error // set once the reader stops
	done    chan struct{}
}

// Dial connects to addr.
func Dial(ctx context.Context, addr string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("atmnet: dial %s: %w", addr, err)
	}
	return NewClient(conn), nil
}

// NewClient runs a client over an open connection, which it then owns.
func NewClient(conn net.Conn) *Client {
	c := &Client{conn: conn, pending: map[string]chan *Message{}, done: make(chan struct{})}
	go c.read()
	return c
}

func matchKey(mti, stan, rrn, terminal string) string {
	return mti + "|" + stan + "|" + rrn + "|" + terminal
}

// Do sends req and waits for its answer, until ctx ends (DefaultTimeout if ctx has no
// deadline). A request that timed out may still have been acted on: a withdrawal then calls
// for a reversal (NewReversal), as an ATM would send.
func (c *Client) Do(ctx context.Context, req *Message) (*Message, error) {
	resMTI, ok := ResponseMTI(req.MTI)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a request MTI", ErrFormat, req.MTI)
	}
	payload, err := Pack(req)
	if err != nil {
		return nil, err
	}
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	key := matchKey(resMTI, req.STAN, req.RRN, req.TerminalID)
	ch := make(chan *Message, 1)
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
	case res := <-ch:
		return res, nil
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
		key := matchKey(res.MTI, res.STAN, res.RRN, res.TerminalID)
		c.mu.Lock()
		ch := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if ch != nil {
			ch <- res
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
