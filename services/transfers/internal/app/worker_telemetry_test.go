package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// A transfer created in a transaction wakes this process's worker when the transaction
// commits, with no NOTIFY: the sweep is an hour, and a connection LISTENing on the channel the
// worker's wake-ups used to go to hears nothing.
func TestWorkerWakesOnCommitWithoutNotify(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	listen, err := pgx.Connect(t.Context(), e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer listen.Close(context.Background())
	if _, err := listen.Exec(t.Context(), `LISTEN transfers_work_transfers`); err != nil {
		t.Fatal(err)
	}

	cfg := e.WorkerConfig()
	cfg.Sweep = time.Hour
	e.StartWorker(t, nil, cfg)
	user, pm := e.NewUser()
	// The first transfer may be found by the worker's pass at start; the second, created once
	// the first is done, only by the wake-up of its commit.
	first := newTransfer(t, e, user, pm, "first", 10000)
	e.WaitStatus(t, first.ID().String(), domain.StatusCompleted, wait)
	second := newTransfer(t, e, user, pm, "second", 20000)
	e.WaitStatus(t, second.ID().String(), domain.StatusCompleted, wait)

	// A cancel owes a refund: its commit wakes the worker too.
	if _, err := e.App.CancelTransfer(e.Ctx(t, user), testkit.Caller(user), second.ID().String()); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, wait, "the refund", func() bool { return e.Payments.RefundCalls(second.RefundKey()) == 1 })

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if n, err := listen.WaitForNotification(ctx); err == nil {
		t.Fatalf("a NOTIFY on %s: the worker's wake-up went through the database", n.Channel)
	}
}

// A replica whose worker is not woken by the commit (another process made it) finds the work
// with its sweep.
func TestAnotherReplicaSweepsUpWork(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	// The only worker runs on another pool and repository, as another replica's would: the
	// App's commits (through e.Repo) do not wake it.
	e.StartWorker(t, testkit.OpenPool(t, e.DBURL, 2), e.WorkerConfig())
	user, pm := e.NewUser()
	tr := newTransfer(t, e, user, pm, "k", 50000)
	e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	if calls := e.Payments.ChargeCalls(tr.ChargeKey()); calls != 1 {
		t.Fatalf("%d charge calls, want 1", calls)
	}
}

// tracedPayments records the span context of each call the worker makes to paymentmethods.
type tracedPayments struct {
	app.PaymentMethods
	mu      sync.Mutex
	charges []trace.SpanContext
	refunds []trace.SpanContext
}

func (p *tracedPayments) Charge(ctx context.Context, req app.ChargeRequest) (app.ChargeResult, error) {
	p.mu.Lock()
	p.charges = append(p.charges, trace.SpanContextFromContext(ctx))
	p.mu.Unlock()
	return p.PaymentMethods.Charge(ctx, req)
}

func (p *tracedPayments) Refund(ctx context.Context, req app.RefundRequest) (string, error) {
	p.mu.Lock()
	p.refunds = append(p.refunds, trace.SpanContextFromContext(ctx))
	p.mu.Unlock()
	return p.PaymentMethods.Refund(ctx, req)
}

// parentOf decodes a traceparent header.
func parentOf(t *testing.T, headers map[string]string) trace.SpanContext {
	t.Helper()
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier(headers))
	return trace.SpanContextFromContext(ctx)
}

// sameSpan compares the trace and span ids (a span context read from headers is remote).
func sameSpan(a, b trace.SpanContext) bool {
	return a.IsValid() && a.TraceID() == b.TraceID() && a.SpanID() == b.SpanID()
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// Each worker step runs in a span "transfers.worker.<step>" whose parent is the span of the
// request that created the transfer; its calls to paymentmethods and the events it writes
// carry the step's span; steps are counted by step and outcome.
func TestWorkerStepsJoinTheCreatingTrace(t *testing.T) {
	// Not parallel: outbox.Write injects with the global propagator, set here as
	// telemetry.Setup sets it.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })

	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	metrics := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })

	e := testkit.New(t, testkit.Options{})
	payments := &tracedPayments{PaymentMethods: e.Payments}
	cfg := e.WorkerConfig()
	cfg.TracerProvider, cfg.MeterProvider = tp, mp
	w, err := app.NewWorker(e.Repo, payments, cfg, e.Logger)
	if err != nil {
		t.Fatal(err)
	}
	e.Repo.OnWork(w.Notify)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })

	// The sender's request, as the BFF's trace would reach the gRPC server.
	create := func(user, pm, key string, amount int64) (*domain.Transfer, trace.SpanContext) {
		rctx, span := tp.Tracer("test").Start(e.Ctx(t, user), "CreateTransfer")
		defer span.End()
		tr, err := e.App.CreateTransfer(rctx, testkit.Caller(user), testkit.Input(key, pm, amount))
		if err != nil {
			t.Fatal(err)
		}
		return tr, span.SpanContext()
	}
	user, pm := e.NewUser()
	tr, request := create(user, pm, "k", 50000)
	e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	// Expire its voucher: the expiry and the refund are steps of the same trace.
	e.Clock.Advance(domain.DefaultVoucherTTL)
	w.Notify()
	testkit.Eventually(t, wait, "the refund recorded", func() bool {
		got, _ := e.Repo.Get(context.Background(), tr.UserID(), tr.ID())
		return got.Refund().Status == domain.RefundRefunded
	})
	// A declined card fails its transfer in the charge step.
	declinedUser, declinedPM := e.NewUser(testkit.TokenDecline)
	declined, _ := create(declinedUser, declinedPM, "declined", 20000)
	e.WaitStatus(t, declined.ID().String(), domain.StatusFailed, wait)

	// The steps' spans, by step.
	steps := map[string]sdktrace.ReadOnlySpan{}
	testkit.Eventually(t, wait, "the refund step's span", func() bool {
		for _, s := range spans.GetSpans().Snapshots() {
			if attr(s, "transfer.id") == tr.ID().String() {
				steps[attr(s, "step")] = s
			}
		}
		return steps[app.StepRefund] != nil
	})
	for _, step := range []string{app.StepClaimCharge, app.StepCharge, app.StepIssueVoucher, app.StepExpire, app.StepClaimRefund, app.StepRefund} {
		s := steps[step]
		if s == nil {
			t.Errorf("no span for step %s", step)
			continue
		}
		if s.Name() != "transfers.worker."+step {
			t.Errorf("span %q for step %s", s.Name(), step)
		}
		if s.SpanContext().TraceID() != request.TraceID() || s.Parent().SpanID() != request.SpanID() {
			t.Errorf("%s: trace %s parent %s, want the request's %s / %s", step,
				s.SpanContext().TraceID(), s.Parent().SpanID(), request.TraceID(), request.SpanID())
		}
		if s.Status().Code == codes.Error {
			t.Errorf("%s: status %v", step, s.Status())
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// The calls to paymentmethods went out in their step's span.
	payments.mu.Lock()
	if len(payments.charges) < 1 || !sameSpan(payments.charges[0], steps[app.StepCharge].SpanContext()) {
		t.Errorf("Charge called in %v, want the charge step's span", payments.charges)
	}
	if len(payments.refunds) != 1 || !sameSpan(payments.refunds[0], steps[app.StepRefund].SpanContext()) {
		t.Errorf("Refund called in %v, want the refund step's span", payments.refunds)
	}
	payments.mu.Unlock()

	// Each event continues the trace from the step that wrote it: created from the request,
	// processing from the claim, completed (and the SMS and the receipt) from the voucher
	// step, expired from the expiry, the refund's e-mail from the refund.
	wantParent := map[transfersv1.TransferStatus]trace.SpanContext{
		transfersv1.TransferStatus_TRANSFER_STATUS_PENDING:    request,
		transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING: steps[app.StepClaimCharge].SpanContext(),
		transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED:  steps[app.StepIssueVoucher].SpanContext(),
	}
	seen := 0
	for _, row := range e.Outbox(t) {
		sc := parentOf(t, row.Headers)
		switch row.Type {
		case "thumela.transfers.v1.TransferStatusChanged":
			var ev transfersv1.TransferStatusChanged
			if err := proto.Unmarshal(row.Payload, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetTransfer().GetId() != tr.ID().String() {
				continue
			}
			seen++
			want := wantParent[ev.GetTransfer().GetStatus()]
			if !sameSpan(sc, want) {
				t.Errorf("%s event: traceparent %s/%s, want %s/%s", ev.GetTransfer().GetStatus(), sc.TraceID(), sc.SpanID(), want.TraceID(), want.SpanID())
			}
		case "thumela.transfers.v1.VoucherChanged":
			var ev transfersv1.VoucherChanged
			if err := proto.Unmarshal(row.Payload, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetTransferId() != tr.ID().String() {
				continue
			}
			seen++
			want := steps[app.StepIssueVoucher].SpanContext()
			switch {
			case ev.GetTransfer().GetRefundStatus() == transfersv1.RefundStatus_REFUND_STATUS_REFUNDED:
				want = steps[app.StepRefund].SpanContext()
			case ev.GetVoucher().GetCollectionStatus() == transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED:
				want = steps[app.StepExpire].SpanContext()
			}
			if !sameSpan(sc, want) {
				t.Errorf("voucher %s event: traceparent %v, want %v", ev.GetVoucher().GetCollectionStatus(), sc, want)
			}
		case testkit.RequestType:
			var req notificationsv1.NotificationRequest
			if err := proto.Unmarshal(row.Payload, &req); err != nil {
				t.Fatal(err)
			}
			if req.GetReference() != tr.ID().String() {
				continue
			}
			seen++
			want := steps[app.StepIssueVoucher].SpanContext()
			if req.GetTemplate() == notificationsv1.Template_TEMPLATE_VOUCHER_REFUNDED {
				want = steps[app.StepRefund].SpanContext()
			}
			if !sameSpan(sc, want) {
				t.Errorf("%s request: traceparent %v, want %v", req.GetTemplate(), sc, want)
			}
		}
	}
	if seen != 3+3+3 {
		t.Errorf("%d events of the transfer with its trace, want 3 status, 3 voucher (issued, expired, refunded), the SMS, the receipt and the refund's e-mail", seen)
	}

	// The declined charge's span is an error; its transfer's steps are counted as such.
	var declinedCharge sdktrace.ReadOnlySpan
	for _, s := range spans.GetSpans().Snapshots() {
		if attr(s, "transfer.id") == declined.ID().String() && attr(s, "step") == app.StepCharge {
			declinedCharge = s
		}
	}
	if declinedCharge == nil || declinedCharge.Status().Code != codes.Error || attr(declinedCharge, "outcome") != app.OutcomeFailed {
		t.Fatalf("declined charge span: %+v", declinedCharge)
	}

	var rm metricdata.ResourceMetrics
	if err := metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts, durations := map[[2]string]int64{}, map[[2]string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				if m.Name != "thumela.transfers.worker.steps" || !data.IsMonotonic {
					continue
				}
				for _, dp := range data.DataPoints {
					counts[key(dp.Attributes)] += dp.Value
				}
			case metricdata.Histogram[float64]:
				if m.Name != "thumela.transfers.worker.step.duration" || m.Unit != "s" {
					continue
				}
				for _, dp := range data.DataPoints {
					durations[key(dp.Attributes)] += dp.Count
				}
			}
		}
	}
	want := map[[2]string]int64{
		{app.StepClaimCharge, app.OutcomeOK}:  2,
		{app.StepCharge, app.OutcomeOK}:       1,
		{app.StepCharge, app.OutcomeFailed}:   1,
		{app.StepIssueVoucher, app.OutcomeOK}: 1,
		{app.StepExpire, app.OutcomeOK}:       1,
		{app.StepClaimRefund, app.OutcomeOK}:  1,
		{app.StepRefund, app.OutcomeOK}:       1,
	}
	for k, n := range want {
		if counts[k] != n || durations[k] != uint64(n) {
			t.Errorf("step %s outcome %s: counted %d, %d durations; want %d", k[0], k[1], counts[k], durations[k], n)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("steps counted: %v, want %v", counts, want)
	}
}

func key(set attribute.Set) [2]string {
	step, _ := set.Value("step")
	outcome, _ := set.Value("outcome")
	return [2]string{step.AsString(), outcome.AsString()}
}
