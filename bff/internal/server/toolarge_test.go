package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
)

const tooLargeAnswer = "The request is too large."

// TestATooLargeRequestIsRefusedInPlainWords: a request over the BFF's read limit (1 MiB; the
// analytics service's is smaller) is invalid_argument "The request is too large.", in every
// protocol and codec, on the wire or once inflated, and not connect's resource_exhausted
// "message size 10000033 is larger than configured max 1048576", which tells a client to retry
// and gives the limit away. A request just under the limit is read as usual.
func TestATooLargeRequestIsRefusedInPlainWords(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	ctx := context.Background()
	huge := 10_000_000

	// What a probe with curl sees: the Connect protocol's own error body.
	gzipped := func(p []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		_, _ = w.Write(p)
		_ = w.Close()
		return buf.Bytes()
	}
	jsonOf := func(n int) []byte {
		return []byte(`{"email":"thandi@example.co.za","password":"` + strings.Repeat("a", n) + `"}`)
	}
	raw := []struct {
		name, procedure, contentType, encoding string
		body                                   []byte
		wantStatus                             int
	}{
		{"Connect JSON", bffv1connect.AuthServiceSignInProcedure, "application/json", "", jsonOf(huge), http.StatusBadRequest},
		{"Connect JSON; charset=utf-8", bffv1connect.AuthServiceSignInProcedure, "application/json; charset=utf-8", "", jsonOf(huge), http.StatusBadRequest},
		{"Connect binary", bffv1connect.AuthServiceSignInProcedure, "application/proto", "", bytes.Repeat([]byte{0x0a}, huge), http.StatusBadRequest},
		{"Connect JSON, 2 MiB once inflated", bffv1connect.AuthServiceSignInProcedure, "application/json", "gzip", gzipped(jsonOf(2 << 20)), http.StatusBadRequest},
		{"Connect JSON over the analytics limit", bffv1connect.AnalyticsServiceTrackProcedure, "application/json", "",
			[]byte(`{"anonymousId":"abcdefgh","events":[{"name":"` + strings.Repeat("a", 200<<10) + `"}]}`), http.StatusBadRequest},
		// Under the limit: SignIn answers as it always does (the fake's unknown password).
		{"Connect JSON just under the limit", bffv1connect.AuthServiceSignInProcedure, "application/json", "",
			append([]byte(`{"email":"thandi@example.co.za","password":"wrong-password"}`), bytes.Repeat([]byte(" "), 1<<20-100)...), http.StatusUnauthorized},
	}
	for _, r := range raw {
		req, err := http.NewRequest(http.MethodPost, b.srv.URL+r.procedure, bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", r.contentType)
		if r.encoding != "" {
			req.Header.Set("Content-Encoding", r.encoding)
		}
		res, err := b.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var wire struct{ Code, Message string }
		if err := json.Unmarshal(answer, &wire); err != nil || res.StatusCode != r.wantStatus {
			t.Errorf("%s: %d %s, want %d with a Connect error", r.name, res.StatusCode, answer, r.wantStatus)
			continue
		}
		if r.wantStatus != http.StatusBadRequest {
			if wire.Message == tooLargeAnswer {
				t.Errorf("%s: refused as too large", r.name)
			}
			continue
		}
		var code connect.Code
		_ = code.UnmarshalText([]byte(wire.Code))
		wantTooLarge(t, r.name, code, wire.Message)
	}

	// The other protocols, and a live stream, whose request is read inside the handler.
	for _, p := range []struct {
		name string
		opt  connect.ClientOption
	}{
		{"Connect", connect.WithClientOptions()},
		{"gRPC", connect.WithGRPC()},
		{"gRPC-Web", connect.WithGRPCWeb()},
	} {
		for _, codec := range []sendsBody{{"proto", bytes.Repeat([]byte{0x0a}, 2<<20)}, {"json", jsonOf(2 << 20)}} {
			name := p.name + " " + codec.name
			opts := []connect.ClientOption{p.opt, connect.WithCodec(codec)}
			_, err := bffv1connect.NewAuthServiceClient(b.hc, b.srv.URL, opts...).SignIn(ctx, &bffv1.SignInRequest{})
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("%s SignIn: %v, want a Connect error", name, err)
			}
			wantTooLarge(t, name+" SignIn", ce.Code(), ce.Message())

			stream, err := bffv1connect.NewEventsServiceClient(b.hc, b.srv.URL, opts...).WatchEvents(ctx, &bffv1.WatchEventsRequest{})
			if err == nil {
				for stream.Receive() {
				}
				err = stream.Err()
				stream.Close()
			}
			if !errors.As(err, &ce) {
				t.Fatalf("%s WatchEvents: %v, want a Connect error", name, err)
			}
			wantTooLarge(t, name+" WatchEvents", ce.Code(), ce.Message())
		}
	}
}

// wantTooLarge fails unless the answer is invalid_argument "The request is too large." and
// gives the limit away nowhere.
func wantTooLarge(t *testing.T, name string, code connect.Code, message string) {
	t.Helper()
	if code != connect.CodeInvalidArgument || message != tooLargeAnswer {
		t.Errorf("%s: %v %q, want invalid_argument %q", name, code, message, tooLargeAnswer)
	}
	for _, leak := range []string{"1048576", "131072", "max", "larger"} {
		if strings.Contains(message, leak) {
			t.Errorf("%s: message %q gives away %q", name, message, leak)
		}
	}
}
