package outbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/postgres"
)

// BenchmarkOutboxCommitToJetStream measures one event's path from the writer's COMMIT to a
// JetStream consumer's callback: relay wake-up, select, publish, ack, mark, commit, delivery.
// Each iteration waits for its message, so ns/op is end-to-end latency including the write
// transaction; p50-ms and p99-ms are commit → received only.
//
// InTx is the services' path (an in-memory wake-up after commit); Begin is Write's fallback
// for transactions postgres.InTx did not start (pg_notify, delivered to the relay's LISTEN).
func BenchmarkOutboxCommitToJetStream(b *testing.B) {
	b.Run("InTx", func(b *testing.B) {
		benchCommitToJetStream(b, func(ctx context.Context, pool postgres.TxBeginner, msg outbox.Message) error {
			return postgres.InTx(ctx, pool, func(tx pgx.Tx) error { return outbox.Write(ctx, tx, msg) })
		})
	})
	b.Run("Begin", func(b *testing.B) { benchCommitToJetStream(b, writeOutsideInTx) })
}

func benchCommitToJetStream(b *testing.B, write func(context.Context, postgres.TxBeginner, outbox.Message) error) {
	e := newEnv(b)
	e.startRelay(b, nil)

	received := make(chan time.Time, 1)
	cons, err := e.js.OrderedConsumer(b.Context(), bus.StreamEvents, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{"thumela.transfers.bench.>"},
		DeliverPolicy:  jetstream.DeliverNewPolicy,
	})
	if err != nil {
		b.Fatal(err)
	}
	cc, err := cons.Consume(func(jetstream.Msg) { received <- time.Now() })
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()

	msg := message(b, "bench", "status")
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		if err := write(b.Context(), e.pool, msg); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		select {
		case at := <-received:
			latencies = append(latencies, at.Sub(committed))
		case <-time.After(10 * time.Second):
			b.Fatal("message not received within 10 s")
		}
	}
	b.StopTimer()
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}
