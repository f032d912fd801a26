package atmnet_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

// linkKey is the zone MAC key the stub and the clients share.
var linkKey = mustMACKey("zone-1", bytes.Repeat([]byte{0x5a}, 32))

func mustMACKey(id string, raw []byte) atmnet.MACKey {
	k, err := atmnet.NewMACKey(id, raw)
	if err != nil {
		panic(err)
	}
	return k
}

// switchStub accepts one connection, checks each request's MAC and DE 53 and hands it to
// answer, from its own goroutine.
func switchStub(t *testing.T, answer func(conn net.Conn, req *atmnet.Message)) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lis.Close() })
	go func() {
		conn, err := lis.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			frame, err := atmnet.ReadFrame(conn)
			if err != nil {
				return
			}
			req, err := atmnet.Unpack(frame)
			if err != nil {
				t.Errorf("stub: %v", err)
				return
			}
			if err := atmnet.VerifyMAC(frame, req, linkKey); err != nil || req.PINKeyID != linkKey.ID() {
				t.Errorf("stub: request %s: MAC %v, DE 53 %q", req.MTI, err, req.PINKeyID)
			}
			answer(conn, req)
		}
	}()
	return lis.Addr().String()
}

// send answers m MAC'd under the link's key.
func send(conn net.Conn, m *atmnet.Message) {
	sendFrame(conn, m, &linkKey)
}

// sendFrame answers m MAC'd under key, or without a MAC when key is nil.
func sendFrame(conn net.Conn, m *atmnet.Message, key *atmnet.MACKey) {
	var b []byte
	var err error
	if key != nil {
		b, err = atmnet.PackMAC(m, *key)
	} else {
		b, err = atmnet.Pack(m)
	}
	if err != nil {
		panic(err)
	}
	_ = atmnet.WriteFrame(conn, b)
}

// Answers come back in any order and reach the request they answer.
func TestClientMatchesAnswersOutOfOrder(t *testing.T) {
	t.Parallel()
	const n = 20
	var mu sync.Mutex
	var held []*atmnet.Message
	addr := switchStub(t, func(conn net.Conn, req *atmnet.Message) {
		mu.Lock()
		defer mu.Unlock()
		held = append(held, req)
		if len(held) < n {
			return
		}
		for i := len(held) - 1; i >= 0; i-- { // the last first
			res := held[i].Response("00")
			res.AuthCode = held[i].STAN
			send(conn, res)
		}
	})
	c, err := atmnet.Dial(t.Context(), addr, linkKey)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			stan := fmt.Sprintf("%06d", i)
			res, err := c.Do(t.Context(), atmnet.NewEcho(stan, time.Time{}))
			if err != nil {
				t.Errorf("echo %s: %v", stan, err)
				return
			}
			if res.MTI != "0810" || res.STAN != stan || res.AuthCode != stan {
				t.Errorf("echo %s got %+v", stan, res)
			}
		})
	}
	wg.Wait()
}

func TestClientTimeoutAndClose(t *testing.T) {
	t.Parallel()
	addr := switchStub(t, func(net.Conn, *atmnet.Message) {}) // never answers
	c, err := atmnet.Dial(t.Context(), addr, linkKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Do(ctx, atmnet.NewEcho("000001", time.Time{})); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unanswered: %v, want DeadlineExceeded", err)
	}

	// The same references twice at once cannot be told apart.
	errs := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := c.Do(ctx, atmnet.NewEcho("000002", time.Time{}))
		errs <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := c.Do(t.Context(), atmnet.NewEcho("000002", time.Time{})); !errors.Is(err, atmnet.ErrInFlight) {
		t.Errorf("same references in flight: %v, want ErrInFlight", err)
	}

	c.Close()
	if err := <-errs; !errors.Is(err, atmnet.ErrClosed) {
		t.Errorf("waiting when closed: %v, want ErrClosed", err)
	}
	if _, err := c.Do(t.Context(), atmnet.NewEcho("000003", time.Time{})); !errors.Is(err, atmnet.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if _, err := c.Do(t.Context(), &atmnet.Message{MTI: "0210"}); !errors.Is(err, atmnet.ErrFormat) {
		t.Errorf("sending a response: %v, want ErrFormat", err)
	}
}

// An answer without a MAC, or whose MAC does not verify under the link's key, is returned with
// an error: it is there to be seen, not acted on.
func TestClientChecksTheAnswersMAC(t *testing.T) {
	t.Parallel()
	other := mustMACKey("zone-1", bytes.Repeat([]byte{0xa5}, 32))
	addr := switchStub(t, func(conn net.Conn, req *atmnet.Message) {
		res := req.Response("00")
		switch req.STAN {
		case "000001":
			send(conn, res)
		case "000002":
			sendFrame(conn, res, nil)
		case "000003":
			sendFrame(conn, res, &other)
		case "000004":
			// Altered on the way: the response code rewritten after the MAC.
			b, _ := atmnet.PackMAC(req.Response("55"), linkKey)
			b = bytes.Replace(b, []byte("55"), []byte("00"), 1)
			_ = atmnet.WriteFrame(conn, b)
		}
	})
	c, err := atmnet.Dial(t.Context(), addr, linkKey)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for stan, want := range map[string]error{"000001": nil, "000002": atmnet.ErrMACMissing, "000003": atmnet.ErrMACInvalid, "000004": atmnet.ErrMACInvalid} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		res, err := c.Do(ctx, atmnet.NewEcho(stan, time.Time{}))
		cancel()
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("answer %s: %v, want %v", stan, err, want)
		}
		if res == nil || res.STAN != stan {
			t.Errorf("answer %s: %+v, want the answer itself", stan, res)
		}
	}
}
