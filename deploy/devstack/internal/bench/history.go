package bench

import (
	"context"
	"errors"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// historyPage runs 1b, then 3.: the history page (ListTransfers page 1, size 5) through the whole
// stack, one worker per sender.
func (r *runner) historyPage(ctx context.Context, senders []*User, pg *baselines) {
	o := r.cfg
	history, haveHistory := pg.history(ctx)
	if haveHistory {
		r.add(historyBaselineFigure(history))
	}
	r.step("history page (ListTransfers page 1, size 5): %d clients, %s warm-up + %s", o.Clients, o.Warmup, o.Duration)
	from, logFrom := r.meter(), r.logSize()
	list := ClosedLoop(ctx, o.Clients, o.Warmup, o.Duration, func(ctx context.Context, w, _ int) error {
		res, err := senders[w].Transfers.ListTransfers(ctx, &bffv1.ListTransfersRequest{Page: 1, PageSize: 5})
		if err == nil && len(res.GetTransfers()) == 0 {
			return errors.New("the history page came back empty")
		}
		return err
	})
	historyCPU := r.cpu("history", from)
	r.rpcs("history", logFrom)
	r.raw["history"] = list
	r.step("history: %.0f tps, p50 %.1f ms, p99 %.1f ms, %d errors %v", list.TPS, list.P50ms, list.P99ms, list.Errors, list.ErrorSamples)
	r.add(loadFigures("3. history page", "", 0, list, history, haveHistory, 0.25, 0)...)
	r.add(cpuPerCallFigures("history page", list, historyCPU, history, pg.usage["history"], haveHistory)...)
}
