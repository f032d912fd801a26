package otlpreceiver

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Path is where OTLP/HTTP exporters send traces (the SDKs append it to
// OTEL_EXPORTER_OTLP_ENDPOINT).
const Path = "/v1/traces"

// MaxExportBytes bounds one export request, before and after gzip: the SDK's batches (512
// spans by default) are far smaller, so a larger body is a mistake or an attack, not data.
const MaxExportBytes = 32 << 20

// Content types of the two OTLP/HTTP encodings.
const (
	contentTypeProtobuf = "application/x-protobuf"
	contentTypeJSON     = "application/json"
)

// Handler is an OTLP/HTTP trace receiver: it answers POST /v1/traces (application/x-protobuf
// or application/json, Content-Encoding gzip or none) and passes each request's spans to add,
// which must not keep a reference to the slice's backing array past the call if it modifies
// it. Anything else is 404, 405, 413 or 415; a body that does not decode is 400, which the
// SDK's exporters do not retry.
func Handler(add func([]Span)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "OTLP/HTTP traces are POSTed", http.StatusMethodNotAllowed)
			return
		}
		mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mediaType != contentTypeProtobuf && mediaType != contentTypeJSON {
			http.Error(w, fmt.Sprintf("Content-Type %q: want %s or %s", r.Header.Get("Content-Type"), contentTypeProtobuf, contentTypeJSON), http.StatusUnsupportedMediaType)
			return
		}
		raw, err := readBody(w, r)
		if err != nil {
			status := http.StatusBadRequest
			if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge || errors.Is(err, errTooLarge) {
				status = http.StatusRequestEntityTooLarge
			}
			http.Error(w, err.Error(), status)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if mediaType == contentTypeJSON {
			err = UnmarshalJSON(raw, &req)
		} else {
			err = proto.Unmarshal(raw, &req)
		}
		if err != nil {
			http.Error(w, "decode ExportTraceServiceRequest: "+err.Error(), http.StatusBadRequest)
			return
		}
		add(Flatten(&req))
		// An empty response: full success, no partial_success to report.
		w.Header().Set("Content-Type", mediaType)
		if mediaType == contentTypeJSON {
			_, _ = io.WriteString(w, "{}")
			return
		}
		resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		_, _ = w.Write(resp)
	})
}

var errTooLarge = fmt.Errorf("the decompressed export is larger than %d bytes", MaxExportBytes)

// readBody reads the request body, un-gzipping it when it says so, within MaxExportBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var body io.Reader = http.MaxBytesReader(w, r.Body, MaxExportBytes)
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		gz, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer gz.Close() //nolint:errcheck // a gzip reader's Close only reports what reading did
		body = io.LimitReader(gz, MaxExportBytes+1)
	default:
		return nil, fmt.Errorf("Content-Encoding %q: want gzip or none", enc)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxExportBytes {
		return nil, errTooLarge
	}
	return raw, nil
}

// UnmarshalJSON decodes an ExportTraceServiceRequest in the OTLP/JSON encoding, which is
// protobuf's JSON mapping except that trace and span ids are hex, not base64: the ids are
// rewritten to base64 before protojson decodes the rest (enums as numbers, 64-bit integers as
// numbers or strings, camelCase or snake_case field names are protojson's own rules).
func UnmarshalJSON(raw []byte, req *coltracepb.ExportTraceServiceRequest) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // nanosecond timestamps do not survive a float64
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	if err := hexIDsToBase64(doc); err != nil {
		return err
	}
	fixed, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(fixed, req)
}

// idFields are the OTLP/JSON fields that hold hex ids (spans, parent spans and links).
var idFields = map[string]bool{
	"traceId": true, "spanId": true, "parentSpanId": true,
	"trace_id": true, "span_id": true, "parent_span_id": true,
}

func hexIDsToBase64(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && idFields[k] {
				b, err := hex.DecodeString(s)
				if err != nil {
					return fmt.Errorf("%s %q is not hex", k, s)
				}
				x[k] = base64.StdEncoding.EncodeToString(b)
				continue
			}
			if err := hexIDsToBase64(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := hexIDsToBase64(e); err != nil {
				return err
			}
		}
	}
	return nil
}
