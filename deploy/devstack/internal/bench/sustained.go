package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
)

// SustainedConfig says how the created-and-completed phase runs.
type SustainedConfig struct {
	Warmup, Duration time.Duration
	// Timeout bounds one transfer's wait for its final status; a transfer not finished by then
	// counts as an error (and the sender goes on).
	Timeout time.Duration
	// NatsURL and NatsSeedFile (the observer's NKey seed) are where the status events are read.
	NatsURL, NatsSeedFile string
}

// SustainedResult is what the created-and-completed phase measured.
type SustainedResult struct {
	// Summary counts transfers created and completed inside the window; its latency is from
	// sending CreateTransfer to the completed event on NATS.
	Summary
	// Failed counts the transfers that ended failed (errors, not in Count).
	Failed int `json:"failed"`
	// CreateP50ms is the CreateTransfer call alone, for the split.
	CreateP50ms float64 `json:"create_p50_ms"`
	// SettleSeconds is how long the machine took to go quiet after the phase; its CPU is
	// counted in 2c.
	SettleSeconds float64 `json:"settle_seconds"`
}

// waiter hands each transfer's final status to the sender waiting for it. A status may arrive
// before the sender has registered (the event can beat CreateTransfer's answer), so finished
// ids are remembered until claimed.
type waiter struct {
	mu       sync.Mutex
	waiting  map[string]chan bool // id → completed (true) or failed
	finished map[string]bool
}

func (w *waiter) done(id string, completed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.waiting[id]; ok {
		delete(w.waiting, id)
		ch <- completed
		return
	}
	w.finished[id] = completed
}

func (w *waiter) wait(id string) chan bool {
	ch := make(chan bool, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if completed, ok := w.finished[id]; ok {
		delete(w.finished, id)
		ch <- completed
		return ch
	}
	w.waiting[id] = ch
	return ch
}

func (w *waiter) forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.waiting, id)
}

// Sustained measures what the stack sustains end to end: each sender creates a transfer through
// the BFF and waits for it to be completed (its status event on NATS) before the next, in a
// closed loop. The throughput counts only transfers that were created and completed inside the
// window, so no backlog is left for the worker to finish later and none is hidden: the creates
// and the worker's claim, charge and voucher share the machine as they do in production. The
// senders must have stepped up (StepUpAll) before.
func Sustained(ctx context.Context, senders []*User, cfg SustainedConfig) (SustainedResult, error) {
	if cfg.NatsURL == "" {
		return SustainedResult{}, errors.New("no NATS to read the status events from")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	creds, err := bus.Credentials{NKeySeedFile: cfg.NatsSeedFile, Identity: bus.IdentityObserver}.Options()
	if err != nil {
		return SustainedResult{}, fmt.Errorf("tap NATS: %w", err)
	}
	nc, err := nats.Connect(cfg.NatsURL, append(creds, nats.Name("thumela-bench-sustained"))...)
	if err != nil {
		return SustainedResult{}, fmt.Errorf("tap NATS: %w", err)
	}
	defer nc.Close()
	w := &waiter{waiting: map[string]chan bool{}, finished: map[string]bool{}}
	if _, err := nc.Subscribe("thumela.transfers.*.status", func(m *nats.Msg) {
		var ev transfersv1.TransferStatusChanged
		if proto.Unmarshal(m.Data, &ev) != nil {
			return
		}
		switch ev.GetTransfer().GetStatus() {
		case transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED:
			w.done(ev.GetTransfer().GetId(), true)
		case transfersv1.TransferStatus_TRANSFER_STATUS_FAILED:
			w.done(ev.GetTransfer().GetId(), false)
		}
	}); err != nil {
		return SustainedResult{}, fmt.Errorf("tap NATS: %w", err)
	}
	if err := nc.Flush(); err != nil {
		return SustainedResult{}, fmt.Errorf("tap NATS: %w", err)
	}
	var mu sync.Mutex
	var createLat []time.Duration
	failed := 0
	s := ClosedLoop(ctx, len(senders), cfg.Warmup, cfg.Duration, func(ctx context.Context, i, _ int) error {
		u := senders[i]
		t0 := time.Now()
		res, err := u.Transfers.CreateTransfer(ctx, TransferRequest(u))
		if err != nil {
			return err
		}
		created := time.Since(t0)
		id := res.GetTransfer().GetId()
		ch := w.wait(id)
		select {
		case completed := <-ch:
			mu.Lock()
			defer mu.Unlock()
			createLat = append(createLat, created)
			if !completed {
				failed++
				return errors.New("the transfer failed")
			}
			return nil
		case <-time.After(cfg.Timeout):
			w.forget(id)
			return fmt.Errorf("not completed within %s", cfg.Timeout)
		case <-ctx.Done():
			w.forget(id)
			return ctx.Err()
		}
	})
	return SustainedResult{Summary: s, Failed: failed, CreateP50ms: Summarize(createLat, 0, 0, nil).P50ms}, nil
}

// sustained runs 2b and 2c, the created-and-completed phase (Sustained), with the target level's
// senders, after the worker has caught up with their earlier transfers.
func (r *runner) sustained(ctx context.Context, ready stack.Ready, senders []*User, base PgbenchResult, baseCPU CPUUsage, haveBase bool) {
	o := r.cfg
	phase := "created and completed"
	r.step("%s: %d senders, each waiting for its transfer's completed event, %s warm-up + %s", phase, len(senders), o.Warmup, o.Sustained)
	if err := StepUpAll(ctx, senders, 8); err != nil { // untimed, as before every create phase
		r.fail("2b. created and completed", "≥ 0.10", err)
		return
	}
	from, logFrom := r.meter(), r.logSize()
	res, err := Sustained(ctx, senders, SustainedConfig{Warmup: o.Warmup, Duration: o.Sustained, NatsURL: ready.NatsURL, NatsSeedFile: ready.NatsObserverSeedFile})
	// The CPU counted for 2c runs on until the machine is quiet again: the SMS, e-mails and
	// events of the phase's last transfers are theirs, and a stack that falls behind during the
	// phase (notifications) must not look cheaper for the work it left.
	if err == nil {
		res.SettleSeconds = r.settle(ctx, phase).Seconds()
	}
	u := r.cpu(phase+", and until the machine was quiet", from)
	r.rpcs(phase, logFrom)
	if err != nil {
		r.fail("2b. created and completed", "≥ 0.10", err)
		return
	}
	r.raw["created_and_completed"] = res
	r.step("%s: %.0f tps, create to completed p50 %.1f ms, p99 %.1f ms, %d errors %v", phase, res.TPS, res.P50ms, res.P99ms, res.Errors, res.ErrorSamples)
	r.add(SustainedFigures(res, len(senders), u, base, baseCPU, haveBase)...)
}

// SustainedFigures makes the rows of the created-and-completed phase: its throughput against
// pgbench's transfer transaction (1a), and the whole stack's CPU per completed transfer against
// one pgbench transaction's (both measured in the same run).
func SustainedFigures(r SustainedResult, senders int, u CPUUsage, base PgbenchResult, baseCPU CPUUsage, haveBase bool) []Figure {
	name := fmt.Sprintf("2b. created and completed, %.0f s", r.Seconds)
	if r.Count == 0 {
		msg := "no transfer was created and completed"
		if len(r.ErrorSamples) > 0 {
			msg += ": " + fmt.Sprint(r.ErrorSamples)
		}
		return []Figure{{Name: name, Target: "≥ 0.10", Result: Error, Error: msg}}
	}
	detail := fmt.Sprintf("%d senders, each creating and waiting for the completed event: %d transfers in %.0f s, %d errors (%d failed); create p50 %.1f ms, create to completed p50 %.1f / p99 %.1f ms",
		senders, r.Count, r.Seconds, r.Errors, r.Failed, r.CreateP50ms, r.P50ms, r.P99ms)
	if len(r.ErrorSamples) > 0 {
		detail += ": " + fmt.Sprint(r.ErrorSamples)
	}
	tps := Figure{Name: name, Unit: "tps", Measured: F(r.TPS), Target: "≥ 0.10", Detail: detail, Result: Info}
	if haveBase && base.TPS > 0 {
		tps.Baseline, tps.Ratio = F(base.TPS), F(r.TPS/base.TPS)
		tps.Check(*tps.Ratio, 0.10, true)
		if r.Errors > 0 && tps.Result == Pass {
			tps.Result, tps.Detail = Miss, tps.Detail+" (a phase with errors is not a pass)"
		}
	} else {
		tps.Result, tps.Error = Error, "no pgbench baseline to compare with"
	}
	out := []Figure{tps}
	if r.Total > 0 && u.Wall > 0 {
		stackMs := StackMsPer(u, r.Total)
		f := Figure{Name: "2c. CPU per completed transfer", Unit: "ms", Measured: F(stackMs), Target: "≤ 5 pgbench txns", Result: Info,
			Detail: fmt.Sprintf("every process of the stack, its PostgreSQL backends, PostgreSQL's own processes and the load generator: %.2f cores for %d transfers created and completed in %.1f s (the warm-up, and the %.1f s after the phase until the machine was quiet, included); ratio: in pgbench transfer transactions' worth",
				u.Ours()-u.Cores[PgbenchDB]-u.Cores[PgbenchClient], r.Total, u.Wall, r.SettleSeconds)}
		if pg := PgbenchMsPer(baseCPU, base.Count); haveBase && pg > 0 {
			f.Baseline, f.Ratio = F(pg), F(stackMs/pg)
			f.Check(*f.Ratio, 5, false)
		}
		out = append(out, f)
	}
	return out
}

// Groups of PostgreSQL backends in the CPU figures: the stack's database and pgbench's. The
// stack's backends are counted by service where their connection names one ("postgres for
// transfers", backends.go); StackDB holds the rest.
const (
	StackDB   = "postgres (stack's database)"
	PgbenchDB = "postgres (pgbench's database)"
)

// StackMsPer is the stack's CPU per operation, in ms: every process but pgbench and its
// backends (the stack's children, their backends, PostgreSQL's own processes, this process:
// the load generator and NATS), over n operations.
func StackMsPer(u CPUUsage, n int) float64 {
	if n == 0 {
		return 0
	}
	return (u.Ours() - u.Cores[PgbenchDB] - u.Cores[PgbenchClient]) * u.Wall / float64(n) * 1000
}

// PgbenchMsPer is pgbench's CPU per transaction, in ms: its client, its backends and the
// server's own processes, over n transactions.
func PgbenchMsPer(u CPUUsage, n int) float64 {
	if n == 0 || u.Wall == 0 {
		return 0
	}
	return (u.Cores[PgbenchDB] + u.Cores[PgbenchClient] + u.Cores[PostgresServer]) * u.Wall / float64(n) * 1000
}
