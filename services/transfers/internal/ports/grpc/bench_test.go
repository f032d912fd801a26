package grpcport_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// BenchmarkCreateTransfer measures CreateTransfer end to end over gRPC on loopback: token
// check, validation, the idempotency look-up, the (fake) paymentmethods and fees calls, and
// the create transaction (sender lock, usage, insert, outbox event and its NOTIFY) on a real
// PostgreSQL. "serial" is one sender; "parallel" is one sender per goroutine.
//
//	go test -run '^$' -bench CreateTransfer ./internal/ports/grpc/
func BenchmarkCreateTransfer(b *testing.B) {
	huge := domain.Limits{Minimum: domain.Cents(100), PerTransfer: domain.Cents(1 << 40), Daily: domain.Cents(1 << 50),
		Monthly: domain.Cents(1 << 51), Yearly: domain.Cents(1 << 52)}
	b.Run("serial", func(b *testing.B) {
		e := testkit.New(b, testkit.Options{Limits: huge, MaxConns: 8})
		user, pm := e.NewUser()
		ctx := e.Ctx(b, user)
		i := 0
		for b.Loop() {
			i++
			if _, err := e.Client.CreateTransfer(ctx, testkit.Request(fmt.Sprintf("bench-%d", i), pm)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		e := testkit.New(b, testkit.Options{Limits: huge, MaxConns: 8})
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			user, pm := e.NewUser()
			ctx := e.Ctx(b, user)
			for pb.Next() {
				if _, err := e.Client.CreateTransfer(ctx, testkit.Request(fmt.Sprintf("bench-%d", n.Add(1)), pm)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
