package tracechain

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// Span names and scopes the chain is made of (otelconnect and otelgrpc name spans after the
// full method without its leading slash).
const (
	bffCreateTransfer       = "thumela.bff.v1.TransfersService/CreateTransfer"
	transfersCreateTransfer = "thumela.transfers.v1.TransfersService/CreateTransfer"
	paymentMethodsGet       = "thumela.paymentmethods.v1.PaymentMethodsService/GetPaymentMethod"
	paymentMethodsCharge    = "thumela.paymentmethods.v1.PaymentMethodsService/Charge"
	outboxPublish           = "outbox.publish"
	streamDeliver           = "bff.stream.deliver"
	// workerStepPrefix + step names the transfers worker's step spans (docs: metrics.md).
	workerStepPrefix = "transfers.worker."
	workerCharge     = workerStepPrefix + "charge"
	otelpgxScope     = "github.com/exaring/otelpgx"
)

// TestOneTracePerTransfer runs the whole stack (bin/ and web/dist, a throw-away database and
// NATS) with every process exporting spans to an in-test collector, makes a transfer as the
// browser does (with a traceparent of its own), waits on the live stream for the final status,
// and checks that the browser's request, the services, PostgreSQL, the outbox, NATS, the
// worker's steps and the stream's delivery are one trace with the expected parent links.
func TestOneTracePerTransfer(t *testing.T) {
	// The collector outlives the stack (cleanups run last-in first-out): the processes flush
	// their last spans on the way out.
	var collector Collector
	otlp := httptest.NewServer(&collector)
	t.Cleanup(otlp.Close)

	st := stacktest.Start(t, stacktest.Options{Name: "tracechain", ExtraEnv: []string{
		"OTEL_SDK_DISABLED=false",
		"OTEL_TRACES_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + otlp.URL + "/v1/traces",
		"OTEL_BSP_SCHEDULE_DELAY=100", // ms: spans arrive within a moment of ending
		"OTEL_TRACES_SAMPLER=parentbased_always_on",
		// Each process keeps its own service.name whatever the caller's environment says.
		"OTEL_SERVICE_NAME=",
		"OTEL_RESOURCE_ATTRIBUTES=",
	}})
	// ctx ends with the test's time budget or, with the cause, when the stack stops early (a
	// child that dies ends the stack): the test's waits end then with the reason.
	ctx := st.Context(t, 5*time.Minute)

	// A signed-up, verified user with the sandbox's approving card, as the browser tests make.
	user := st.NewUser(t, ctx)
	t.Cleanup(user.CloseStreams)

	// Tap NATS to learn each status event's message id and the trace context in its headers.
	tap := tapStatusEvents(t, st.Ready, user.ID)

	// The live stream, open (its first message, a heartbeat, has arrived) before the transfer.
	updates := watchTransfers(t, ctx, user)

	// The browser's request span: the BFF must make its server span a child of it.
	traceID, browserSpanID := randomHex(16), randomHex(8)
	callCtx, call := connect.NewClientContext(ctx)
	call.RequestHeader().Set("traceparent", "00-"+traceID+"-"+browserSpanID+"-01")
	// "Confirm it's you" first (untraced): the recipient is new to this user.
	if err := user.StepUp(ctx); err != nil {
		t.Fatalf("%v%s", err, stacktest.Why(ctx))
	}
	created, err := user.Transfers.CreateTransfer(callCtx, bench.TransferRequest(user))
	if err != nil {
		t.Fatalf("CreateTransfer: %v%s\n%s", err, stacktest.Why(ctx), st.Tail(80))
	}
	transferID := created.GetTransfer().GetId()
	t.Logf("trace %s, browser span %s, transfer %s", traceID, browserSpanID, transferID)

	final := waitFinalStatus(t, ctx, updates, transferID, st)
	if final != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
		t.Fatalf("the transfer ended %v, want COMPLETED (the sandbox approves 4242…)\n%s", final, st.Tail(80))
	}

	// Spans end and are exported in batches after the answers the test has seen, so wait until
	// the whole chain is there; a chain that never completes fails with what did arrive.
	want := chainWant{
		traceID:       traceID,
		browserSpanID: browserSpanID,
		transferID:    transferID,
		events:        tap,
	}
	var problems []string
	stacktest.WaitUntil(30*time.Second, 200*time.Millisecond, func() bool {
		problems = checkChain(collector.Spans(), want)
		return len(problems) == 0
	})
	spans := collector.Spans()
	if len(problems) > 0 {
		t.Errorf("the transfer's trace is not one chain:\n  - %s", strings.Join(problems, "\n  - "))
		t.Logf("trace %s as collected (service, kind, name, span ← parent):\n%s", traceID, renderTrace(spans, traceID))
		t.Logf("spans of interest in other traces:\n%s", renderElsewhere(spans, traceID))
		t.Logf("status events on NATS:\n%s", tap.describe())
		return
	}
	t.Logf("trace %s:\n%s", traceID, renderTrace(spans, traceID))
}

// chainWant is what the chain is checked against.
type chainWant struct {
	traceID, browserSpanID, transferID string
	events                             *statusTap
}

// checkChain returns what is missing or mislinked in the transfer's trace; nil when the chain
// is whole.
func checkChain(all []Span, w chainWant) []string {
	tr := newTrace(all, w.traceID)
	var problems []string
	miss := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// Browser → BFF: the BFF trusts the browser's traceparent.
	bffServer := tr.one(func(s Span) bool {
		return s.Service == "bff" && s.Kind == "server" && s.Name == bffCreateTransfer && s.ParentID == w.browserSpanID
	})
	if bffServer == nil {
		miss("bff server span %q with the browser's span %s as parent%s", bffCreateTransfer, w.browserSpanID, elsewhere(all, w.traceID, bffCreateTransfer))
		return problems // nothing below can be placed without it
	}

	// BFF → transfers over gRPC metadata, and transfers' call to paymentmethods (the sender's
	// first use of the card: its ownership is then cached). There is no fees hop to require:
	// transfers prices from the fee schedule fees publishes, and asks fees' Quote only until
	// the schedule has arrived (docs/decisions.md, issue 16), which a test cannot time.
	transfersServer := tr.rpc(&problems, bffServer, "bff", "transfers", transfersCreateTransfer)
	if transfersServer == nil {
		return problems
	}
	tr.rpc(&problems, transfersServer, "transfers", "paymentmethods", paymentMethodsGet)

	// PostgreSQL, traced by otelpgx inside the create.
	if tr.one(func(s Span) bool {
		return s.Service == "transfers" && s.Scope == otelpgxScope && tr.descends(s, transfersServer.SpanID)
	}) == nil {
		miss("no PostgreSQL (otelpgx) span of transfers under its CreateTransfer server span")
	}

	// The pending status, written in the create's transaction: outbox relay → NATS → stream.
	tr.event(&problems, w.events, w.transferID, transfersv1.TransferStatus_TRANSFER_STATUS_PENDING, "the transfers CreateTransfer server span",
		func(p *Span) bool { return tr.descends(*p, transfersServer.SpanID) })

	// The worker's charge step joins the trace through the context saved with the transfer,
	// and calls paymentmethods' Charge under it.
	charge := tr.one(func(s Span) bool {
		return s.Service == "transfers" && s.Name == workerCharge && tr.descends(s, transfersServer.SpanID)
	})
	if charge == nil {
		miss("worker step span %q of transfers descending from its CreateTransfer server span%s", workerCharge, elsewhere(all, w.traceID, workerCharge))
	} else {
		tr.rpc(&problems, charge, "transfers", "paymentmethods", paymentMethodsCharge)
	}

	// Processing (the claim) and the final status are written during worker steps, which
	// carry the creating request's trace: outbox relay → NATS → stream.
	inWorkerStep := func(p *Span) bool {
		step := tr.ancestor(*p, func(a Span) bool {
			return a.Service == "transfers" && strings.HasPrefix(a.Name, workerStepPrefix)
		})
		return step != nil && tr.descends(*step, transfersServer.SpanID)
	}
	for _, status := range []transfersv1.TransferStatus{
		transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING,
		transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
	} {
		tr.event(&problems, w.events, w.transferID, status,
			"a "+workerStepPrefix+"* span under the transfers CreateTransfer server span", inWorkerStep)
	}
	return problems
}

// trace indexes the spans of one trace.
type trace struct {
	id    string
	all   []Span // every span collected, for saying where a missing one went
	spans []Span
	byID  map[string]Span
}

func newTrace(all []Span, id string) *trace {
	tr := &trace{id: id, all: all, byID: map[string]Span{}}
	for _, s := range all {
		if s.TraceID == id {
			tr.spans = append(tr.spans, s)
			tr.byID[s.SpanID] = s
		}
	}
	return tr
}

func (tr *trace) one(match func(Span) bool) *Span {
	for _, s := range tr.spans {
		if match(s) {
			return &s
		}
	}
	return nil
}

// ancestor returns the nearest proper ancestor of s that matches, walking parent links within
// the trace.
func (tr *trace) ancestor(s Span, match func(Span) bool) *Span {
	for seen := 0; s.ParentID != "" && seen < len(tr.spans); seen++ {
		p, ok := tr.byID[s.ParentID]
		if !ok {
			return nil
		}
		if match(p) {
			return &p
		}
		s = p
	}
	return nil
}

func (tr *trace) descends(s Span, ancestorID string) bool {
	return tr.ancestor(s, func(a Span) bool { return a.SpanID == ancestorID }) != nil
}

// rpc checks one gRPC call made under caller: a client span of from below caller, and the
// server span of to whose parent is exactly that client span (the trace context crossed in
// the call's metadata). It returns the server span.
func (tr *trace) rpc(problems *[]string, caller *Span, from, to, method string) *Span {
	var clients []Span
	for _, s := range tr.spans {
		if s.Service == from && s.Kind == "client" && s.Name == method && tr.descends(s, caller.SpanID) {
			clients = append(clients, s)
		}
	}
	if len(clients) == 0 {
		*problems = append(*problems, fmt.Sprintf("%s client span %q under %s %q (%s)", from, method, caller.Service, caller.Name, caller.SpanID))
		return nil
	}
	for _, c := range clients {
		if srv := tr.one(func(s Span) bool {
			return s.Service == to && s.Kind == "server" && s.Name == method && s.ParentID == c.SpanID
		}); srv != nil {
			return srv
		}
	}
	*problems = append(*problems, fmt.Sprintf("%s server span %q whose parent is %s's client span %s", to, method, from, clients[0].SpanID))
	return nil
}

// event checks the way of one status event: its NATS message carries the trace, the outbox
// relay's publish span (found by the message id) sits where placed says, and the BFF's
// delivery to the stream is that publish span's child.
func (tr *trace) event(problems *[]string, tap *statusTap, transferID string, status transfersv1.TransferStatus, where string, placed func(*Span) bool) {
	miss := func(format string, args ...any) { *problems = append(*problems, fmt.Sprintf(format, args...)) }
	ev, ok := tap.find(transferID, status)
	if !ok {
		miss("no %v status event for the transfer seen on NATS", status)
		return
	}
	if got := traceIDOf(ev.traceparent); got != tr.id {
		miss("the %v status event's NATS traceparent %q is not of the trace", status, ev.traceparent)
	}
	publish := tr.one(func(s Span) bool {
		return s.Service == "transfers" && s.Name == outboxPublish && s.Attrs["messaging.message.id"] == ev.msgID
	})
	if publish == nil {
		where := ": none was exported at all"
		for _, s := range tr.all {
			if s.Name == outboxPublish && s.Attrs["messaging.message.id"] == ev.msgID {
				where = fmt.Sprintf(": it is in trace %s (parent %q)", s.TraceID, s.ParentID)
			}
		}
		miss("%s span of the %v status event (message %s) in the trace%s", outboxPublish, status, ev.msgID, where)
		return
	}
	if !placed(publish) {
		miss("the %v status event's %s span (%s, parent %s) does not descend from %s", status, outboxPublish, publish.SpanID, publish.ParentID, where)
	}
	if tr.one(func(s Span) bool {
		return s.Service == "bff" && s.Name == streamDeliver && s.ParentID == publish.SpanID
	}) == nil {
		miss("bff %s span of the %v status event, child of its %s span %s", streamDeliver, status, outboxPublish, publish.SpanID)
	}
}

// traceIDOf returns the trace id of a traceparent header ("" when malformed).
func traceIDOf(traceparent string) string {
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 || len(parts[1]) != 32 {
		return ""
	}
	return parts[1]
}

// elsewhere says where spans named name ended up when they are not in the trace.
func elsewhere(all []Span, traceID, name string) string {
	var where []string
	for _, s := range all {
		if s.Name == name && s.TraceID != traceID {
			where = append(where, fmt.Sprintf("%s in trace %s (parent %q)", s.Service, s.TraceID, s.ParentID))
		}
	}
	switch {
	case len(where) == 0:
		return ": none was exported at all"
	case len(where) > 3:
		where = append(where[:3], fmt.Sprintf("%d more", len(where)-3))
	}
	return ": only found elsewhere: " + strings.Join(where, "; ")
}

// renderTrace prints the trace as a tree by parent links, in start order.
func renderTrace(all []Span, traceID string) string {
	tr := newTrace(all, traceID)
	children := map[string][]Span{}
	var roots []Span
	for _, s := range tr.spans {
		if _, ok := tr.byID[s.ParentID]; ok {
			children[s.ParentID] = append(children[s.ParentID], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(spans []Span) {
		sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start.Before(spans[j].Start) })
	}
	var b strings.Builder
	var walk func(s Span, depth int)
	walk = func(s Span, depth int) {
		fmt.Fprintf(&b, "  %s%-14s %-8s %s  %s ← %s%s\n", strings.Repeat("  ", depth), s.Service, s.Kind, s.Name, s.SpanID, orDash(s.ParentID), detail(s))
		kids := children[s.SpanID]
		byStart(kids)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	byStart(roots)
	for _, r := range roots {
		walk(r, 0)
	}
	if b.Len() == 0 {
		return "  (no spans)\n"
	}
	return b.String()
}

func detail(s Span) string {
	var d []string
	for _, k := range []string{"messaging.destination.name", "messaging.message.id"} {
		if v := s.Attrs[k]; v != "" {
			d = append(d, k+"="+v)
		}
	}
	if len(d) == 0 {
		return ""
	}
	return "  [" + strings.Join(d, " ") + "]"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// renderElsewhere lists the chain's kinds of span that landed in other traces: a step or a
// publish there is a link the trace context did not cross.
func renderElsewhere(all []Span, traceID string) string {
	var b strings.Builder
	for _, s := range all {
		if s.TraceID == traceID {
			continue
		}
		if strings.HasPrefix(s.Name, workerStepPrefix) || s.Name == outboxPublish || s.Name == streamDeliver || s.Name == paymentMethodsCharge {
			fmt.Fprintf(&b, "  trace %s: %-14s %-8s %s  %s ← %s%s\n", s.TraceID, s.Service, s.Kind, s.Name, s.SpanID, orDash(s.ParentID), detail(s))
		}
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}

// ---------------------------------------------------------------------------------------------
// NATS tap and the live stream
// ---------------------------------------------------------------------------------------------

// statusEvent is one transfer status event as it crossed NATS.
type statusEvent struct {
	transferID  string
	status      transfersv1.TransferStatus
	msgID       string
	traceparent string
}

type statusTap struct {
	mu     sync.Mutex
	events []statusEvent
}

func (s *statusTap) find(transferID string, status transfersv1.TransferStatus) (statusEvent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		if e.transferID == transferID && e.status == status {
			return e, true
		}
	}
	return statusEvent{}, false
}

func (s *statusTap) describe() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, e := range s.events {
		fmt.Fprintf(&b, "  %s %v msg %s traceparent %q\n", e.transferID, e.status, e.msgID, e.traceparent)
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}

// tapStatusEvents subscribes (plain NATS, beside JetStream) to the user's transfer status
// subject and records each event's message id and traceparent header.
func tapStatusEvents(t *testing.T, st stack.Ready, userID string) *statusTap {
	t.Helper()
	nc, err := stack.ConnectNATS(st.NatsURL, st.NatsObserverSeedFile, "tracechain-test")
	if err != nil {
		t.Fatalf("connect to the stack's NATS: %v", err)
	}
	t.Cleanup(nc.Close)
	tap := &statusTap{}
	if _, err := nc.Subscribe("thumela.transfers."+userID+".status", func(m *nats.Msg) {
		var ev transfersv1.TransferStatusChanged
		if proto.Unmarshal(m.Data, &ev) != nil {
			return
		}
		tap.mu.Lock()
		tap.events = append(tap.events, statusEvent{
			transferID:  ev.GetTransfer().GetId(),
			status:      ev.GetTransfer().GetStatus(),
			msgID:       header(m.Header, nats.MsgIdHdr),
			traceparent: header(m.Header, "traceparent"),
		})
		tap.mu.Unlock()
	}); err != nil {
		t.Fatalf("tap NATS: %v", err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatalf("tap NATS: %v", err)
	}
	return tap
}

// header reads a NATS header whatever the case of its name (NATS keeps names as sent).
func header(h nats.Header, name string) string {
	if v := h.Get(name); v != "" {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// watchTransfers opens the user's WatchEvents stream and returns its transfer updates once the
// stream is live (its first message, a heartbeat, has arrived). The stream closes with the test.
func watchTransfers(t *testing.T, ctx context.Context, u *bench.User) <-chan *bffv1.Transfer {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	stream, err := u.Events.WatchEvents(ctx, &bffv1.WatchEventsRequest{})
	if err != nil {
		cancel()
		t.Fatalf("WatchEvents: %v", err)
	}
	live := make(chan error, 1)
	updates := make(chan *bffv1.Transfer, 64)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer close(updates)
		first := true
		for stream.Receive() {
			if first {
				first = false
				live <- nil
			}
			if tr := stream.Msg().GetTransferUpdated().GetTransfer(); tr != nil {
				select {
				case updates <- tr:
				case <-ctx.Done():
					return
				}
			}
		}
		if first {
			live <- fmt.Errorf("the stream ended before its first message: %w", errors.Join(stream.Err(), io.ErrUnexpectedEOF))
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = stream.Close()
		<-finished
	})
	select {
	case err := <-live:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WatchEvents sent nothing within 30 s (it starts with a heartbeat)")
	}
	return updates
}

// waitFinalStatus waits on the stream until the transfer is completed or failed.
func waitFinalStatus(t *testing.T, ctx context.Context, updates <-chan *bffv1.Transfer, transferID string, st *stacktest.Stack) bffv1.TransferStatus {
	t.Helper()
	timeout := time.After(90 * time.Second)
	var seen []string
	for {
		select {
		case tr, ok := <-updates:
			if !ok {
				t.Fatalf("the live stream ended before the transfer's final status (seen: %v)\n%s", seen, st.Tail(80))
			}
			if tr.GetId() != transferID {
				continue
			}
			seen = append(seen, tr.GetStatus().String())
			switch tr.GetStatus() {
			case bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED, bffv1.TransferStatus_TRANSFER_STATUS_FAILED:
				return tr.GetStatus()
			}
		case <-timeout:
			t.Fatalf("no final status for transfer %s on the live stream within 90 s (seen: %v)\n%s", transferID, seen, st.Tail(80))
		case <-ctx.Done():
			t.Fatalf("%v while waiting for the final status (seen: %v)\n%s", context.Cause(ctx), seen, st.Tail(80))
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
