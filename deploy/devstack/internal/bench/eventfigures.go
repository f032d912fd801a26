package bench

import (
	"errors"
	"fmt"
	"strings"
)

// Live-event targets: at the target level (-streams) p50 and p99, at the levels above it p99
// and the BFF's memory with the streams open.
const (
	EventP50TargetMs      = 10
	EventP99TargetMs      = 50
	StreamsMemoryTargetMi = 256
)

// Count writes "1 sender", "1,000 streams".
func Count(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return thousands(n) + " " + noun
}

// EventFigures makes the rows of a judged live-event level: p99 against its target, p50
// against its own when judgeP50 (the target level), else as information; then the split rows.
func EventFigures(n int, ev EventsResult, err error, judgeP50 bool) []Figure {
	suffix := ", " + Count(n, "stream")
	if err == nil && ev.Observed == 0 {
		err = errors.New("no status change reached a stream")
		if len(ev.ErrorSamples) > 0 {
			err = fmt.Errorf("%w: %s", err, strings.Join(ev.ErrorSamples, "; "))
		}
	}
	if err != nil {
		return []Figure{{Name: "4. live event p99" + suffix, Level: n, Target: fmt.Sprintf("≤ %d ms", EventP99TargetMs), Result: Error, Error: err.Error()}}
	}
	detail := fmt.Sprintf("%d of %d status changes seen on %d streams (open in %.1f s); %d create errors", ev.Observed, ev.Expected, ev.Streams-ev.OpenErrors, ev.OpenSeconds, ev.CreateErrors)
	if ev.OpenErrors > 0 {
		detail += fmt.Sprintf("; %d of %d streams failed to open: %s", ev.OpenErrors, ev.Streams, strings.Join(ev.ErrorSamples, "; "))
	}
	p50 := Figure{Name: "   live event p50" + suffix, Level: n, Unit: "ms", Measured: F(ev.Latency.P50ms), Detail: detail, Result: Info}
	if judgeP50 {
		p50.Name, p50.Target = "4. live event p50"+suffix, fmt.Sprintf("≤ %d ms", EventP50TargetMs)
		p50.Check(ev.Latency.P50ms, EventP50TargetMs, false)
	}
	p99 := Figure{Name: "4. live event p99" + suffix, Level: n, Unit: "ms", Measured: F(ev.Latency.P99ms), Target: fmt.Sprintf("≤ %d ms", EventP99TargetMs), Detail: detail}
	p99.Check(ev.Latency.P99ms, EventP99TargetMs, false)
	if ev.Observed < ev.Expected*9/10 || ev.CreateErrors > 0 || ev.OpenErrors > 0 {
		for _, f := range []*Figure{&p50, &p99} {
			if f.Result == Pass {
				f.Result = Miss
			}
			f.Detail += " (not every stream, transfer or status change made it: not a pass)"
		}
	}
	out := []Figure{p50, p99}
	if !judgeP50 {
		out = []Figure{p99, p50}
	}
	out = append(out, Figure{Name: "   event on all the user's streams" + suffix, Result: Info, Unit: "ms", Level: n,
		Text: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms", ev.LatencyAllStreams.P50ms, ev.LatencyAllStreams.P99ms)})
	if len(ev.ByStatus) > 0 && judgeP50 {
		parts := []string{}
		for _, st := range []string{"pending", "processing", "completed", "failed"} {
			if v, ok := ev.ByStatus[st]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f/%.1f", st, v.P50ms, v.P99ms))
			}
		}
		out = append(out, Figure{Name: "   by status (p50/p99 ms)", Result: Info, Level: n, Text: strings.Join(parts, ", ")})
	}
	if ev.ToNATS.Count > 0 {
		out = append(out,
			Figure{Name: "   of which updated_at → NATS" + suffix, Result: Info, Unit: "ms", Level: n,
				Text: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms", ev.ToNATS.P50ms, ev.ToNATS.P99ms)},
			Figure{Name: "   of which NATS → first stream" + suffix, Result: Info, Unit: "ms", Level: n,
				Text: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms", ev.FromNATS.P50ms, ev.FromNATS.P99ms)})
	}
	if ev.FromSend.Count > 0 && judgeP50 {
		out = append(out, Figure{Name: "   pending event from CreateTransfer sent", Result: Info, Unit: "ms", Level: n,
			Text: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms", ev.FromSend.P50ms, ev.FromSend.P99ms)})
	}
	return out
}

// EventLevelFigures makes the information rows of a live-event level below the target's.
func EventLevelFigures(n int, ev EventsResult, err error) []Figure {
	suffix := ", " + Count(n, "stream")
	if err == nil && ev.Observed == 0 {
		err = errors.New("no status change reached a stream")
		if len(ev.ErrorSamples) > 0 {
			err = fmt.Errorf("%w: %s", err, strings.Join(ev.ErrorSamples, "; "))
		}
	}
	if err != nil {
		return []Figure{{Name: "   live event p50" + suffix, Level: n, Result: Error, Error: err.Error()}}
	}
	detail := fmt.Sprintf("%d of %d status changes seen on %d streams; %d create errors; updated_at → NATS p50 %.1f / p99 %.1f ms, NATS → first stream p50 %.1f / p99 %.1f ms",
		ev.Observed, ev.Expected, ev.Streams-ev.OpenErrors, ev.CreateErrors, ev.ToNATS.P50ms, ev.ToNATS.P99ms, ev.FromNATS.P50ms, ev.FromNATS.P99ms)
	return []Figure{
		{Name: "   live event p50" + suffix, Level: n, Result: Info, Unit: "ms", Measured: F(ev.Latency.P50ms), Detail: detail},
		{Name: "   live event p99" + suffix, Level: n, Result: Info, Unit: "ms", Measured: F(ev.Latency.P99ms), Detail: detail},
	}
}

// StreamsMemoryFigure is the BFF's resident memory with n streams open, against its bound.
func StreamsMemoryFigure(n int, rssBytes int64) Figure {
	f := Figure{Name: "4. BFF memory, " + Count(n, "stream") + " open", Level: n, Unit: "MiB", Target: fmt.Sprintf("≤ %d MiB", StreamsMemoryTargetMi)}
	if rssBytes <= 0 {
		f.Result, f.Error = Error, "could not read VmRSS"
		return f
	}
	mib := float64(rssBytes) / (1 << 20)
	f.Measured = F(mib)
	f.Check(mib, StreamsMemoryTargetMi, false)
	return f
}
