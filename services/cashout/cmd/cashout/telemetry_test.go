package main

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/platform/telemetry/telemetrytest"
)

func spanAttr(s tracetest.SpanStub, key string) string {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

// One server span per ISO request, with the MTI, response code and terminal; its child is the
// call to transfers, whose trace context transfers receives; no credential in any attribute.
func TestTraces(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 70000)
	atm := env.Gateway.Dial(t)
	req, res := send(t, atm, env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "withdrawal", res, atmnet.RespApproved)

	// The span ends once the answer is written: it may end a moment after the ATM has it.
	var server tracetest.SpanStub
	var found bool
	for deadline := time.Now().Add(5 * time.Second); !found && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, s := range spans.GetSpans() {
			if s.Name == "iso8583 0200" && spanAttr(s, "iso8583.rrn") == req.RRN {
				server, found = s, true
			}
		}
	}
	if !found {
		t.Fatal("no server span for the 0200")
	}
	if server.SpanKind != trace.SpanKindServer || spanAttr(server, "iso8583.mti") != "0200" ||
		spanAttr(server, "iso8583.response_code") != "00" || spanAttr(server, "iso8583.terminal_id") != "ATM00042" {
		t.Errorf("server span %s %v %v", server.Name, server.SpanKind, server.Attributes)
	}
	traceID := server.SpanContext.TraceID()
	var client *tracetest.SpanStub
	var inTrace []tracetest.SpanStub
	for _, s := range spans.GetSpans() {
		if s.SpanContext.TraceID() != traceID {
			continue
		}
		inTrace = append(inTrace, s)
		if s.SpanKind == trace.SpanKindClient && strings.HasSuffix(s.Name, "TransfersService/CollectVoucher") {
			client = &s
		}
	}
	if client == nil || client.Parent.SpanID() != server.SpanContext.SpanID() {
		t.Fatalf("no CollectVoucher client span under the server span; trace has %d spans", len(inTrace))
	}
	calls := env.Transfers.Received()
	if len(calls) == 0 || !strings.Contains(calls[0].TraceParent, traceID.String()) {
		t.Errorf("transfers received traceparent %q, want trace %s", calls[0].TraceParent, traceID)
	}

	secrets := []string{v.Number, v.PIN, strings.TrimPrefix(v.Phone, "+"), v.Phone[3:], hex.EncodeToString(req.PINBlock), strings.ToUpper(hex.EncodeToString(req.PINBlock))}
	for _, s := range inTrace {
		for _, a := range s.Attributes {
			checkNoSecret(t, "span "+s.Name+" "+string(a.Key), a.Value, secrets)
		}
	}
}

func checkNoSecret(t *testing.T, where string, v attribute.Value, secrets []string) {
	t.Helper()
	s := v.String()
	for i, secret := range secrets {
		// The PIN is 4 digits: only an exact value is a finding (it may occur inside an RRN).
		if s == secret || (i != 1 && strings.Contains(s, secret)) {
			t.Errorf("%s carries a credential: %q", where, s)
		}
	}
}

// Logs name the request (MTI, STAN, RRN, terminal, last 4 digits of the voucher) and nothing
// the recipient typed.
func TestLogsKeepCredentialsOut(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 70000)
	atm := env.Gateway.Dial(t)
	w := withdrawal(v)
	w.PIN = otherPIN(v.PIN)
	wrong, res := send(t, atm, env.Gateway.Keys.Current(), w)
	wantCode(t, "wrong PIN", res, atmnet.RespIncorrectPIN)
	right, res := send(t, atm, env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "right PIN", res, atmnet.RespApproved)

	logs := env.Gateway.Logs()
	secrets := []string{v.Number, v.Phone, v.Phone[3:], w.Phone,
		strings.ToUpper(hex.EncodeToString(wrong.PINBlock)), strings.ToUpper(hex.EncodeToString(right.PINBlock)),
		hex.EncodeToString(wrong.PINBlock), hex.EncodeToString(right.PINBlock)}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the logs carry %q", s)
		}
	}
	lines := 0
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		for k, val := range rec {
			if s, ok := val.(string); ok && (s == v.PIN || s == w.PIN) {
				t.Errorf("log field %s is a PIN: %s", k, line)
			}
		}
		if rec["msg"] == "ISO 8583 request" && rec["rrn"] == right.RRN {
			lines++
			if rec["voucher"] != "…"+v.Number[6:] || rec["response_code"] != "00" || rec["stan"] != right.STAN {
				t.Errorf("request log line %s", line)
			}
		}
	}
	if lines != 1 {
		t.Errorf("%d log lines for the approved request, want 1:\n%s", lines, logs)
	}
}

// Approvals, declines by code, reversals and latency on the metrics listener.
func TestMetrics(t *testing.T) {
	t.Parallel()
	metricsAddr := servicetest.FreeAddr(t)
	env := newEnv(t, cashouttest.Options{MetricsAddr: metricsAddr})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_ABSA, 20000)
	atm := env.Gateway.Dial(t)
	key := env.Gateway.Keys.Current()
	w := withdrawal(v)
	w.PIN = otherPIN(v.PIN)
	send(t, atm, key, w)
	first, _ := send(t, atm, key, withdrawal(v))
	do(t, atm, atmnet.NewReversal(first, "555001", time.Time{}))

	m := telemetrytest.Scrape(t, "http://"+metricsAddr+"/metrics")
	for _, want := range []struct {
		name   string
		labels map[string]string
	}{
		{"thumela_cashout_approvals_total", nil},
		{"thumela_cashout_declines_total", map[string]string{"response_code": "55"}},
		{"thumela_cashout_reversals_total", map[string]string{"outcome": "reversed"}},
		{"thumela_cashout_request_duration_seconds_count", map[string]string{"mti": "0200", "response_code": "00"}},
		{"thumela_cashout_request_duration_seconds_count", map[string]string{"mti": "0420", "response_code": "00"}},
		{"rpc_client_call_duration_seconds_count", map[string]string{"rpc_method": "thumela.transfers.v1.TransfersService/CollectVoucher"}},
	} {
		if got, ok := m.Find(want.name, want.labels); !ok || got < 1 {
			t.Errorf("%s%v = %v, %v; want at least 1", want.name, want.labels, got, ok)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", m.Text)
	}
}
