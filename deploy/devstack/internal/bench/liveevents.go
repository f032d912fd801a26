package bench

import (
	"context"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

// eventLevel is one live-event phase (raw.events_levels).
type eventLevel struct {
	Streams int `json:"streams"`
	Users   int `json:"users"`
	EventsResult
	// RSSOpen is every child's VmRSS once the streams were open.
	RSSOpen map[string]int64 `json:"rss_streams_open_bytes,omitempty"`
	Error   string           `json:"error,omitempty"`
}

// liveEvents runs 4. at every stream level, lowest first. Below -streams: users of their own (as
// many as the target level has per stream, at least one), -level-event-transfers transfers,
// information rows. At -streams: every stream user, -event-transfers transfers, p50 and p99
// against their targets. Above it: the same users and transfers, p99 and the BFF's memory with
// the streams open against theirs. The judged rows come first.
func (r *runner) liveEvents(ctx context.Context, ready stack.Ready, pool *userPool) {
	o := r.cfg
	var below, judged []Figure
	var levels []eventLevel
	for _, n := range eventOrder(o.StreamLevels, o.Streams) {
		watchers, transfers, phase := pool.users, o.EventTransfers, "live events, "+Count(n, "stream")
		if n < o.Streams {
			watchers, transfers = pool.take(min(n, max(1, n*o.StreamUsers/o.Streams))), o.LevelTransfers
		} else if n == o.Streams {
			phase = "live events"
		}
		lv, err := r.liveEventLevel(ctx, ready, n, watchers, transfers, phase)
		levels = append(levels, lv)
		switch {
		case n < o.Streams:
			below = append(below, EventLevelFigures(n, lv.EventsResult, err)...)
		case n == o.Streams:
			r.raw["events"] = lv.EventsResult
			r.raw["rss_streams_open_bytes"] = lv.RSSOpen
			judged = append(judged, EventFigures(n, lv.EventsResult, err, true)...)
		default:
			judged = append(judged, EventFigures(n, lv.EventsResult, err, false)...)
			judged = append(judged, StreamsMemoryFigure(n, lv.RSSOpen["bff"]))
		}
	}
	r.raw["events_levels"] = levels
	r.add(judged...)
	r.add(below...)
}

// liveEventLevel opens n streams over the watchers, creates transfers while they are open and
// times their status changes on the streams (Events); it reads the children's memory while the
// streams are open.
func (r *runner) liveEventLevel(ctx context.Context, ready stack.Ready, n int, watchers []*User, transfers int, phase string) (eventLevel, error) {
	o := r.cfg
	r.step("%s over %s (%s), %d transfers at %.0f/s", phase, Count(len(watchers), "user"), o.StreamsProtocol, transfers, o.EventRate)
	var open map[string]int64
	from, logFrom := r.meter(), r.logSize()
	ev, err := Events(ctx, watchers, EventsConfig{
		Streams: n, OpenParallel: 50, Transfers: transfers, Rate: o.EventRate, Wait: o.EventWait,
		NatsURL: ready.NatsURL, NatsSeedFile: ready.NatsObserverSeedFile,
		WhileOpen: func() {
			open = readRSS(ready.PIDs)
			r.step("  BFF resident with %s open: %.1f MiB", Count(n, "stream"), float64(open["bff"])/(1<<20))
		},
	})
	r.cpu(phase, from)
	r.rpcs(phase, logFrom)
	for _, u := range watchers {
		u.CloseStreams()
	}
	lv := eventLevel{Streams: n, Users: len(watchers), EventsResult: ev, RSSOpen: open}
	if err != nil {
		lv.Error = err.Error()
	}
	return lv, err
}
