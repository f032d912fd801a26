package codec_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"

	"github.com/thumela/thumela/bff/internal/codec"
)

const echoProcedure = "/thumela.test.v1.EchoService/Echo"

// serveEcho serves an RPC that answers its request as it decoded it, over HTTP/2 (gRPC needs
// it), with opts; GET is allowed so that Connect's GET encoding is served too.
func serveEcho(t *testing.T, opts ...connect.HandlerOption) *httptest.Server {
	t.Helper()
	echo := func(_ context.Context, req *connect.Request[bffv1.CreateTransferRequest]) (*connect.Response[bffv1.CreateTransferRequest], error) {
		return connect.NewResponse(req.Msg), nil
	}
	mux := http.NewServeMux()
	mux.Handle(echoProcedure, connect.NewUnaryHandler(echoProcedure, echo,
		append([]connect.HandlerOption{connect.WithIdempotency(connect.IdempotencyNoSideEffects)}, opts...)...))
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

type exchange struct {
	status      int
	contentType string
	body        []byte
}

func do(t *testing.T, srv *httptest.Server, method, query, contentType string, body []byte) exchange {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+echoProcedure+query, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return exchange{res.StatusCode, res.Header.Get("Content-Type"), answer}
}

func enveloped(message []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(message))), message...)
}

// TestTheCodecsEncodeAndDecodeAsConnectsOwn: for a well-formed request, in every encoding the
// BFF serves, the answer is byte for byte the one connect's own codecs give, unknown JSON
// fields dropped alike.
func TestTheCodecsEncodeAndDecodeAsConnectsOwn(t *testing.T) {
	t.Parallel()
	connects, ours := serveEcho(t), serveEcho(t, codec.HandlerOption())
	msg := &bffv1.CreateTransferRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi Mokoena", Bank: bffv1.Bank_BANK_FNB, AmountCents: 50000,
		WithdrawalLocation: &bffv1.WithdrawalLocation{Name: "Nearest ATM"}, DoNotSaveRecipient: true,
	}
	binaryMsg, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	jsonMsg := []byte(`{"idempotencyKey":"k-1","recipientName":"Thandi Mokoena","bank":"BANK_FNB","amountCents":"50000",` +
		`"withdrawalLocation":{"name":"Nearest ATM"},"doNotSaveRecipient":true,"aNewerClientsField":1}`)
	get := func(encoding string, message []byte) string {
		return "?" + url.Values{"connect": {"v1"}, "encoding": {encoding}, "message": {string(message)}}.Encode()
	}
	tests := []struct {
		name, method, query, contentType string
		body                             []byte
	}{
		{"Connect binary", http.MethodPost, "", "application/proto", binaryMsg},
		{"Connect JSON", http.MethodPost, "", "application/json", jsonMsg},
		{"Connect JSON with a charset", http.MethodPost, "", "application/json; charset=utf-8", jsonMsg},
		{"Connect GET binary", http.MethodGet, get("proto", binaryMsg), "", nil},
		{"Connect GET JSON", http.MethodGet, get("json", jsonMsg), "", nil},
		{"gRPC binary", http.MethodPost, "", "application/grpc", enveloped(binaryMsg)},
		{"gRPC JSON", http.MethodPost, "", "application/grpc+json", enveloped(jsonMsg)},
		{"gRPC-Web binary", http.MethodPost, "", "application/grpc-web+proto", enveloped(binaryMsg)},
	}
	for _, tt := range tests {
		want := do(t, connects, tt.method, tt.query, tt.contentType, tt.body)
		got := do(t, ours, tt.method, tt.query, tt.contentType, tt.body)
		if want.status != http.StatusOK || len(want.body) < 20 {
			t.Fatalf("%s: connect's codecs answered %d %q", tt.name, want.status, want.body)
		}
		if got.status != want.status || got.contentType != want.contentType || !bytes.Equal(got.body, want.body) {
			t.Errorf("%s: answered %d %s %q\nconnect's codecs %d %s %q", tt.name,
				got.status, got.contentType, got.body, want.status, want.contentType, want.body)
		}
	}
}

// TestABodyThatDoesNotDecodeIsRefusedInOneSentence: what connect's codecs refuse, these
// refuse with the same code, in the product's words instead of the libraries'.
func TestABodyThatDoesNotDecodeIsRefusedInOneSentence(t *testing.T) {
	t.Parallel()
	connects, ours := serveEcho(t), serveEcho(t, codec.HandlerOption())
	const notJSON, notMessage = "The request body is not valid JSON for this call.", "The request body is not a valid message for this call."
	tests := []struct {
		name, method, query, contentType string
		body                             []byte
		want                             string
	}{
		{"not JSON", http.MethodPost, "", "application/json", []byte(`{bad`), notJSON},
		{"an empty JSON body", http.MethodPost, "", "application/json", nil, notJSON},
		{"a wrong JSON type", http.MethodPost, "", "application/json", []byte(`{"amountCents":true}`), notJSON},
		{"not JSON, with a charset", http.MethodPost, "", "application/json; charset=utf-8", []byte(`["k-1"]`), notJSON},
		{"not protobuf", http.MethodPost, "", "application/proto", []byte{0xff, 0xff, 0xff}, notMessage},
		{"not JSON by GET", http.MethodGet, "?connect=v1&encoding=json&message=%7Bbad", "", nil, notJSON},
	}
	for _, tt := range tests {
		var before, after struct{ Code, Message string }
		if err := json.Unmarshal(do(t, connects, tt.method, tt.query, tt.contentType, tt.body).body, &before); err != nil || before.Code != "invalid_argument" {
			t.Fatalf("%s: connect's codecs answered %+v (%v), want invalid_argument", tt.name, before, err)
		}
		got := do(t, ours, tt.method, tt.query, tt.contentType, tt.body)
		if err := json.Unmarshal(got.body, &after); err != nil || got.status != http.StatusBadRequest || after.Code != before.Code || after.Message != tt.want {
			t.Errorf("%s: answered %d %s, want 400 invalid_argument %q (connect's codecs: %q)", tt.name, got.status, got.body, tt.want, before.Message)
		}
	}

	// An empty binary body is the empty message, for connect's codecs and these alike.
	if got := do(t, ours, http.MethodPost, "", "application/proto", nil); got.status != http.StatusOK {
		t.Errorf("an empty binary body: %d %s, want the empty message echoed", got.status, got.body)
	}
}
