package iso

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

type noApp struct{}

func (noApp) Withdraw(context.Context, domain.Withdrawal) (domain.Collection, error) {
	return domain.Collection{}, domain.ErrUnsupported
}
func (noApp) Reverse(context.Context, domain.Reversal) (domain.ReversalResult, error) {
	return domain.ReversalResult{}, nil
}

// startTestServer serves the port over noApp within cfg until the test ends, and returns it
// and its address.
func startTestServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, err := NewServer(noApp{}, testZones(t), nil, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s, serveUntilCleanup(t, s)
}

// serveUntilCleanup serves s on a loopback port until the test ends, and returns its address.
func serveUntilCleanup(t *testing.T, s *Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(context.Background(), lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	})
	return lis.Addr().String()
}

func echo(t *testing.T, c net.Conn) string {
	t.Helper()
	b, err := echoFrame(t, "000001")
	if err != nil {
		t.Fatal(err)
	}
	if err := atmnet.WriteFrame(c, b); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	f, err := atmnet.ReadFrame(c)
	if err != nil {
		t.Fatalf("no answer to the echo: %v", err)
	}
	m, err := atmnet.Unpack(f)
	if err != nil {
		t.Fatal(err)
	}
	return m.ResponseCode
}

// A peer that announces a frame and never completes it (slow-loris) loses the connection after
// frameTimeout; a link that is merely quiet between frames (for less than the idle timeout)
// keeps it.
func TestAnUnfinishedFrameDoesNotHoldTheConnection(t *testing.T) {
	old := frameTimeout
	frameTimeout = 300 * time.Millisecond
	t.Cleanup(func() { frameTimeout = old })
	_, addr := startTestServer(t, Config{})

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	var header [2]byte
	binary.BigEndian.PutUint16(header[:], atmnet.MaxFrameSize)
	if _, err := slow.Write(append(header[:], "0200"...)); err != nil {
		t.Fatal(err)
	}
	_ = slow.SetReadDeadline(time.Now().Add(3 * time.Second))
	var b [1]byte
	if _, err := slow.Read(b[:]); !errors.Is(err, io.EOF) {
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			t.Fatalf("the gateway still holds a connection whose frame never finished, after %v", 10*frameTimeout)
		}
		if err == nil {
			t.Fatal("the gateway answered an unfinished frame")
		}
	}

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(3 * frameTimeout)
	if code := echo(t, idle); code != atmnet.RespApproved {
		t.Fatalf("echo on an idle link: %s", code)
	}
	// And the deadline of one frame does not carry over to the next.
	time.Sleep(3 * frameTimeout)
	if code := echo(t, idle); code != atmnet.RespApproved {
		t.Fatalf("second echo on an idle link: %s", code)
	}
}
