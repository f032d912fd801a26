package auth

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestRequireUser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ctx  context.Context
		want codes.Code
	}{
		{"user token", NewContext(context.Background(), Claims{Subject: "u1", Kind: KindUser}), codes.OK},
		{"service token", NewContext(context.Background(), Claims{Subject: "transfers", Kind: KindService}), codes.Unauthenticated},
		{"no token", context.Background(), codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := RequireUser(tt.ctx)
			if status.Code(err) != tt.want {
				t.Fatalf("RequireUser = %v, %v; want %v", c, err, tt.want)
			}
			if err == nil && c.Subject != "u1" {
				t.Fatalf("subject = %q", c.Subject)
			}
		})
	}
}
