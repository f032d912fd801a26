package bench

import (
	"context"
	"sync/atomic"
	"time"
)

// createLevel is a create-transfer phase at a level other than -clients (raw.create_transfer_levels).
type createLevel struct {
	Senders int `json:"senders"`
	Summary
	LimitErrors int64 `json:"limit_errors"`
	// Pgbench is the transfer transaction at the same client count, right before the phase.
	Pgbench         *PgbenchResult `json:"pgbench_same_clients,omitempty"`
	DrainSeconds    float64        `json:"drain_seconds"`
	DrainUnfinished int            `json:"drain_unfinished"`
	DrainError      string         `json:"drain_error,omitempty"`
	// SettleSeconds is how long the machine took to go quiet after the worker caught up.
	SettleSeconds float64 `json:"settle_seconds"`
}

// createAtOtherLevels runs 2. at the levels other than -clients, lowest first, each with users of
// its own, pgbench at the same client count right before it, and the worker's catch-up after it.
// Their rows are made once 1a is known (levelFigures).
func (r *runner) createAtOtherLevels(ctx context.Context, pool *userPool, pg *baselines) []createLevel {
	o := r.cfg
	var levels []createLevel
	for _, n := range o.Levels[1:] {
		lv := createLevel{Senders: n}
		if o.LevelPgbench {
			if res, ok := pg.transferAt(ctx, n); ok {
				lv.Pgbench = &res
			}
		}
		senders := pool.take(n)
		lv.Summary, _, lv.LimitErrors = r.createLoad(ctx, "create-transfer, "+Count(n, "sender"), senders, o.LevelWarmup, o.LevelDuration)
		from, logFrom := r.meter(), r.logSize()
		waited, left, err := Drain(ctx, senders, o.DrainTimeout)
		r.cpu("worker catch-up, "+Count(n, "sender"), from)
		r.rpcs("worker catch-up, "+Count(n, "sender"), logFrom)
		lv.DrainSeconds, lv.DrainUnfinished = waited.Seconds(), left
		if err != nil {
			lv.DrainError = err.Error()
		}
		r.step("  worker caught up in %.1f s (%d unfinished)", waited.Seconds(), left)
		lv.SettleSeconds = r.settle(ctx, "create-transfer, "+Count(n, "sender")).Seconds()
		levels = append(levels, lv)
	}
	if len(levels) > 0 {
		r.raw["create_transfer_levels"] = levels
	}
	return levels
}

// createAtTarget runs 1a (and its pg_notify diagnostic), then 2. at -clients, the target level,
// then waits for the worker to finish the phase's transfers and for the machine to go quiet
// (their SMS and e-mails sent), so that its work does not land on the next phase. It returns 1a, which the other phases compare with.
func (r *runner) createAtTarget(ctx context.Context, senders []*User, pg *baselines) (PgbenchResult, bool) {
	o := r.cfg
	transfer, haveTransfer := pg.transfer(ctx)
	if haveTransfer {
		r.add(transferBaselineFigure(transfer))
		if o.NotifyBaseline {
			if notify, ok := pg.transferNotify(ctx); ok {
				r.add(notifyFigure(notify, transfer))
			}
		}
	}
	create, createCPU, limitErrors := r.createLoad(ctx, "create-transfer", senders, o.Warmup, o.Duration)
	r.raw["create_transfer"] = create
	r.raw["create_transfer_limit_errors"] = limitErrors
	r.add(loadFigures("2. create-transfer", ", "+Count(o.Clients, "sender"), o.Clients, create, transfer, haveTransfer, 0.40, 2.0)...)
	r.add(cpuPerCallFigures("create-transfer", create, createCPU, transfer, pg.usage["transfer"], haveTransfer)...)

	r.step("waiting for the transfers worker to finish the create phase's transfers")
	from, logFrom := r.meter(), r.logSize()
	waited, left, err := Drain(ctx, senders, o.DrainTimeout)
	catchUpCPU := r.cpu("worker catch-up", from)
	catchUpRPCs := r.rpcs("worker catch-up", logFrom)
	r.raw["drain_seconds"] = waited.Seconds()
	r.raw["drain_unfinished"] = left
	if err != nil {
		r.fail("   worker catch-up", "", err)
	} else {
		r.add(catchUpFigures(waited, left, catchUpRPCs, catchUpCPU)...)
	}
	r.raw["settle_seconds"] = r.settle(ctx, "create-transfer").Seconds()
	return transfer, haveTransfer
}

// createLoad drives CreateTransfer through the whole stack, one worker per sender. It returns
// the phase's summary, its CPU and how many calls a transfer limit refused.
func (r *runner) createLoad(ctx context.Context, phase string, senders []*User, warmup, d time.Duration) (Summary, CPUUsage, int64) {
	r.step("%s: %d clients, %s warm-up + %s", phase, len(senders), warmup, d)
	// Each sender confirms it is them (FinishStepUp with the password, as the wizard's
	// "Confirm it's you") before its transfers, untimed: the bench's recipient is new to
	// it, and every create then runs transfers' step-up check on a fresh "sua" claim.
	if err := StepUpAll(ctx, senders, 8); err != nil {
		r.fail(phase, "", err)
		r.step("%s: could not step the senders up: %v", phase, err)
		return Summary{}, CPUUsage{}, 0
	}
	var limitErrors atomic.Int64
	from, logFrom := r.meter(), r.logSize()
	s := ClosedLoop(ctx, len(senders), warmup, d, func(ctx context.Context, w, _ int) error {
		u := senders[w]
		_, err := u.Transfers.CreateTransfer(ctx, TransferRequest(u))
		if err != nil && IsLimitError(err) {
			limitErrors.Add(1)
		}
		return err
	})
	u := r.cpu(phase, from)
	r.rpcs(phase, logFrom)
	r.step("%s: %.0f tps, p50 %.1f ms, p99 %.1f ms, %d errors %v", phase, s.TPS, s.P50ms, s.P99ms, s.Errors, s.ErrorSamples)
	return s, u, limitErrors.Load()
}
