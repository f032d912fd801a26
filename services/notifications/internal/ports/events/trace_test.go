package events_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
	"github.com/thumela/thumela/services/platform/bus"
)

// spans records every span the package's tests end, as telemetry.Setup would export them.
var spans = tracetest.NewSpanRecorder()

func TestMain(m *testing.M) {
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	otel.SetTextMapPropagator(propagation.TraceContext{})
	os.Exit(m.Run())
}

// The consumer's spans continue the trace of the request that asked for the message, and
// carry no personal data: no recipient, no secret, no text.
func TestTracesContinueFromTheRequest(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	req := testkit.VoucherRequest(t, e.Key.Public(), user, "+27829876543", "TH-TRACE")

	ctx, parent := otel.Tracer("test").Start(context.Background(), "transfers.worker.issue_voucher")
	header := nats.Header{}
	bus.InjectTrace(ctx, header)
	parent.End()
	data, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := bus.NotificationSubject(req.GetSourceService(), user, "sms")
	if _, err := e.JS.PublishMsg(ctx, &nats.Msg{Subject: subject, Data: data, Header: header}, jetstream.WithMsgID(req.GetId())); err != nil {
		t.Fatal(err)
	}
	e.WaitStatus(t, req.GetId(), domain.StatusSent, wait)

	traceID := parent.SpanContext().TraceID()
	names := map[string]bool{}
	deadline := time.Now().Add(5 * time.Second)
	for !names["notifications.send"] && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		for _, s := range spans.Ended() {
			if s.SpanContext().TraceID() == traceID {
				names[s.Name()] = true
			}
		}
	}
	if !names["notifications.consume"] || !names["notifications.send"] {
		t.Fatalf("spans in the request's trace: %v", names)
	}
	for _, s := range spans.Ended() {
		if s.SpanContext().TraceID() != traceID {
			continue
		}
		var all []string
		for _, a := range s.Attributes() {
			all = append(all, string(a.Key)+"="+a.Value.String())
		}
		for _, ev := range s.Events() {
			all = append(all, ev.Name)
			for _, a := range ev.Attributes {
				all = append(all, a.Value.String())
			}
		}
		text := strings.Join(all, " ")
		for _, private := range []string{"27829876543", "4821", "1234 5678 9012", "Thandi", "Never share"} {
			if strings.Contains(text, private) {
				t.Errorf("span %s carries %q: %s", s.Name(), private, text)
			}
		}
	}
}
