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
	"os"
	"sync"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/listen"
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
// and the frame's buffer forever (slow-loris). Between frames Config.IdleTimeout applies
// instead. A var for the tests.
var frameTimeout = 30 * time.Second

// refusedLogInterval spaces the log lines about connections refused at the cap: one line, with
// the count since the last, at most this often, so that a flood of connections cannot flood the
// logs (the metric counts every one).
const refusedLogInterval = 10 * time.Second

// Config is the port's limits and clock (docs/cashout.md, configuration). A zero field takes
// its default.
type Config struct {
	// MaxConnections caps the switch connections open at once (CASHOUT_ISO_MAX_CONNECTIONS).
	// A connection past it is closed as soon as it is accepted; the open ones are unaffected.
	MaxConnections int
	// IdleTimeout closes a connection on which no frame (a request, an echo or a zero-length
	// keep-alive) has started for that long (CASHOUT_ISO_IDLE_TIMEOUT). It must be longer than
	// the switch's echo (0800) interval.
	IdleTimeout time.Duration
	// TransmissionSkew is how far a withdrawal's transmission date and time (DE 7) may be
	// from the gateway's clock, either way (CASHOUT_TRANSMISSION_SKEW).
	TransmissionSkew time.Duration
	// Now is the gateway's clock; nil means time.Now.
	Now func() time.Time
}

// Defaults for the zero Config fields.
const (
	// DefaultMaxConnections: a switch keeps a few links per bank to each replica; 128 is
	// several times what five banks need, and bounds what idle connections can hold (a reader
	// goroutine and its buffers each).
	DefaultMaxConnections = 128
	// DefaultIdleTimeout: switches echo (0800) every 30 to 120 s on a quiet link; five minutes
	// outlasts two or three missed echoes before a dead or abandoned link is cut.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultTransmissionSkew: an ATM gives up on a withdrawal within a minute or so; a 0200
	// sent more than five minutes ago (or from a clock five minutes off) has no one waiting.
	DefaultTransmissionSkew = 5 * time.Minute
)

func (c Config) withDefaults() Config {
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.TransmissionSkew <= 0 {
		c.TransmissionSkew = DefaultTransmissionSkew
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Server serves ISO 8583 over TCP.
type Server struct {
	app    App
	zones  *atmnet.Zones
	banks  domain.BankCodes
	cfg    Config
	logger *slog.Logger
	tel    *telemetry

	mu       sync.Mutex
	lis      net.Listener
	conns    map[*conn]struct{}
	stopping bool
	requests sync.WaitGroup // requests being handled, on every connection
	readers  sync.WaitGroup // connection readers
	// Connections refused at the cap since the last log line about them, and when that was.
	refused         int
	refusedLoggedAt time.Time
}

// NewServer returns the port over app, checking MACs and deciphering PIN blocks with the zone
// keys zones, naming banks by banks, within cfg's limits.
func NewServer(app App, zones *atmnet.Zones, banks domain.BankCodes, cfg Config, logger *slog.Logger) (*Server, error) {
	if zones == nil {
		// Without keys no request can be authenticated: refuse to start rather than serve a
		// link whose messages nobody checks.
		return nil, errors.New("iso: no zone keys")
	}
	tel, err := newTelemetry()
	if err != nil {
		return nil, err
	}
	return &Server{app: app, zones: zones, banks: banks, cfg: cfg.withDefaults(), logger: logger, tel: tel,
		conns: map[*conn]struct{}{}}, nil
}

// Component serves on addr (CASHOUT_ISO_ADDR). The listener opens when the component starts;
// a port in use fails the process's start.
func (s *Server) Component(addr string) lifecycle.Component {
	return lifecycle.Component{
		Name: "iso8583 listener",
		Start: func(ctx context.Context) error {
			lis, err := listen.TCP(addr)
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
	s.logger.InfoContext(ctx, "ISO 8583 listener", "addr", lis.Addr().String(),
		"max_connections", s.cfg.MaxConnections, "idle_timeout", s.cfg.IdleTimeout.String())
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
		s.mu.Lock()
		if s.stopping {
			s.mu.Unlock()
			_ = nc.Close()
			return nil
		}
		if len(s.conns) >= s.cfg.MaxConnections {
			s.refuse(ctx, nc) // unlocks s.mu
			continue
		}
		c := &conn{Conn: nc, slots: make(chan struct{}, MaxInFlightPerConn)}
		s.conns[c] = struct{}{}
		s.readers.Add(1)
		s.mu.Unlock()
		s.tel.recordConnection(ctx, 1)
		go s.read(context.WithoutCancel(ctx), c)
	}
}

// refuse closes nc, a connection past the cap, at once: no goroutine, no buffer. It counts it,
// and logs it at most once per refusedLogInterval. s.mu is held and refuse unlocks it.
func (s *Server) refuse(ctx context.Context, nc net.Conn) {
	s.refused++
	now := time.Now()
	refused := 0
	if now.Sub(s.refusedLoggedAt) >= refusedLogInterval {
		refused, s.refused, s.refusedLoggedAt = s.refused, 0, now
	}
	s.mu.Unlock()
	_ = nc.Close()
	s.tel.recordConnectionRefused(ctx)
	if refused > 0 {
		s.logger.WarnContext(ctx, "ISO 8583 connection refused: too many connections",
			"remote", nc.RemoteAddr().String(), "max_connections", s.cfg.MaxConnections,
			"refused_since_last_line", refused)
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

// write sends m, MAC'd under key; with no key (the request named no zone keys the gateway
// has, or could not be read) it goes without a MAC, which the switch must not act on: such an
// answer is always a refusal.
func (c *conn) write(m *atmnet.Message, key *atmnet.MACKey) error {
	var b []byte
	var err error
	if key != nil {
		b, err = atmnet.PackMAC(m, *key)
	} else {
		b, err = atmnet.Pack(m)
	}
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
		s.tel.recordConnection(ctx, -1)
	}()
	remote := c.RemoteAddr().String()
	s.logger.InfoContext(ctx, "switch connected", "remote", remote)
	for {
		// The next frame must start within the idle timeout; once it has, frameReader gives it
		// frameTimeout to arrive whole.
		s.setReadDeadline(c, time.Now().Add(s.cfg.IdleTimeout))
		fr := &frameReader{s: s, c: c}
		frame, err := atmnet.ReadFrame(fr)
		if err != nil {
			s.mu.Lock()
			stopping := s.stopping
			s.mu.Unlock()
			switch {
			case stopping || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
				s.logger.InfoContext(ctx, "switch disconnected", "remote", remote)
			case !fr.started && errors.Is(err, os.ErrDeadlineExceeded):
				s.logger.InfoContext(ctx, "switch connection idle: closed", "remote", remote,
					"idle_timeout", s.cfg.IdleTimeout.String())
			default:
				s.logger.WarnContext(ctx, "switch connection lost", "remote", remote, "error", err)
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
