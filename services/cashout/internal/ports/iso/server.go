// Package iso is the gateway's ISO 8583 port: a TCP listener for the ATM switches'
// connections, framing, one goroutine per request, the mapping between messages and the
// domain, and the one place where errors become response codes (DE 39).
package iso

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
	"github.com/thumela/thumela/services/platform/lifecycle"
)

// App is what the port needs from the use cases.
type App interface {
	Withdraw(ctx context.Context, w domain.Withdrawal) (domain.Collection, error)
	Reverse(ctx context.Context, r domain.Reversal) (domain.ReversalResult, error)
}

// MaxInFlightPerConn bounds the requests one connection has in progress: past it the port
// stops reading that connection until one is answered (TCP then pushes back on the switch).
const MaxInFlightPerConn = 256

// writeTimeout bounds writing one answer: a switch that stops reading must not hold a
// request's goroutine forever.
const writeTimeout = 10 * time.Second

// frameTimeout bounds reading one frame once its first byte has arrived: a peer that announces
// a length and then sends the rest slowly, or never, must not hold the connection, its reader
// and the frame's buffer forever (slow-loris). An idle link between frames is not cut: a switch
// may stay quiet between its keep-alives. A var for the tests.
var frameTimeout = 30 * time.Second

// Server serves ISO 8583 over TCP.
type Server struct {
	app    App
	keys   *atmnet.ZoneKeys
	banks  domain.BankCodes
	logger *slog.Logger
	tel    *telemetry

	mu       sync.Mutex
	lis      net.Listener
	conns    map[*conn]struct{}
	stopping bool
	requests sync.WaitGroup // requests being handled, on every connection
	readers  sync.WaitGroup // connection readers
}

// NewServer returns the port over app, deciphering PIN blocks with keys and naming banks by
// banks.
func NewServer(app App, keys *atmnet.ZoneKeys, banks domain.BankCodes, logger *slog.Logger) (*Server, error) {
	tel, err := newTelemetry()
	if err != nil {
		return nil, err
	}
	return &Server{app: app, keys: keys, banks: banks, logger: logger, tel: tel, conns: map[*conn]struct{}{}}, nil
}

// Component serves on addr (CASHOUT_ISO_ADDR). The listener opens when the component starts;
// a port in use fails the process's start.
func (s *Server) Component(addr string) lifecycle.Component {
	return lifecycle.Component{
		Name: "iso8583 listener",
		Start: func(ctx context.Context) error {
			lis, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("iso: listen on %s: %w", addr, err)
			}
			return s.Serve(ctx, lis)
		},
		Stop: s.Stop,
	}
}

// Serve accepts connections on lis until Stop.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		_ = lis.Close()
		return nil
	}
	s.lis = lis
	s.mu.Unlock()
	s.logger.InfoContext(ctx, "ISO 8583 listener", "addr", lis.Addr().String())
	for {
		nc, err := lis.Accept()
		if err != nil {
			s.mu.Lock()
			stopping := s.stopping
			s.mu.Unlock()
			if stopping {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			return fmt.Errorf("iso: accept: %w", err)
		}
		c := &conn{Conn: nc, slots: make(chan struct{}, MaxInFlightPerConn)}
		s.mu.Lock()
		if s.stopping {
			s.mu.Unlock()
			_ = nc.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.readers.Add(1)
		s.mu.Unlock()
		go s.read(context.WithoutCancel(ctx), c)
	}
}

// Stop stops accepting connections and reading requests, lets the requests in progress be
// answered until ctx ends, then closes every connection. A switch resends what went
// unanswered (to another replica).
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	if s.lis != nil {
		_ = s.lis.Close()
	}
	for c := range s.conns {
		_ = c.SetReadDeadline(time.Now()) // wakes the reader; answers can still be written
	}
	s.mu.Unlock()

	drained := make(chan struct{})
	go func() {
		s.requests.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-ctx.Done():
		s.logger.WarnContext(ctx, "ISO 8583 requests still in progress at the shutdown deadline; closing their connections")
	}
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.readers.Wait()
	return nil
}

// conn is one switch connection.
type conn struct {
	net.Conn
	wmu   sync.Mutex
	slots chan struct{} // in-flight requests
}

func (c *conn) write(m *atmnet.Message) error {
	b, err := atmnet.Pack(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
	return atmnet.WriteFrame(c, b)
}

// read reads frames and handles each in its own goroutine; it returns when the connection
// ends or the server stops, once every request it started has been answered.
func (s *Server) read(ctx context.Context, c *conn) {
	defer s.readers.Done()
	var handlers sync.WaitGroup
	defer func() {
		handlers.Wait()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	remote := c.RemoteAddr().String()
	s.logger.InfoContext(ctx, "switch connected", "remote", remote)
	for {
		frame, err := atmnet.ReadFrame(&frameReader{s: s, c: c})
		s.setReadDeadline(c, time.Time{}) // idle until the next frame starts
		if err != nil {
			s.mu.Lock()
			stopping := s.stopping
			s.mu.Unlock()
			if !stopping && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.logger.WarnContext(ctx, "switch connection lost", "remote", remote, "error", err)
			} else {
				s.logger.InfoContext(ctx, "switch disconnected", "remote", remote)
			}
			return
		}
		if len(frame) == 0 {
			continue // keep-alive
		}
		c.slots <- struct{}{}
		s.mu.Lock()
		if s.stopping {
			s.mu.Unlock()
			<-c.slots
			return
		}
		s.requests.Add(1)
		s.mu.Unlock()
		handlers.Add(1)
		go func() {
			defer func() {
				<-c.slots
				handlers.Done()
				s.requests.Done()
			}()
			s.serveFrame(ctx, c, frame)
		}()
	}
}

// frameReader reads one frame from c, starting the frame's deadline (frameTimeout) when its
// first byte arrives.
type frameReader struct {
	s       *Server
	c       *conn
	started bool
}

func (r *frameReader) Read(p []byte) (int, error) {
	n, err := r.c.Read(p)
	if n > 0 && !r.started {
		r.started = true
		r.s.setReadDeadline(r.c, time.Now().Add(frameTimeout))
	}
	return n, err
}

// setReadDeadline sets c's read deadline unless the server is stopping, whose own deadline
// (now, which wakes the reader) must stand.
func (s *Server) setReadDeadline(c *conn, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping {
		_ = c.SetReadDeadline(t)
	}
}
