package traceview

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// startViewer runs a viewer on free loopback ports, stopped when the test ends.
func startViewer(t *testing.T, cfg Config) *Viewer {
	t.Helper()
	cfg.UIAddr = cmp.Or(cfg.UIAddr, "127.0.0.1:0")
	cfg.OTLPAddr = cmp.Or(cfg.OTLPAddr, "127.0.0.1:0")
	v, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := v.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return v
}

// provider is a real SDK tracer provider of one service, exporting to the viewer with the OTLP
// HTTP exporter the services use (batched, gzipped), as a Thumela process does.
func provider(t *testing.T, v *Viewer, service string) *sdktrace.TracerProvider {
	t.Helper()
	exp, err := otlptracehttp.New(context.Background(),
		otlptracehttp.WithEndpointURL(v.OTLPEndpoint()+"/v1/traces"),
		otlptracehttp.WithCompression(otlptracehttp.GzipCompression),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
	)
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", service),
			attribute.String("service.version", "test"),
		)),
	)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp
}

// flush exports what the providers hold; an export the receiver refused fails the test.
func flush(t *testing.T, tps ...*sdktrace.TracerProvider) {
	t.Helper()
	for _, tp := range tps {
		if err := tp.ForceFlush(context.Background()); err != nil {
			t.Fatalf("export to the viewer: %v", err)
		}
	}
}

func get(t *testing.T, v *Viewer, path string) (int, string) {
	t.Helper()
	res, err := http.Get(v.UIURL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

func getJSON(t *testing.T, v *Viewer, path string, into any) {
	t.Helper()
	status, body := get(t, v, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if err := json.Unmarshal([]byte(body), into); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// at returns a span option placing the span at t0+ms.
func at(t0 time.Time, ms int) trace.SpanEventOption {
	return trace.WithTimestamp(t0.Add(time.Duration(ms) * time.Millisecond))
}

// scenario is what TestTraceViewer exports: a transfer's trace as the stack makes it, a live
// stream's trace its delivery span links to, and an unrelated request.
type scenario struct {
	transfer, stream, profile trace.SpanContext // each trace's top span
	browserSpan               trace.SpanID
	// The transfer trace's span ids in the waterfall's expected order, with their depth.
	order  []trace.SpanID
	depths []int
}

const (
	transferID = "tr-0001-6f1c"
	userID     = "user-42"
	scriptVal  = `<script>alert('x')</script>`
)

func exportScenario(t *testing.T, v *Viewer) scenario {
	t.Helper()
	bff, transfers := provider(t, v, "bff"), provider(t, v, "transfers")
	bffT, transfersT := bff.Tracer("thumela/bff"), transfers.Tracer("thumela/transfers")
	pgx := transfers.Tracer("github.com/exaring/otelpgx")
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	var sc scenario

	// The tab's live stream, open before the transfer: another trace.
	streamCtx, stream := bffT.Start(context.Background(), "thumela.bff.v1.EventsService/WatchEvents",
		trace.WithSpanKind(trace.SpanKindServer), at(t0, -500), trace.WithAttributes(attribute.String("user.id", userID)))
	stream.End(trace.WithTimestamp(t0.Add(30 * time.Second)))
	sc.stream = trace.SpanContextFromContext(streamCtx)

	// The browser's request: its span is the BFF's parent but is never exported.
	browser := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		Remote:  true, TraceFlags: trace.FlagsSampled,
	})
	sc.browserSpan = browser.SpanID()
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), browser)

	ctx, root := bffT.Start(ctx, "thumela.bff.v1.TransfersService/CreateTransfer", trace.WithSpanKind(trace.SpanKindServer),
		at(t0, 0), trace.WithAttributes(attribute.String("user.id", userID)))
	cctx, client := bffT.Start(ctx, "thumela.transfers.v1.TransfersService/CreateTransfer", trace.WithSpanKind(trace.SpanKindClient), at(t0, 1))
	sctx, server := transfersT.Start(cctx, "thumela.transfers.v1.TransfersService/CreateTransfer", trace.WithSpanKind(trace.SpanKindServer), at(t0, 2))
	_, insert := pgx.Start(sctx, "INSERT transfers", trace.WithSpanKind(trace.SpanKindClient), at(t0, 3),
		trace.WithAttributes(attribute.String("db.statement", scriptVal)))
	insert.End(at(t0, 6))
	// A step that fails, with the error recorded as an exception event.
	_, charge := transfersT.Start(sctx, "transfers.worker.charge", at(t0, 10),
		trace.WithAttributes(attribute.String("transfer.id", transferID)))
	charge.RecordError(errors.New("card declined <b>"), trace.WithTimestamp(t0.Add(40*time.Millisecond)))
	charge.SetStatus(codes.Error, "charge failed")
	charge.End(at(t0, 45))
	// The BFF's delivery of the status event to the tab: in this trace, linked to the stream.
	_, deliver := bffT.Start(sctx, "bff.stream.deliver", trace.WithSpanKind(trace.SpanKindConsumer), at(t0, 50),
		trace.WithLinks(trace.Link{SpanContext: sc.stream}))
	deliver.End(at(t0, 51))
	server.End(at(t0, 20))
	client.End(at(t0, 21))
	root.End(at(t0, 22))
	sc.transfer = root.SpanContext()
	sc.order = []trace.SpanID{
		root.SpanContext().SpanID(), client.SpanContext().SpanID(), server.SpanContext().SpanID(),
		insert.SpanContext().SpanID(), charge.SpanContext().SpanID(), deliver.SpanContext().SpanID(),
	}
	sc.depths = []int{0, 1, 2, 3, 3, 3}

	// Someone else's request.
	_, profile := bffT.Start(context.Background(), "thumela.bff.v1.ProfilesService/GetProfile",
		trace.WithSpanKind(trace.SpanKindServer), at(t0, 100), trace.WithAttributes(attribute.String("user.id", "user-7")))
	profile.End(at(t0, 103))
	sc.profile = profile.SpanContext()

	flush(t, bff, transfers)
	return sc
}

// TestTraceViewer exports spans with the real SDK and OTLP exporter, then reads them back the
// way a person and a script do: the search page with each filter, the trace page and the JSON.
func TestTraceViewer(t *testing.T) {
	v := startViewer(t, Config{AppURL: "http://127.0.0.1:8080"})
	sc := exportScenario(t, v)
	transferTrace, streamTrace, profileTrace := sc.transfer.TraceID().String(), sc.stream.TraceID().String(), sc.profile.TraceID().String()

	if got := v.Store().Stats(); got.Traces != 3 || got.Spans != 8 {
		t.Fatalf("stats %+v, want 3 traces of 8 spans in all", got)
	}

	t.Run("search", func(t *testing.T) {
		cases := []struct {
			name, query string
			want        []string // trace ids listed
		}{
			{"everything", "", []string{transferTrace, streamTrace, profileTrace}},
			{"transfer id", "q=" + transferID, []string{transferTrace}},
			{"transfer id in another case", "q=" + strings.ToUpper(transferID), []string{transferTrace}},
			{"attribute key=value", "q=" + url.QueryEscape("transfer.id="+transferID), []string{transferTrace}},
			{"user id", "q=" + userID, []string{transferTrace, streamTrace}},
			{"trace id", "q=" + profileTrace, []string{profileTrace}},
			{"trace id prefix", "q=" + profileTrace[:12], []string{profileTrace}},
			{"span name", "q=GetProfile", []string{profileTrace}},
			{"exception message", "q=" + url.QueryEscape("card declined"), []string{transferTrace}},
			{"service", "service=transfers", []string{transferTrace}},
			{"errors only", "errors=1", []string{transferTrace}},
			{"errors only, the form's checkbox", "errors=on&service=bff", []string{transferTrace}},
			{"service and text", "service=bff&q=" + userID, []string{transferTrace, streamTrace}},
			{"no match", "q=nothing-like-this", nil},
		}
		all := []string{transferTrace, streamTrace, profileTrace}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				status, body := get(t, v, "/?"+c.query)
				if status != http.StatusOK {
					t.Fatalf("status %d\n%s", status, body)
				}
				for _, id := range all {
					listed := strings.Contains(body, `href="/traces/`+id+`"`)
					if want := slices.Contains(c.want, id); listed != want {
						t.Errorf("trace %s listed=%v, want %v\n%s", id, listed, want, body)
					}
				}
				// The JSON search answers the same.
				var res struct {
					Matched int `json:"matched"`
					Traces  []struct {
						TraceID string `json:"traceId"`
					} `json:"traces"`
				}
				getJSON(t, v, "/api/traces?"+c.query, &res)
				var got []string
				for _, tr := range res.Traces {
					got = append(got, tr.TraceID)
				}
				if !sameSet(got, c.want) || res.Matched != len(c.want) {
					t.Errorf("/api/traces?%s = %v (matched %d), want %v", c.query, got, res.Matched, c.want)
				}
			})
		}
	})

	t.Run("search page row", func(t *testing.T) {
		_, body := get(t, v, "/?service=transfers&q="+transferID)
		for _, want := range []string{
			"thumela.bff.v1.TransfersService/CreateTransfer", // root span
			"bff, transfers",               // services
			`<td class="num">6</td>`,       // spans
			`<td class="num">51.0 ms</td>`, // duration: the deliver span ends at 51 ms
			"1 error",
			`<th scope="col">Root span</th>`,
			`<option value="transfers" selected>transfers</option>`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the search page lacks %q\n%s", want, body)
			}
		}
	})

	t.Run("trace page", func(t *testing.T) {
		status, body := get(t, v, "/traces/"+transferTrace)
		if status != http.StatusOK {
			t.Fatalf("status %d\n%s", status, body)
		}
		// Rows in tree order, each at its depth.
		rows := regexp.MustCompile(`<tr id="span-([0-9a-f]{16})"[^>]*>\s*<th scope="row" class="name" style="--depth:(\d+)">`).FindAllStringSubmatch(body, -1)
		var gotOrder []string
		var gotDepths []string
		for _, r := range rows {
			gotOrder = append(gotOrder, r[1])
			gotDepths = append(gotDepths, r[2])
		}
		var wantOrder, wantDepths []string
		for i, id := range sc.order {
			wantOrder = append(wantOrder, id.String())
			wantDepths = append(wantDepths, fmt.Sprint(sc.depths[i]))
		}
		if !slices.Equal(gotOrder, wantOrder) || !slices.Equal(gotDepths, wantDepths) {
			t.Errorf("waterfall rows %v at depths %v, want %v at %v", gotOrder, gotDepths, wantOrder, wantDepths)
		}
		// Escaped, never markup.
		if strings.Contains(body, "<script") || strings.Contains(body, "<b>") {
			t.Errorf("an attribute value reached the page as markup:\n%s", body)
		}
		for _, want := range []string{
			"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;", // db.statement
			"card declined &lt;b&gt;",                         // exception.message
			"charge failed",                                   // status message
			"transfer.id",
			// The delivery span's link, to the stream's span in its own trace.
			`href="/traces/` + streamTrace + `#span-` + sc.stream.SpanID().String() + `"`,
			"thumela.bff.v1.EventsService/WatchEvents — span <code>" + sc.stream.SpanID().String(),
			// The BFF's parent is the browser's span, which is never received.
			"parent " + sc.browserSpan.String()[:8] + "… not received",
			`<dt>Duration</dt><dd>51.0 ms</dd>`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the trace page lacks %q", want)
			}
		}
		// The bar of the charge step starts at 10 of 51 ms and lasts 35.
		if want := `left:19.608%;width:68.627%`; !strings.Contains(body, want) {
			t.Errorf("the trace page lacks the bar %q", want)
		}
	})

	t.Run("linked from", func(t *testing.T) {
		_, body := get(t, v, "/traces/"+streamTrace)
		if want := `href="/traces/` + transferTrace + `#span-` + sc.order[5].String() + `"`; !strings.Contains(body, "Linked from other traces") || !strings.Contains(body, want) {
			t.Errorf("the stream's trace does not list the delivery span linking to it (%s)\n%s", want, body)
		}
	})

	t.Run("json", func(t *testing.T) {
		var tr struct {
			TraceID    string   `json:"traceId"`
			RootName   string   `json:"rootName"`
			Services   []string `json:"services"`
			SpanCount  int      `json:"spanCount"`
			ErrorCount int      `json:"errorCount"`
			DurationMs float64  `json:"durationMs"`
			Spans      []struct {
				SpanID        string            `json:"spanId"`
				ParentSpanID  string            `json:"parentSpanId"`
				ParentMissing bool              `json:"parentMissing"`
				Depth         int               `json:"depth"`
				Service       string            `json:"service"`
				Scope         string            `json:"scope"`
				Name          string            `json:"name"`
				Kind          string            `json:"kind"`
				OffsetMs      float64           `json:"offsetMs"`
				DurationMs    float64           `json:"durationMs"`
				Status        string            `json:"status"`
				Attributes    map[string]string `json:"attributes"`
				Events        []struct {
					Name       string            `json:"name"`
					Attributes map[string]string `json:"attributes"`
				} `json:"events"`
				Links []struct {
					TraceID string `json:"traceId"`
					SpanID  string `json:"spanId"`
				} `json:"links"`
			} `json:"spans"`
		}
		getJSON(t, v, "/api/traces/"+strings.ToUpper(transferTrace), &tr)
		if tr.TraceID != transferTrace || tr.SpanCount != 6 || tr.ErrorCount != 1 || tr.DurationMs != 51 ||
			tr.RootName != "thumela.bff.v1.TransfersService/CreateTransfer" || !slices.Equal(tr.Services, []string{"bff", "transfers"}) {
			t.Errorf("trace summary %+v", tr)
		}
		if len(tr.Spans) != len(sc.order) {
			t.Fatalf("%d spans, want %d", len(tr.Spans), len(sc.order))
		}
		for i, s := range tr.Spans {
			if s.SpanID != sc.order[i].String() || s.Depth != sc.depths[i] {
				t.Errorf("span %d: %s at depth %d, want %s at %d", i, s.SpanID, s.Depth, sc.order[i], sc.depths[i])
			}
		}
		root, charge, deliver := tr.Spans[0], tr.Spans[4], tr.Spans[5]
		if root.ParentSpanID != sc.browserSpan.String() || !root.ParentMissing || root.Kind != "server" || root.Service != "bff" {
			t.Errorf("root span %+v", root)
		}
		if tr.Spans[3].Scope != "github.com/exaring/otelpgx" || tr.Spans[3].Attributes["db.statement"] != scriptVal {
			t.Errorf("pgx span %+v", tr.Spans[3])
		}
		if charge.Status != "error" || charge.OffsetMs != 10 || charge.DurationMs != 35 || charge.Attributes["transfer.id"] != transferID ||
			len(charge.Events) != 1 || charge.Events[0].Name != "exception" || charge.Events[0].Attributes["exception.message"] != "card declined <b>" {
			t.Errorf("charge span %+v", charge)
		}
		if len(deliver.Links) != 1 || deliver.Links[0].TraceID != streamTrace || deliver.Links[0].SpanID != sc.stream.SpanID().String() {
			t.Errorf("deliver span links %+v", deliver.Links)
		}
		var services []string
		getJSON(t, v, "/api/services", &services)
		if !slices.Equal(services, []string{"bff", "transfers"}) {
			t.Errorf("/api/services = %v", services)
		}
	})

	t.Run("not found", func(t *testing.T) {
		for path, want := range map[string]int{
			"/traces/0123456789abcdef0123456789abcdef":     http.StatusNotFound,
			"/traces/not-a-trace":                          http.StatusBadRequest,
			"/api/traces/0123456789abcdef0123456789abcdef": http.StatusNotFound,
			"/api/traces/xyz":                              http.StatusBadRequest,
			"/nothing":                                     http.StatusNotFound,
		} {
			if status, body := get(t, v, path); status != want {
				t.Errorf("GET %s: %d, want %d\n%s", path, status, want, body)
			}
		}
	})

	t.Run("headers", func(t *testing.T) {
		res, err := http.Get(v.UIURL() + "/traces/" + transferTrace)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("Content-Security-Policy %q", csp)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
	})
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestOTLPJSON posts an export in the OTLP/JSON encoding (hex ids, enums as numbers, times as
// strings), as curl or another SDK may, and reads it back.
func TestOTLPJSON(t *testing.T) {
	v := startViewer(t, Config{})
	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"fees"}}]},
	  "scopeSpans":[{"scope":{"name":"manual"},"spans":[
	    {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"thumela.fees.v1.FeesService/Quote","kind":2,
	     "startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712660300000000",
	     "attributes":[{"key":"amount.cents","value":{"intValue":"150000"}},{"key":"ok","value":{"boolValue":true}}],
	     "status":{"code":2,"message":"boom"}},
	    {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","parentSpanId":"eee19b7ec3c1b174","name":"SELECT fees","kind":3,
	     "startTimeUnixNano":1544712660100000000,"endTimeUnixNano":1544712660200000000}]}]}]}`
	res, err := http.Post(v.OTLPEndpoint()+"/v1/traces", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("POST: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), answer)
	}
	var tr struct {
		Spans []struct {
			SpanID, ParentSpanID, Name, Kind, Status, Service string
			Depth                                             int
			OffsetMs, DurationMs                              float64
			Attributes                                        map[string]string
		} `json:"spans"`
	}
	getJSON(t, v, "/api/traces/5b8efff798038103d269b633813fc60c", &tr)
	if len(tr.Spans) != 2 {
		t.Fatalf("%d spans, want 2: %+v", len(tr.Spans), tr)
	}
	quote, sel := tr.Spans[0], tr.Spans[1]
	if quote.SpanID != "eee19b7ec3c1b174" || quote.Kind != "server" || quote.Status != "error" || quote.Service != "fees" ||
		quote.DurationMs != 300 || quote.Attributes["amount.cents"] != "150000" || quote.Attributes["ok"] != "true" {
		t.Errorf("quote span %+v", quote)
	}
	if sel.ParentSpanID != "eee19b7ec3c1b174" || sel.Depth != 1 || sel.Kind != "client" || sel.OffsetMs != 100 || sel.DurationMs != 100 {
		t.Errorf("select span %+v", sel)
	}

	// What is not an OTLP export is refused, and keeps nothing.
	for _, c := range []struct {
		method, path, contentType, body string
		want                            int
	}{
		{http.MethodPost, "/v1/traces", "text/plain", "{}", http.StatusUnsupportedMediaType},
		{http.MethodPost, "/v1/traces", "application/json", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}`, http.StatusBadRequest},
		{http.MethodPost, "/v1/traces", "application/x-protobuf", "\xff\xff\xff", http.StatusBadRequest},
		{http.MethodGet, "/v1/traces", "", "", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/metrics", "application/x-protobuf", "", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(c.method, v.OTLPEndpoint()+c.path, strings.NewReader(c.body))
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s %s (%s): %d, want %d", c.method, c.path, c.contentType, res.StatusCode, c.want)
		}
	}
	if got := v.Store().Stats().Traces; got != 1 {
		t.Errorf("%d traces kept, want 1", got)
	}
}

// TestEviction: past the bound the trace that received a span least recently goes, whole; a
// trace that receives a span becomes the newest.
func TestEviction(t *testing.T) {
	v := startViewer(t, Config{MaxTraces: 3})
	tp := provider(t, v, "bff")
	tracer := tp.Tracer("test")
	newTrace := func(name string) trace.SpanContext {
		ctx, s := tracer.Start(context.Background(), name)
		s.End()
		flush(t, tp) // one export each: arrival order is the order here
		return trace.SpanContextFromContext(ctx)
	}
	kept := func(sc trace.SpanContext) bool {
		status, _ := get(t, v, "/api/traces/"+sc.TraceID().String())
		return status == http.StatusOK
	}

	a, b, c := newTrace("a"), newTrace("b"), newTrace("c")
	// A later span of a: a is now the newest, b the oldest.
	_, late := tracer.Start(trace.ContextWithSpanContext(context.Background(), a), "a.later")
	late.End()
	flush(t, tp)
	d := newTrace("d")
	if !kept(a) || kept(b) || !kept(c) || !kept(d) {
		t.Errorf("after d: a %v, b %v, c %v, d %v; want b evicted", kept(a), kept(b), kept(c), kept(d))
	}
	e := newTrace("e")
	if kept(c) || !kept(a) || !kept(d) || !kept(e) {
		t.Errorf("after e: a %v, c %v, d %v, e %v; want c evicted", kept(a), kept(c), kept(d), kept(e))
	}
	if st := v.Store().Stats(); st.Traces != 3 || st.Spans != 4 || st.Evicted != 2 {
		t.Errorf("stats %+v, want 3 traces, 4 spans, 2 evicted", st)
	}
	_, body := get(t, v, "/")
	if n := strings.Count(body, `href="/traces/`); n != 3 {
		t.Errorf("the search page lists %d traces, want 3", n)
	}
	if !strings.Contains(body, "2 older traces were evicted") {
		t.Errorf("the search page does not say traces were evicted\n%s", body)
	}
}

// TestStoreSpanBounds: the span bounds hold too; one huge trace cannot push out the rest.
func TestStoreSpanBounds(t *testing.T) {
	s := NewStore(100, 10, 4)
	span := func(trace string, i int) Span {
		return Span{TraceID: trace, SpanID: fmt.Sprintf("%016x", i), Name: fmt.Sprint(i), Start: time.Unix(int64(i), 0), End: time.Unix(int64(i)+1, 0)}
	}
	var big []Span
	for i := range 7 {
		big = append(big, span("big", i))
	}
	s.Add(big)
	if _, sum, _ := s.Trace("big"); sum.Spans != 4 || sum.Dropped != 3 {
		t.Errorf("big trace keeps %d spans, dropped %d; want 4 and 3", sum.Spans, sum.Dropped)
	}
	for i := range 4 {
		s.Add([]Span{span(fmt.Sprint("t", i), 100+i), span(fmt.Sprint("t", i), 200+i)})
	}
	// 4 + 8 spans > 10: the oldest trace ("big") went.
	if _, _, ok := s.Trace("big"); ok {
		t.Error("the oldest trace was kept past the span bound")
	}
	if st := s.Stats(); st.Spans != 8 || st.Traces != 4 || st.Evicted != 1 || st.DroppedSpans != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestLoopbackOnly: the viewer refuses to listen anywhere but on loopback unless allowed, and
// answers only requests addressed to a loopback name.
func TestLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:16686": true,
		"127.0.0.2:4318":  true,
		"[::1]:16686":     true,
		"localhost:16686": true,
		":16686":          false,
		"0.0.0.0:16686":   false,
		"[::]:4318":       false,
		"192.168.1.10:80": false,
		"example.com:80":  false,
	} {
		err := CheckAddr(addr, false)
		if ok && err != nil {
			t.Errorf("CheckAddr(%q) = %v, want nil", addr, err)
		}
		if !ok && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("CheckAddr(%q) = %v, want ErrNotLoopback", addr, err)
		}
		if err := CheckAddr(addr, true); err != nil {
			t.Errorf("CheckAddr(%q, allowRemote) = %v, want nil", addr, err)
		}
	}
	if err := CheckAddr("no-port", false); err == nil || errors.Is(err, ErrNotLoopback) {
		t.Errorf("CheckAddr without a port = %v, want an address error", err)
	}

	// Start refuses before listening on anything.
	for _, cfg := range []Config{
		{UIAddr: ":0", OTLPAddr: "127.0.0.1:0"},
		{UIAddr: "127.0.0.1:0", OTLPAddr: "0.0.0.0:0"},
	} {
		if v, err := Start(cfg); !errors.Is(err, ErrNotLoopback) {
			if v != nil {
				_ = v.Close(context.Background())
			}
			t.Errorf("Start(%+v) = %v, want ErrNotLoopback", cfg, err)
		}
	}

	v := startViewer(t, Config{})
	for _, u := range []string{v.UIURL(), v.OTLPEndpoint()} {
		host, _, _ := net.SplitHostPort(strings.TrimPrefix(u, "http://"))
		if host != "127.0.0.1" {
			t.Errorf("listening on %s, want 127.0.0.1", u)
		}
	}

	// A page of another site that rebinds its name to 127.0.0.1 sends that name as the Host.
	req, _ := http.NewRequest(http.MethodGet, v.UIURL()+"/api/services", nil)
	req.Host = "attacker.example:16686"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a request for Host attacker.example: %d, want %d", res.StatusCode, http.StatusMisdirectedRequest)
	}
	req.Host = "localhost"
	if res, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("a request for Host localhost: %d, want 200", res.StatusCode)
	}
}
