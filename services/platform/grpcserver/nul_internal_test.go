package grpcserver

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// nulField finds a NUL however the string is held: a field, a nested message, a list element,
// a map key or a map value; bytes are not text.
func TestNULField(t *testing.T) {
	t.Parallel()
	nested := func(s string) *structpb.Struct {
		return &structpb.Struct{Fields: map[string]*structpb.Value{
			"outer": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
				"inner": structpb.NewStringValue(s),
			}}),
		}}
	}
	list, err := structpb.NewList([]any{"fine", "bad\x00"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		msg  interface{ ProtoReflect() protoreflect.Message }
		want string
	}{
		{"clean string", wrapperspb.String("héllo\t\u202e"), ""},
		{"string", wrapperspb.String("a\x00b"), "value"},
		{"bytes are not text", wrapperspb.Bytes([]byte{0, 1, 2}), ""},
		{"map value, nested", nested("x\x00"), "fields.struct_value.fields.string_value"},
		{"clean nested", nested("x"), ""},
		{"map key", &structpb.Struct{Fields: map[string]*structpb.Value{"k\x00": structpb.NewNullValue()}}, "fields"},
		{"list element", list, "values.string_value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := nulField(tc.msg.ProtoReflect()); got != tc.want {
				t.Errorf("nulField = %q, want %q", got, tc.want)
			}
			if err := refuseNUL(tc.msg); (err != nil) != (tc.want != "") {
				t.Errorf("refuseNUL = %v, want an error: %v", err, tc.want != "")
			}
		})
	}
}
