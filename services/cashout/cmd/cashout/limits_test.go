package main

import (
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/platform/telemetry/telemetrytest"
)

// A 0200 whose transmission date and time (DE 7) is missing, malformed, or further than
// CASHOUT_TRANSMISSION_SKEW (5 min) from the gateway's clock, is refused with 30 before
// transfers sees it: the voucher is untouched and no attempt is counted. Within the skew it is
// served; a reversal is served however late its DE 7.
func TestTransmissionTimeOutOfRange(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
	atm := env.Gateway.Dial(t)
	key := env.Gateway.Keys.Current()

	var refused []*atmnet.Message
	for _, tc := range []struct {
		name string
		at   time.Duration // DE 7, from now
		edit func(m *atmnet.Message)
	}{
		{name: "a replay of an hour-old request", at: -time.Hour},
		{name: "a switch clock 6 minutes behind", at: -6 * time.Minute},
		{name: "a switch clock 10 minutes ahead", at: 10 * time.Minute},
		{name: "last year's request", at: -200 * 24 * time.Hour},
		{name: "no DE 7", edit: func(m *atmnet.Message) { m.TransmissionTime = "" }},
		{name: "a malformed DE 7", edit: func(m *atmnet.Message) { m.TransmissionTime = "1332250000" }},
	} {
		for _, pin := range []string{v.PIN, otherPIN(v.PIN)} { // the right PIN, and a wrong one that must cost nothing
			w := withdrawal(v)
			w.PIN = pin
			w.At = time.Now().Add(tc.at)
			req, err := atmnet.NewWithdrawal(w, key)
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(req)
			}
			res := do(t, atm, req)
			wantCode(t, tc.name, res, atmnet.RespFormatError)
			if res.AuthCode != "" || res.TransmissionTime != req.TransmissionTime || res.STAN != req.STAN {
				t.Errorf("%s: answer %+v", tc.name, res)
			}
			refused = append(refused, req)
		}
	}
	if calls := env.Transfers.Received(); len(calls) != 0 {
		t.Fatalf("transfers was called %d times for requests refused on DE 7", len(calls))
	}
	if got := env.Transfers.State(v.Number); got != cashouttest.Awaiting {
		t.Fatalf("voucher %s after the refused requests, want awaiting collection", got)
	}

	// Each refusal is logged with its reason, and the reason is DE 7's: never the voucher.
	reasons := 0
	for line := range strings.SplitSeq(strings.TrimSpace(env.Gateway.Logs()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] != "ISO 8583 request" || rec["response_code"] != atmnet.RespFormatError {
			continue
		}
		reason, _ := rec["reason"].(string)
		if !strings.Contains(reason, "DE 7") {
			t.Errorf("refusal logged without DE 7 in its reason: %s", line)
		}
		reasons++
	}
	if reasons != len(refused) {
		t.Errorf("%d refusals logged, want %d", reasons, len(refused))
	}
	if logs := env.Gateway.Logs(); strings.Contains(logs, v.Number) || strings.Contains(logs, v.Phone[3:]) {
		t.Error("the logs carry the voucher number or the phone number")
	}

	// Within the skew (a switch clock 2 minutes behind): served, and the five attempts are
	// all still there (a wrong PIN now is the first).
	w := withdrawal(v)
	w.PIN = otherPIN(v.PIN)
	w.At = time.Now().Add(-2 * time.Minute)
	_, res := send(t, atm, key, w)
	wantCode(t, "a wrong PIN within the skew", res, atmnet.RespIncorrectPIN)
	if calls := env.Transfers.Received(); len(calls) != 1 || calls[0].Collect == nil {
		t.Fatalf("transfers received %+v, want the one request within the skew", calls)
	}
	w = withdrawal(v)
	w.At = time.Now().Add(2 * time.Minute)
	first, res := send(t, atm, key, w)
	wantCode(t, "within the skew", res, atmnet.RespApproved)
	if got := env.Transfers.State(v.Number); got != cashouttest.Collected {
		t.Fatalf("voucher %s, want collected", got)
	}

	// A reversal may come late (the switch repeats it until it is acknowledged): it is applied
	// whatever its DE 7.
	late := atmnet.NewReversal(first, "888001", time.Now().Add(-3*time.Hour))
	wantCode(t, "a reversal three hours late", do(t, atm, late), atmnet.RespApproved)
	if got := env.Transfers.State(v.Number); got != cashouttest.Awaiting {
		t.Errorf("voucher %s after the late reversal, want awaiting collection", got)
	}
}

// The listener's limits come from the environment: past CASHOUT_ISO_MAX_CONNECTIONS a
// connection is closed at once and counted, the open ones carry on; a connection idle for
// CASHOUT_ISO_IDLE_TIMEOUT is closed.
func TestConnectionLimits(t *testing.T) {
	t.Parallel()
	metricsAddr := servicetest.FreeAddr(t)
	const idle = time.Second
	env := newEnv(t, cashouttest.Options{ISOMaxConnections: 2, ISOIdleTimeout: idle, MetricsAddr: metricsAddr})

	// Two links (the start-up probe's connection may still hold a place for a moment).
	echoOn := func(c net.Conn) bool {
		b, _ := atmnet.Pack(atmnet.NewEcho("000001", time.Time{}))
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		defer func() { _ = c.SetDeadline(time.Time{}) }()
		if atmnet.WriteFrame(c, b) != nil {
			return false
		}
		f, err := atmnet.ReadFrame(c)
		return err == nil && len(f) > 0
	}
	var links []net.Conn
	for deadline := time.Now().Add(5 * time.Second); len(links) < 2; {
		c, err := net.Dial("tcp", env.Gateway.ISOAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if echoOn(c) {
			links = append(links, c)
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d links accepted under a cap of 2", len(links))
		}
		time.Sleep(20 * time.Millisecond)
	}
	opened := time.Now()

	over, err := net.Dial("tcp", env.Gateway.ISOAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	_ = over.SetReadDeadline(time.Now().Add(idle / 2))
	var b [1]byte
	if _, err := over.Read(b[:]); err == nil || isTimeout(err) {
		t.Fatalf("a third connection under a cap of 2: read %v, want it closed at once", err)
	}
	if !echoOn(links[0]) || !echoOn(links[1]) {
		t.Fatal("a link within the cap stopped answering after a refusal")
	}

	m := telemetrytest.Scrape(t, "http://"+metricsAddr+"/metrics")
	if got, ok := m.Find("thumela_cashout_connections_refused_total", nil); !ok || got < 1 {
		t.Errorf("thumela_cashout_connections_refused_total = %v, %v; want at least 1\n%s", got, ok, m.Text)
	}
	// The process's other tests' gateways count in the same gauge.
	if got, ok := m.Find("thumela_cashout_connections", nil); !ok || got < 2 {
		t.Errorf("thumela_cashout_connections = %v, %v; want at least these 2\n%s", got, ok, m.Text)
	}
	if !strings.Contains(env.Gateway.Logs(), `"msg":"ISO 8583 connection refused: too many connections"`) {
		t.Error("no log line for the refused connection")
	}

	// Left quiet, both links are closed after the idle timeout, not before.
	for i, c := range links {
		_ = c.SetReadDeadline(time.Now().Add(3 * idle))
		if _, err := c.Read(b[:]); err == nil || isTimeout(err) {
			t.Fatalf("link %d, quiet for %v: read %v, want it closed (idle timeout %v)", i+1, time.Since(opened), err, idle)
		}
	}
	if took := time.Since(opened); took < idle*8/10 {
		t.Errorf("the idle links were closed after %v, before the idle timeout (%v)", took, idle)
	}
	if !strings.Contains(env.Gateway.Logs(), `"msg":"switch connection idle: closed"`) {
		t.Error("no log line for the idle connection")
	}
}

func isTimeout(err error) bool {
	ne, ok := errors.AsType[net.Error](err)
	return ok && ne.Timeout()
}
