package iso

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// tryEcho sends an echo on c and returns its response code, or why there was none.
func tryEcho(c net.Conn, stan string) (string, error) {
	b, err := atmnet.PackMAC(zoneEcho(stan), linkZone.MAC)
	if err != nil {
		return "", err
	}
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	defer func() { _ = c.SetDeadline(time.Time{}) }()
	if err := atmnet.WriteFrame(c, b); err != nil {
		return "", err
	}
	f, err := atmnet.ReadFrame(c)
	if err != nil {
		return "", err
	}
	m, err := atmnet.Unpack(f)
	if err != nil {
		return "", err
	}
	return m.ResponseCode, nil
}

// closedWithin reports whether the gateway closed c within d (c reads end of stream or a
// reset); it fails the test if the gateway sent anything.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	defer func() { _ = c.SetReadDeadline(time.Time{}) }()
	var b [1]byte
	n, err := c.Read(b[:])
	if n > 0 {
		t.Fatalf("the gateway sent %q unasked", b[:n])
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return false
	}
	return err != nil
}

// Past MaxConnections a new connection is closed at once and the open ones carry on; a place
// freed is taken again; Stop closes the rest and leaves no goroutine behind.
func TestConnectionsPastTheCapAreClosed(t *testing.T) {
	baseline := runtime.NumGoroutine()
	s, addr := startTestServer(t, Config{MaxConnections: 2})

	a, b := dial(t, addr), dial(t, addr)
	for i, c := range []net.Conn{a, b} {
		if code, err := tryEcho(c, "000001"); err != nil || code != atmnet.RespApproved {
			t.Fatalf("echo on connection %d within the cap: %q, %v", i+1, code, err)
		}
	}
	for i := range 3 {
		over := dial(t, addr)
		if !closedWithin(t, over, 2*time.Second) {
			t.Fatalf("connection %d past the cap of 2 is still open after 2 s", i+1)
		}
	}
	for i, c := range []net.Conn{a, b} {
		if code, err := tryEcho(c, "000002"); err != nil || code != atmnet.RespApproved {
			t.Fatalf("echo on connection %d after the refusals: %q, %v", i+1, code, err)
		}
	}

	// A switch that drops a link gets its place back once the gateway has seen it go.
	a.Close()
	var again net.Conn
	for deadline := time.Now().Add(3 * time.Second); ; {
		c := dial(t, addr)
		if code, err := tryEcho(c, "000003"); err == nil && code == atmnet.RespApproved {
			again = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no connection accepted after one of the two was closed")
		}
		time.Sleep(20 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []net.Conn{b, again} {
		if !closedWithin(t, c, 2*time.Second) {
			t.Error("a connection is still open after Stop")
		}
	}
	var n int
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n = runtime.NumGoroutine(); n <= baseline {
			return
		}
	}
	buf := make([]byte, 1<<16)
	t.Errorf("%d goroutines after Stop, %d before the server started:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
}

// A connection on which no frame arrives for the idle timeout is closed; one that carries
// requests, or only zero-length keep-alives, more often than that is kept.
func TestAnIdleConnectionIsClosed(t *testing.T) {
	const idleTimeout = 500 * time.Millisecond
	_, addr := startTestServer(t, Config{IdleTimeout: idleTimeout})

	idle, active, keptAlive := dial(t, addr), dial(t, addr), dial(t, addr)
	start := time.Now()
	if closedWithin(t, idle, idleTimeout/2) {
		t.Fatalf("an idle connection was closed after %v, before the idle timeout (%v)", time.Since(start), idleTimeout)
	}
	for i := 0; time.Since(start) < 4*idleTimeout; i++ {
		if code, err := tryEcho(active, "000001"); err != nil || code != atmnet.RespApproved {
			t.Fatalf("echo %d on the active connection after %v: %q, %v", i+1, time.Since(start), code, err)
		}
		if err := atmnet.WriteFrame(keptAlive, nil); err != nil {
			t.Fatalf("keep-alive %d after %v: %v", i+1, time.Since(start), err)
		}
		time.Sleep(idleTimeout / 5)
	}
	if !closedWithin(t, idle, time.Second) {
		t.Fatalf("a connection idle for %v is still open (idle timeout %v)", time.Since(start), idleTimeout)
	}
	if code, err := tryEcho(keptAlive, "000002"); err != nil || code != atmnet.RespApproved {
		t.Fatalf("echo on the connection kept alive by empty frames: %q, %v", code, err)
	}
	// The active link, now quiet, goes the same way.
	if !closedWithin(t, active, 3*idleTimeout) {
		t.Fatalf("the active connection, quiet for %v, is still open", 3*idleTimeout)
	}
}
