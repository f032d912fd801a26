package grpcserver_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
)

// A NUL in a request's text used to reach PostgreSQL, which refuses it in text (SQLSTATE
// 22021): Internal and an ERROR log line per call, e.g. identity's SignIn with
// "a\u0000@example.com", signed out. Every server now refuses it, naming the field, before its
// handler runs (the fake's SignIn would block until the deadline if it were called).
func TestNULInTextIsRefusedBeforeTheHandler(t *testing.T) {
	t.Parallel()
	fake := newFakeIdentity()
	ts := start(t, fake, 5*time.Second)
	identity := identityv1.NewIdentityServiceClient(ts.conn)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := identity.SignIn(ctx, &identityv1.SignInRequest{Email: "alice\x00@example.com", Password: "correct horse"})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || st.Message() != "The request contains a character that is not allowed." {
		t.Fatalf("SignIn with a NUL = %v %q, want InvalidArgument", st.Code(), st.Message())
	}
	var fields []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
		}
	}
	if len(fields) != 1 || fields[0] != "email" {
		t.Errorf("violations name %v, want [email]", fields)
	}
	select {
	case <-fake.signInStarted:
		t.Fatal("the handler ran")
	default:
	}

	// Text without a NUL still reaches the handler, other control characters included (the
	// services' own rules decide about those).
	done := make(chan error, 1)
	go func() {
		_, err := identity.SignIn(ctx, &identityv1.SignInRequest{Email: "alice@example.com", Password: "tab\there"})
		done <- err
	}()
	select {
	case <-fake.signInStarted:
		close(fake.release)
	case <-ctx.Done():
		t.Fatal("a request without a NUL did not reach the handler")
	}
	if err := <-done; err != nil {
		t.Fatalf("SignIn without a NUL: %v", err)
	}
}
