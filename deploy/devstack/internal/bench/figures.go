package bench

import (
	"fmt"
	"strings"
	"time"
)

// The rows of the phases in run order, from what each measured. The rows of 2b and 2c
// (SustainedFigures), 2d (HeavyFigures) and 4. (EventFigures) sit with their phases.

// transferBaselineFigure is 1a: pgbench's transfer transaction at -clients.
func transferBaselineFigure(r PgbenchResult) Figure {
	return Figure{Name: "1a. pgbench transfer txn (baseline)", Result: Info, Unit: "tps", Measured: F(r.TPS),
		Text: fmt.Sprintf("%.0f tps, p50 %.1f ms, p99 %.1f ms", r.TPS, r.P50ms, r.P99ms)}
}

// notifyFigure compares 1a with a pg_notify, as the outboxes do, against 1a.
func notifyFigure(notify, transfer PgbenchResult) Figure {
	return Figure{Name: "   diagnostic: 1a + pg_notify", Result: Info, Unit: "tps", Measured: F(notify.TPS),
		Baseline: F(transfer.TPS), Ratio: F(notify.TPS / transfer.TPS),
		Text: fmt.Sprintf("%.0f tps, p50 %.1f ms, p99 %.1f ms", notify.TPS, notify.P50ms, notify.P99ms)}
}

// historyBaselineFigure is 1b: pgbench's read of a user's 10 newest rows at -clients.
func historyBaselineFigure(r PgbenchResult) Figure {
	return Figure{Name: "1b. pgbench 10-newest read (baseline)", Result: Info, Unit: "tps", Measured: F(r.TPS),
		Text: fmt.Sprintf("%.0f tps, p50 %.2f ms, p99 %.2f ms", r.TPS, r.P50ms, r.P99ms)}
}

// loadFigures makes the throughput and latency rows of a load phase (name: "2. create-transfer",
// "3. history page") against its baseline: TPS at least minTPSRatio of the baseline's, and p99 at
// most maxP99Ratio of its (0: p99 is information). suffix (e.g. ", 32 senders") and level name
// the load level, when the figure has several. A phase with errors is not a pass.
func loadFigures(name, suffix string, level int, s Summary, base PgbenchResult, haveBase bool, minTPSRatio, maxP99Ratio float64) []Figure {
	if s.Count == 0 {
		return []Figure{{Name: name + " TPS" + suffix, Target: fmt.Sprintf("≥ %.2f × (%s)", minTPSRatio, baseName(name)), Result: Error,
			Error: noSuccessfulCall(s)}}
	}
	detail := fmt.Sprintf("%d calls in %.1f s, %d errors", s.Count, s.Seconds, s.Errors)
	if len(s.ErrorSamples) > 0 {
		detail += ": " + strings.Join(s.ErrorSamples, "; ")
	}
	subRow := "   " + strings.SplitN(name, " ", 2)[1] // "   create-transfer"
	tps := Figure{Name: name + " TPS" + suffix, Level: level, Unit: "tps", Measured: F(s.TPS), Target: fmt.Sprintf("≥ %.2f", minTPSRatio), Detail: detail, Result: Info}
	p50 := Figure{Name: subRow + " p50" + suffix, Level: level, Unit: "ms", Measured: F(s.P50ms), Result: Info}
	p99 := Figure{Name: name + " p99" + suffix, Level: level, Unit: "ms", Measured: F(s.P99ms), Result: Info}
	if haveBase {
		tps.Baseline, tps.Ratio = F(base.TPS), F(s.TPS/base.TPS)
		tps.Check(*tps.Ratio, minTPSRatio, true)
		p50.Baseline, p50.Ratio = F(base.P50ms), F(s.P50ms/base.P50ms)
		p99.Baseline, p99.Ratio = F(base.P99ms), F(s.P99ms/base.P99ms)
		if maxP99Ratio > 0 {
			p99.Target = fmt.Sprintf("≤ %.2f", maxP99Ratio)
			p99.Check(*p99.Ratio, maxP99Ratio, false)
		}
	} else {
		tps.Result = Error
		tps.Error = "no pgbench baseline to compare with"
	}
	if s.Errors > 0 && tps.Result == Pass {
		tps.Detail += " (a phase with errors is not a pass)"
		tps.Result = Miss
	}
	if maxP99Ratio > 0 {
		return []Figure{tps, p99, p50}
	}
	p99.Name = subRow + " p99" + suffix
	return []Figure{tps, p50, p99}
}

// baseName is the baseline a load phase is compared with.
func baseName(name string) string {
	if strings.Contains(name, "history") {
		return "1b"
	}
	return "1a"
}

// levelFigures makes the rows of a create-transfer level other than the target's: throughput
// and latency against 1a (pgbench at -clients), then against pgbench at the same client count.
func levelFigures(lv createLevel, base PgbenchResult, haveBase bool) []Figure {
	suffix := ", " + Count(lv.Senders, "sender")
	s := lv.Summary
	if s.Count == 0 {
		return []Figure{{Name: "   create-transfer TPS" + suffix, Level: lv.Senders, Result: Error, Error: noSuccessfulCall(s)}}
	}
	detail := fmt.Sprintf("%d calls in %.1f s, %d errors; the worker caught up in %.1f s", s.Count, s.Seconds, s.Errors, lv.DrainSeconds)
	if len(s.ErrorSamples) > 0 {
		detail += ": " + strings.Join(s.ErrorSamples, "; ")
	}
	rows := []Figure{
		{Name: "   create-transfer TPS" + suffix, Unit: "tps", Measured: F(s.TPS), Detail: detail},
		{Name: "   create-transfer p50" + suffix, Unit: "ms", Measured: F(s.P50ms)},
		{Name: "   create-transfer p99" + suffix, Unit: "ms", Measured: F(s.P99ms)},
	}
	against := []float64{base.TPS, base.P50ms, base.P99ms}
	for i := range rows {
		rows[i].Result, rows[i].Level = Info, lv.Senders
		if haveBase && against[i] > 0 {
			rows[i].Baseline, rows[i].Ratio = F(against[i]), F(*rows[i].Measured/against[i])
		}
	}
	if r := lv.Pgbench; r != nil && r.TPS > 0 && r.P50ms > 0 && r.P99ms > 0 {
		rows = append(rows, Figure{Name: "   vs pgbench at " + Count(lv.Senders, "client"), Result: Info, Unit: "tps", Level: lv.Senders,
			Measured: F(s.TPS), Baseline: F(r.TPS), Ratio: F(s.TPS / r.TPS),
			Text:   fmt.Sprintf("p50 ×%.1f, p99 ×%.1f (pgbench p50 %.1f, p99 %.1f ms)", s.P50ms/r.P50ms, s.P99ms/r.P99ms, r.P50ms, r.P99ms),
			Detail: "ratio: TPS over pgbench's at the same client count; the text: p50 and p99 over pgbench's"})
	}
	return rows
}

func noSuccessfulCall(s Summary) string {
	msg := "no successful call"
	if len(s.ErrorSamples) > 0 {
		msg += ": " + strings.Join(s.ErrorSamples, "; ")
	}
	return msg
}

// cpuPerCallFigures makes the row comparing the CPU one call cost the machine (every process of
// the stack, its backends, the server's processes and the load generator) with one pgbench
// transaction's (pgbench, its backends, the server's processes), when the phase made calls. On a
// machine whose cores are all busy, throughput is roughly cores ÷ CPU per call: this is the row
// that says where it goes.
func cpuPerCallFigures(name string, s Summary, u CPUUsage, base PgbenchResult, bu CPUUsage, haveBase bool) []Figure {
	if s.Total == 0 || u.Wall == 0 {
		return nil
	}
	stackCores := u.Ours() - u.Cores[PgbenchDB] - u.Cores[PgbenchClient]
	stack := StackMsPer(u, s.Total)
	f := Figure{Name: "   CPU per " + name + " call", Result: Info, Unit: "ms", Measured: F(stack),
		Detail: fmt.Sprintf("all of the stack's processes, their PostgreSQL backends and the load generator: %.2f cores for %d calls in %.1f s", stackCores, s.Total, u.Wall)}
	if haveBase && base.Count > 0 && bu.Wall > 0 {
		pgCores := bu.Cores[PgbenchDB] + bu.Cores[PgbenchClient] + bu.Cores[PostgresServer]
		pg := PgbenchMsPer(bu, base.Count)
		f.Detail += fmt.Sprintf("; pgbench: its client, its backends and the server's processes, %.2f cores", pgCores)
		f.Baseline, f.Ratio = F(pg), F(stack/pg)
	}
	return []Figure{f}
}

// catchUpFigures makes the rows of the worker's catch-up after 2.: how long it took, and the CPU
// per transfer it completed (one paymentmethods Charge each, from the stack log's rpcs).
func catchUpFigures(waited time.Duration, left int, rpcs []RPCStat, u CPUUsage) []Figure {
	text := fmt.Sprintf("%.1f s", waited.Seconds())
	if left > 0 {
		text = fmt.Sprintf("%d still unfinished after %.0f s", left, waited.Seconds())
	}
	out := []Figure{{Name: "   worker catch-up after 2.", Result: Info, Unit: "s", Measured: F(waited.Seconds()), Text: text}}
	for _, st := range rpcs {
		if st.Service == "paymentmethods" && st.Method == "Charge" && st.Count > 0 && u.Wall > 0 {
			cores := u.Ours() - u.Cores[PgbenchDB] - u.Cores[PgbenchClient]
			out = append(out, Figure{Name: "   CPU per transfer the worker completes", Result: Info, Unit: "ms",
				Measured: F(cores * u.Wall / float64(st.Count) * 1000),
				Detail:   fmt.Sprintf("%.2f cores for %d charges in %.1f s of catch-up (the bench's polling of ListTransfers included)", cores, st.Count, u.Wall)})
		}
	}
	return out
}

// signInFigure is 5.: the median sign-in against the median argon2id hash timed right before
// each, at most 1.5 times it; failed sign-ins make it no pass.
func signInFigure(s, argon Summary, failed int) Figure {
	const name, target = "5. sign-in p50 vs one argon2id", "≤ 1.50"
	if s.Count == 0 {
		return Figure{Name: name, Target: target, Result: Error, Error: fmt.Sprintf("%d sign-ins failed", failed)}
	}
	f := Figure{Name: name, Unit: "ms", Measured: F(s.P50ms), Baseline: F(argon.P50ms), Ratio: F(s.P50ms / argon.P50ms), Target: target,
		Detail: fmt.Sprintf("%d sequential sign-ins (p99 %.1f ms), each after one hash (p99 %.1f ms)", s.Count, s.P99ms, argon.P99ms)}
	f.Check(*f.Ratio, 1.5, false)
	if failed > 0 && f.Result == Pass {
		f.Result, f.Detail = Miss, f.Detail+fmt.Sprintf("; %d sign-ins failed", failed)
	}
	return f
}

// 6.: the landing page's first-load JavaScript, gzipped, at most 150 kB.
const (
	landingJSName   = "6. landing page JS (gzip)"
	landingJSTarget = "≤ 150 kB"
	landingJSMaxKB  = 150
)

func landingJSFigure(files []JSFile, totalGzipBytes int) Figure {
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, fmt.Sprintf("%s %.1f kB (%s)", f.Path, float64(f.GzipBytes)/1000, f.How))
	}
	kb := float64(totalGzipBytes) / 1000
	f := Figure{Name: landingJSName, Unit: "kB", Measured: F(kb), Target: landingJSTarget, Detail: strings.Join(names, ", ")}
	f.Check(kb, landingJSMaxKB, false)
	return f
}

// memoryTargetMiB bounds each service's resident memory, idle and after the loads (7.).
const memoryTargetMiB = 64

// memoryFigures makes 7.: each Go child's resident memory, the larger of idle and after the
// loads, against memoryTargetMiB; the BFF's row also shows its memory with the target level's
// streams open (streamsOpen, when read).
func memoryFigures(idle, after, streamsOpen map[string]int64) []Figure {
	out := make([]Figure, 0, len(goProcesses))
	for _, name := range goProcesses {
		before, ok1 := idle[name]
		later, ok2 := after[name]
		fig := Figure{Name: "7. memory " + name, Unit: "MiB", Target: fmt.Sprintf("≤ %d MiB", memoryTargetMiB)}
		if !ok1 || !ok2 {
			fig.Result, fig.Error = Error, "could not read VmRSS"
			out = append(out, fig)
			continue
		}
		worst := float64(max(before, later)) / (1 << 20)
		fig.Measured = F(worst)
		fig.Text = fmt.Sprintf("idle %.1f / after %.1f MiB", float64(before)/(1<<20), float64(later)/(1<<20))
		fig.Check(worst, memoryTargetMiB, false)
		if name == "bff" {
			fig.Name = "   memory bff"
			if streamsOpen["bff"] > 0 {
				fig.Text += fmt.Sprintf(" (%.1f with the streams open)", float64(streamsOpen["bff"])/(1<<20))
			}
			if fig.Result == Pass || fig.Result == Miss {
				fig.Detail = "the BFF is not one of the five services; shown against the same bound"
			}
		}
		out = append(out, fig)
	}
	return out
}
