// Package codec holds the BFF's Connect codecs: connect's own protobuf binary and JSON codecs,
// byte for byte, except for a request body that does not decode. connect's answer to that,
// "unmarshal message: unmarshal into *bffv1.CreateTransferRequest: proto: syntax error …",
// names the BFF's Go types and libraries to whoever probes it; these answer one plain sentence.
//
// A codec cannot say that sentence by failing: connect puts "unmarshal message: " before
// whatever Unmarshal returns (a *connect.Error too), and reads a unary request before any
// interceptor runs. So on a body that does not decode the codecs empty the message, mark it and
// succeed, and an interceptor answers the marked message with the codec's sentence before the
// handler, or any other interceptor, sees it. The codecs are therefore not exported: they come
// only with that interceptor, in HandlerOption.
package codec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// The answers to a body that does not decode, in the product's words: they say what is wrong
// with the request and nothing of what read it.
const (
	notJSON    = "The request body is not valid JSON for this call."
	notMessage = "The request body is not a valid message for this call."
)

// undecodableField carries the mark, as the message's only unknown field. Its number is in
// the range protobuf keeps for itself (19000–19999), so no message of the contract declares
// it; its value says which codec failed.
const undecodableField protowire.Number = 19999

var (
	undecodableJSON   = undecodableMark(1)
	undecodableBinary = undecodableMark(2)
)

func undecodableMark(codec uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, undecodableField, protowire.VarintType), codec)
}

// HandlerOption puts the BFF's codecs in place of connect's ("proto", and "json" under both
// names connect gives it) and adds the interceptor that refuses what they could not decode. It
// must come before the handler's other interceptors, so that none of them (the rate limiter
// reads the request) sees an emptied message.
func HandlerOption() connect.HandlerOption {
	return connect.WithHandlerOptions(
		connect.WithInterceptors(refuseUndecodable{}),
		connect.WithCodec(protoBinary{}),
		connect.WithCodec(protoJSON{name: "json"}),
		// connect looks a codec up by the Content-Type's subtype and parameters: a browser's
		// "application/json; charset=utf-8" would otherwise reach connect's own JSON codec.
		connect.WithCodec(protoJSON{name: "json; charset=utf-8"}),
	)
}

// errNotProto is a programming error (every BFF message is generated), never a client's.
var errNotProto = errors.New("the BFF's codecs encode protocol buffer messages only")

func asProto(message any) (proto.Message, error) {
	m, ok := message.(proto.Message)
	if !ok {
		return nil, errNotProto
	}
	return m, nil
}

// markUndecodable leaves m with nothing of the body, only the mark.
func markUndecodable(m proto.Message, mark []byte) {
	proto.Reset(m)
	m.ProtoReflect().SetUnknown(slices.Clone(mark))
}

// refusal is the answer to a message a codec marked, or nil. A binary body can carry the mark
// itself; it then gets the same refusal, as it is no request of the contract either.
func refusal(message any) error {
	m, ok := message.(proto.Message)
	if !ok {
		return nil
	}
	unknown := m.ProtoReflect().GetUnknown()
	switch {
	case len(unknown) == 0:
		return nil
	case bytes.Equal(unknown, undecodableJSON):
		return rpcerr.InvalidArgument(notJSON)
	case bytes.Equal(unknown, undecodableBinary):
		return rpcerr.InvalidArgument(notMessage)
	}
	return nil
}

// refuseUndecodable answers a marked request. A unary RPC's request is read before the
// interceptors, a streaming RPC's inside them, when the handler receives it.
type refuseUndecodable struct{}

func (refuseUndecodable) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if err := refusal(req.Any()); err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

func (refuseUndecodable) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (refuseUndecodable) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		return next(ctx, refusingConn{conn})
	}
}

type refusingConn struct {
	connect.StreamingHandlerConn
}

func (c refusingConn) Receive(message any) error {
	if err := c.StreamingHandlerConn.Receive(message); err != nil {
		return err
	}
	return refusal(message)
}

// protoBinary is connect's protoBinaryCodec, MarshalAppend, MarshalStable and IsBinary
// included, so that connect encodes every answer as it did.
type protoBinary struct{}

func (protoBinary) Name() string   { return "proto" }
func (protoBinary) IsBinary() bool { return true }

func (protoBinary) Marshal(message any) ([]byte, error) {
	m, err := asProto(message)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(m)
}

func (protoBinary) MarshalAppend(dst []byte, message any) ([]byte, error) {
	m, err := asProto(message)
	if err != nil {
		return nil, err
	}
	return proto.MarshalOptions{}.MarshalAppend(dst, m)
}

func (protoBinary) MarshalStable(message any) ([]byte, error) {
	m, err := asProto(message)
	if err != nil {
		return nil, err
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

func (protoBinary) Unmarshal(data []byte, message any) error {
	m, err := asProto(message)
	if err != nil {
		return err
	}
	if proto.Unmarshal(data, m) != nil {
		markUndecodable(m, undecodableBinary)
	}
	return nil
}

// protoJSON is connect's protoJSONCodec: protojson's defaults (the contract's lowerCamelCase
// JSON names) out, unknown fields discarded on the way in.
type protoJSON struct {
	name string
}

func (c protoJSON) Name() string { return c.name }
func (protoJSON) IsBinary() bool { return false }

func (protoJSON) Marshal(message any) ([]byte, error) {
	m, err := asProto(message)
	if err != nil {
		return nil, err
	}
	return protojson.MarshalOptions{}.Marshal(m)
}

func (protoJSON) MarshalAppend(dst []byte, message any) ([]byte, error) {
	m, err := asProto(message)
	if err != nil {
		return nil, err
	}
	return protojson.MarshalOptions{}.MarshalAppend(dst, m)
}

// MarshalStable compacts protojson's output, whose whitespace protojson varies on purpose.
func (c protoJSON) MarshalStable(message any) ([]byte, error) {
	messageJSON, err := c.Marshal(message)
	if err != nil {
		return nil, err
	}
	compacted := bytes.NewBuffer(messageJSON[:0])
	if err := json.Compact(compacted, messageJSON); err != nil {
		return nil, err
	}
	return compacted.Bytes(), nil
}

func (protoJSON) Unmarshal(data []byte, message any) error {
	m, err := asProto(message)
	if err != nil {
		return err
	}
	// An empty body is no JSON object, as connect's codec says; unknown fields are a newer
	// client's and dropped, as connect's codec drops them.
	if len(data) == 0 || (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, m) != nil {
		markUndecodable(m, undecodableJSON)
	}
	return nil
}
