package grpcserver

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// NUL in text: PostgreSQL's text cannot hold U+0000, so a request string carrying one used to
// reach the database and come back as "invalid byte sequence for encoding UTF8" (SQLSTATE
// 22021): an Internal answer and an ERROR line per call, which a signed-out caller could
// provoke at will (SignIn with "a\u0000@b"). No person types a NUL and no field of any
// Thumela API may hold one, so every server refuses it before the handler runs, whichever
// field and however deep.
const (
	nulMessage   = "The request contains a character that is not allowed."
	nulViolation = "This field contains a character that is not allowed."
)

// nulField returns the path ("withdrawal_location.name") of the first string field, list
// element, map key or map value of m holding a NUL, or "" when there is none. Bytes fields are
// not text and are not looked at.
func nulField(m protoreflect.Message) string {
	var found string
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if sub := nulValue(fd, v); sub != "" {
			found = string(fd.Name())
			if sub != "." {
				found += "." + sub
			}
			return false
		}
		return true
	})
	return found
}

// nulValue says whether the field fd's value v holds a NUL: "" for no, "." for this field
// itself, or the path below it.
func nulValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch {
	case fd.IsList():
		l := v.List()
		for i := range l.Len() {
			if sub := nulScalar(fd, l.Get(i)); sub != "" {
				return sub
			}
		}
		return ""
	case fd.IsMap():
		var found string
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if fd.MapKey().Kind() == protoreflect.StringKind && strings.IndexByte(k.String(), 0) >= 0 {
				found = "."
				return false
			}
			found = nulScalar(fd.MapValue(), mv)
			return found == ""
		})
		return found
	default:
		return nulScalar(fd, v)
	}
}

// nulScalar is nulValue for one value of fd's kind (a list element or a map value).
func nulScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if strings.IndexByte(v.String(), 0) >= 0 {
			return "."
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return nulField(v.Message())
	default:
	}
	return ""
}

// refuseNUL returns InvalidArgument naming the field when req is a message with a NUL in a
// string, nil otherwise.
func refuseNUL(req any) error {
	m, ok := req.(proto.Message)
	if !ok {
		return nil
	}
	if field := nulField(m.ProtoReflect()); field != "" {
		return BadRequestOrdered(nulMessage, FieldViolation{Field: field, Description: nulViolation})
	}
	return nil
}

// unaryRefuseNUL runs after the auth interceptors, so a caller without a valid token learns
// nothing from it.
func unaryRefuseNUL(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := refuseNUL(req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func streamRefuseNUL(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, nulCheckedStream{ss})
}

// nulCheckedStream refuses each received message with a NUL in a string.
type nulCheckedStream struct{ grpc.ServerStream }

func (s nulCheckedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return refuseNUL(m)
}
