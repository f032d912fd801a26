package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

// baselines runs pgbench's transactions (1.) on a database of its own, seeded once, each right
// before the stack phase it is the baseline of, so that both see the same machine.
type baselines struct {
	r  *runner
	pg *Pgbench
	// err is why there is no baseline database; every baseline is then missing.
	err error
	// usage is the CPU of each run, by its script's name.
	usage map[string]CPUUsage
}

func (r *runner) startBaselines(ctx context.Context, ready stack.Ready, workDir string) *baselines {
	o := r.cfg
	b := &baselines{r: r, usage: map[string]CPUUsage{}}
	b.pg, b.err = NewPgbench(ctx, PgbenchConfig{
		ServerURL: ready.DatabaseURL, Clients: o.Clients, Threads: o.PgbenchThreads,
		Duration: o.PgbenchDuration, RowsPerUser: o.RowsPerUser, WorkDir: workDir, MaxClients: slices.Max(o.Levels),
		Around: func(name string) func() {
			m := r.meter()
			return func() { b.usage[name] = r.cpu("pgbench "+name, m) }
		},
	})
	if b.err != nil {
		r.fail("1. pgbench baselines", "", b.err)
	} else {
		r.databases[b.pg.Database()] = PgbenchDB
	}
	return b
}

func (b *baselines) close() {
	if b.err == nil {
		b.pg.Close()
	}
}

// transfer is 1a: the transfer transaction at -clients.
func (b *baselines) transfer(ctx context.Context) (PgbenchResult, bool) {
	return b.run(ctx, "transfer", b.r.cfg.Clients, b.r.cfg.PgbenchDuration, b.pg.Transfer)
}

// transferAt is the transfer transaction at another level's client count, for -level-duration.
func (b *baselines) transferAt(ctx context.Context, clients int) (PgbenchResult, bool) {
	d := b.r.cfg.LevelDuration
	return b.run(ctx, fmt.Sprintf("transfer_c%d", clients), clients, d, func(ctx context.Context) (PgbenchResult, error) {
		return b.pg.TransferAt(ctx, clients, d)
	})
}

// transferNotify is 1a with a pg_notify, as the outboxes do (a diagnostic).
func (b *baselines) transferNotify(ctx context.Context) (PgbenchResult, bool) {
	return b.run(ctx, "transfer_notify", b.r.cfg.Clients, b.r.cfg.PgbenchDuration, b.pg.TransferNotify)
}

// history is 1b: the read of a user's 10 newest rows, at -clients.
func (b *baselines) history(ctx context.Context) (PgbenchResult, bool) {
	return b.run(ctx, "history", b.r.cfg.Clients, b.r.cfg.PgbenchDuration, b.pg.History)
}

// run runs one baseline (f, which runs name's script with clients for d) and keeps it under
// raw.pgbench_<name>; false when there is none.
func (b *baselines) run(ctx context.Context, name string, clients int, d time.Duration, f func(context.Context) (PgbenchResult, error)) (PgbenchResult, bool) {
	if b.err != nil {
		return PgbenchResult{}, false
	}
	r := b.r
	r.step("pgbench %s: %d clients, %d threads, %s", name, clients, min(r.cfg.PgbenchThreads, clients), d)
	res, err := f(ctx)
	if err != nil {
		r.fail("1. pgbench "+name, "", err)
		return res, false
	}
	r.raw["pgbench_"+name] = res
	r.step("pgbench %s: %.0f tps, p50 %.2f ms, p99 %.2f ms", name, res.TPS, res.P50ms, res.P99ms)
	return res, true
}
