package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

const (
	notJSONAnswer    = "The request body is not valid JSON for this call."
	notMessageAnswer = "The request body is not a valid message for this call."
)

// wantPlainRefusal fails unless err is invalid_argument with want as its message, and says
// nothing of the Go types or the libraries behind the BFF.
func wantPlainRefusal(t *testing.T, name string, code connect.Code, message, want string) {
	t.Helper()
	if code != connect.CodeInvalidArgument {
		t.Errorf("%s: code %v (%q), want invalid_argument", name, code, message)
	}
	for _, leak := range []string{"bffv1", "proto:", "unmarshal", "*"} {
		if strings.Contains(message, leak) {
			t.Errorf("%s: message %q gives away %q", name, message, leak)
			return
		}
	}
	if message != want {
		t.Errorf("%s: message %q, want %q", name, message, want)
	}
}

// sendsBody is a client codec that sends body whatever the message, to put a malformed body
// on the wire through a real Connect, gRPC or gRPC-Web client. Answers decode as usual.
type sendsBody struct {
	name string
	body []byte
}

func (c sendsBody) Name() string                { return c.name }
func (c sendsBody) Marshal(any) ([]byte, error) { return c.body, nil }
func (c sendsBody) Unmarshal(data []byte, message any) error {
	if c.name == "json" {
		return protojson.Unmarshal(data, message.(proto.Message))
	}
	return proto.Unmarshal(data, message.(proto.Message))
}

// TestAMalformedBodyIsRefusedInPlainWords: a body that is not the call's request message is
// invalid_argument with one plain sentence, in every protocol, codec and kind of RPC the BFF
// serves, and not connect's "unmarshal into *bffv1.CreateTransferRequest: proto: syntax error".
func TestAMalformedBodyIsRefusedInPlainWords(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	ctx := context.Background()

	protocols := []struct {
		name string
		opt  connect.ClientOption
	}{
		{"Connect", connect.WithClientOptions()},
		{"gRPC", connect.WithGRPC()},
		{"gRPC-Web", connect.WithGRPCWeb()},
	}
	bodies := []struct {
		codec sendsBody
		want  string
	}{
		{sendsBody{"json", []byte(`{bad`)}, notJSONAnswer},
		{sendsBody{"proto", []byte{0xff, 0xff, 0xff}}, notMessageAnswer},
	}
	for _, p := range protocols {
		for _, body := range bodies {
			name := p.name + " " + body.codec.name
			opts := []connect.ClientOption{p.opt, connect.WithCodec(body.codec)}

			_, err := bffv1connect.NewTransfersServiceClient(b.hc, b.srv.URL, opts...).CreateTransfer(ctx, &bffv1.CreateTransferRequest{})
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("%s CreateTransfer: %v, want a Connect error", name, err)
			}
			wantPlainRefusal(t, name+" CreateTransfer", ce.Code(), ce.Message(), body.want)

			// A live stream's request is read inside the streaming handler, not before it.
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
			wantPlainRefusal(t, name+" WatchEvents", ce.Code(), ce.Message(), body.want)
		}
	}

	// What a probe with curl sees: the Connect protocol's own error body.
	raw := []struct {
		contentType string
		body        []byte
		want        string
	}{
		{"application/json", []byte(`{bad`), notJSONAnswer},
		{"application/json; charset=utf-8", []byte(`{bad`), notJSONAnswer},
		{"application/json", nil, notJSONAnswer},
		{"application/json", []byte(`{"amountCents":"fifty"}`), notJSONAnswer},
		{"application/proto", []byte{0xff, 0xff, 0xff}, notMessageAnswer},
	}
	for _, r := range raw {
		name := r.contentType + " " + string(r.body)
		req, err := http.NewRequest(http.MethodPost, b.srv.URL+bffv1connect.TransfersServiceCreateTransferProcedure, bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", r.contentType)
		res, err := b.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var wire struct{ Code, Message string }
		if err := json.Unmarshal(answer, &wire); err != nil || res.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: %d %s, want 400 with a Connect error", name, res.StatusCode, answer)
		}
		var code connect.Code
		_ = code.UnmarshalText([]byte(wire.Code))
		wantPlainRefusal(t, name, code, wire.Message, r.want)
	}
}

// TestAWellFormedBodyIsDecodedInEitherCodec: a valid call still works in JSON and in binary,
// and the JSON answer is protojson's, with the contract's JSON names.
func TestAWellFormedBodyIsDecodedInEitherCodec(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	ctx := context.Background()
	req := &bffv1.CreateTransferRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi Mokoena", RecipientPhone: "082 123 4567", Bank: bffv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", WithdrawalLocation: &bffv1.WithdrawalLocation{Name: "Nearest ATM", Type: "default"},
		SenderPin: senderPIN,
	}
	for _, codec := range []struct {
		name string
		opts []connect.ClientOption
	}{
		{"binary", nil},
		{"JSON", []connect.ClientOption{connect.WithProtoJSON()}},
		{"gRPC binary", []connect.ClientOption{connect.WithGRPC()}},
	} {
		res, err := bffv1connect.NewTransfersServiceClient(b.hc, b.srv.URL, codec.opts...).CreateTransfer(ctx, req)
		if err != nil {
			t.Fatalf("%s CreateTransfer: %v", codec.name, err)
		}
		forwarded := b.transfers.last(t, "CreateTransfer").req.(*transfersv1.CreateTransferRequest)
		if res.GetTransfer().GetId() != "tr-new" || forwarded.GetAmountCents() != 50000 || forwarded.GetRecipientName() != "Thandi Mokoena" {
			t.Fatalf("%s CreateTransfer = %v, forwarded %v", codec.name, res, forwarded)
		}
	}

	// The JSON answer is protojson's, with the contract's JSON names, byte for byte.
	body, _ := protojson.Marshal(req)
	httpReq, _ := http.NewRequest(http.MethodPost, b.srv.URL+bffv1connect.TransfersServiceCreateTransferProcedure, bytes.NewReader(body))
	httpReq.Header.Set("Content-Type", "application/json")
	res, err := b.hc.Do(httpReq)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var got bffv1.CreateTransferResponse
	if err := protojson.Unmarshal(answer, &got); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("JSON CreateTransfer: %d %s", res.StatusCode, answer)
	}
	if want, _ := (protojson.MarshalOptions{}).Marshal(&got); !bytes.Equal(answer, want) || !strings.Contains(string(answer), `"recipientName":`) {
		t.Fatalf("JSON answer %s\nwant protojson's %s", answer, want)
	}
}
