package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// unaryProcedures are the BFF's unary RPCs ("/thumela.bff.v1.X/Y") and their request types,
// read from the contract so that a new RPC is fuzzed without editing this file.
func unaryProcedures() (paths []string, inputs []protoreflect.MessageDescriptor) {
	services := bffv1.File_thumela_bff_v1_bff_proto.Services()
	for i := range services.Len() {
		methods := services.Get(i).Methods()
		for j := range methods.Len() {
			m := methods.Get(j)
			if m.IsStreamingClient() || m.IsStreamingServer() {
				continue
			}
			paths = append(paths, "/"+string(services.Get(i).FullName())+"/"+string(m.Name()))
			inputs = append(inputs, m.Input())
		}
	}
	return paths, inputs
}

// FuzzConnectRequests posts arbitrary bodies, in Connect's JSON and binary encodings, to every
// unary RPC of the BFF as a signed-in browser would. Whatever arrives, the answer is a Connect
// answer (200 with a message, or an error with a code), a body that is not the procedure's
// request message is invalid_argument, and nothing answers 5xx with a code that blames the
// server for the client's bytes. The upstreams are the tests' fakes, which implement only what
// the other tests need: their Unimplemented passes through and is not a failure.
func FuzzConnectRequests(f *testing.F) {
	paths, inputs := unaryProcedures()
	f.Add(uint16(0), false, []byte(`{}`))
	f.Add(uint16(1), false, []byte(`{"amountCents":"50000","recipientPhone":"082 123 4567"}`))
	f.Add(uint16(2), true, []byte{0x0a, 0x03, 'a', 'b', 'c'})
	f.Add(uint16(3), false, []byte(`{"email":"\u0000@x","password":"`+string(bytes.Repeat([]byte("a"), 300))+`"}`))
	f.Add(uint16(4), true, []byte{0xff, 0xff, 0xff})
	f.Add(uint16(5), false, []byte(`[`))
	b := newTransfersBFF(f)
	f.Fuzz(func(t *testing.T, which uint16, binary bool, body []byte) {
		i := int(which) % len(paths)
		contentType := "application/json"
		// Connect's JSON codec ignores unknown fields (a newer client's), as here.
		decodes := protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, dynamicpb.NewMessage(inputs[i])) == nil
		if binary {
			contentType = "application/proto"
			decodes = proto.Unmarshal(body, dynamicpb.NewMessage(inputs[i])) == nil
		}
		req, err := http.NewRequest(http.MethodPost, b.srv.URL+paths[i], bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		res, err := b.hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", paths[i], err)
		}
		defer res.Body.Close()
		answer, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode == http.StatusOK {
			if !decodes {
				t.Fatalf("%s accepted a body that is not its request message: %q", paths[i], body)
			}
			return
		}
		var wireErr struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(answer, &wireErr); err != nil || wireErr.Code == "" {
			t.Fatalf("%s answered %d with a body that is not a Connect error: %q", paths[i], res.StatusCode, answer)
		}
		var code connect.Code
		if err := code.UnmarshalText([]byte(wireErr.Code)); err != nil {
			t.Fatalf("%s answered the unknown code %q", paths[i], wireErr.Code)
		}
		if !decodes && code != connect.CodeInvalidArgument {
			t.Fatalf("%s answered %v to an undecodable body, want invalid_argument", paths[i], code)
		}
		switch code {
		case connect.CodeInternal, connect.CodeUnknown, connect.CodeDataLoss:
			t.Fatalf("%s answered %v (%s) to %q", paths[i], code, answer, body)
		}
	})
}
