//go:build unix

package lifecycle_test

import (
	"context"
	"log/slog"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/lifecycle"
)

// TestSignalStopsRun is not parallel: it sends SIGTERM to the test process, which every Run
// in flight would see. Sequential tests finish before parallel ones resume, so none is.
func TestSignalStopsRun(t *testing.T) {
	rec := &recorder{}
	errc := make(chan error, 1)
	go func() {
		errc <- lifecycle.Run(context.Background(), slog.New(slog.DiscardHandler), time.Second, worker("w", rec))
	}()
	// Our own handler first, so a signal sent before Run has installed its handler cannot kill
	// the test binary; then keep signalling until Run returns.
	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("Run = %v, want nil on a signal", err)
			}
			if got := rec.list(); !slices.Equal(got, []string{"w returned"}) {
				t.Fatalf("events = %v", got)
			}
			<-ctx.Done() // our own SignalContext saw it too
			return
		case <-tick.C:
			if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		case <-deadline:
			t.Fatal("Run did not stop on SIGTERM")
		}
	}
}
