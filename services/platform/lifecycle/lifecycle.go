// Package lifecycle runs a process's long-lived parts (gRPC server, HTTP server, workers,
// relays) together and stops them in order, so that main stays a list of components:
//
//	return lifecycle.Run(ctx, logger, 15*time.Second,
//		lifecycle.Component{Name: "outbox relay", Start: relay.Run},
//		grpcSrv.Component(cfg.GRPCAddr),
//	)
//
// Components are listed in dependency order: each may use the ones before it. They are stopped
// in reverse order, one at a time, so the gRPC server stops taking requests and drains before
// the workers and pools it uses go away.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

// Errors Run returns besides the components' own.
var (
	// ErrInvalidComponent: a component has no Start function.
	ErrInvalidComponent = errors.New("lifecycle: invalid component")
	// ErrStopTimeout: a component had not stopped when the shutdown timeout ran out.
	ErrStopTimeout = errors.New("lifecycle: component did not stop in time")
	// ErrPanic: a component's Start panicked; the stack is logged.
	ErrPanic = errors.New("lifecycle: component panicked")
)

// Component is one long-lived part of a process.
type Component struct {
	// Name identifies the component in logs and errors.
	Name string
	// Start runs the component and blocks until it has stopped. Its context is cancelled when
	// the component is to stop (after Stop, if any, has been called). Returning an error before
	// shutdown stops the whole process; returning nil early means the component finished its
	// work, and the others keep running. Returning ctx's error after cancellation is a clean
	// stop.
	Start func(ctx context.Context) error
	// Stop, optional, asks a component that does not watch Start's context (a server) to stop
	// gracefully before ctx's deadline, and to give up on graceful when it passes. It is called
	// during shutdown even if Start has already returned, so it must tolerate that.
	Stop func(ctx context.Context) error
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM (what Kubernetes sends before
// killing a pod). Call stop once shutdown has begun: a second signal then terminates the
// process at once, the escape hatch for a shutdown that hangs.
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

type exit struct {
	index int
	err   error
}

// Run starts every component, waits for SIGINT/SIGTERM, ctx's cancellation or the first
// component failure, then stops the components in reverse order within shutdownTimeout in all
// (a component may take a further quarter second to return once its Stop has given up).
// It returns the error that caused the shutdown, else the first error met while stopping, else
// nil: a signal or cancelled ctx is a clean stop.
func Run(ctx context.Context, logger *slog.Logger, shutdownTimeout time.Duration, components ...Component) error {
	for i, c := range components {
		if c.Start == nil {
			return fmt.Errorf("%w: %q (#%d) has no Start", ErrInvalidComponent, c.Name, i)
		}
	}
	sigCtx, stopSignals := SignalContext(ctx)
	defer stopSignals()

	runCtxs := make([]context.Context, len(components))
	cancels := make([]context.CancelFunc, len(components))
	done := make([]chan struct{}, len(components))
	exits := make(chan exit, len(components))
	for i, c := range components {
		// Not derived from sigCtx: each component's context is cancelled in its turn, in
		// reverse order, not all at once when the signal arrives.
		runCtxs[i], cancels[i] = context.WithCancel(context.WithoutCancel(ctx))
		done[i] = make(chan struct{})
		logger.DebugContext(ctx, "starting", "component", c.Name)
		go func() {
			defer close(done[i])
			exits <- exit{index: i, err: start(runCtxs[i], logger, c)}
		}()
	}
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
	}()

	// Wait for the reason to stop. A component that ends cleanly before shutdown is done, not
	// a reason to stop the others.
	var cause error
	running := len(components)
wait:
	for running > 0 {
		select {
		case <-sigCtx.Done():
			logger.InfoContext(ctx, "shutting down", "reason", context.Cause(sigCtx).Error())
			break wait
		case e := <-exits:
			running--
			if e.err != nil {
				cause = fmt.Errorf("%s: %w", components[e.index].Name, e.err)
				logger.ErrorContext(ctx, "component failed, shutting down",
					"component", components[e.index].Name, "error", e.err)
				break wait
			}
			logger.InfoContext(ctx, "component finished", "component", components[e.index].Name)
		}
	}
	stopSignals()

	stopCtx, cancelStop := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancelStop()
	var stopErrs []error
	for i := len(components) - 1; i >= 0; i-- {
		c := components[i]
		began := time.Now()
		if c.Stop != nil {
			if err := c.Stop(stopCtx); err != nil {
				stopErrs = append(stopErrs, fmt.Errorf("%s: stop: %w", c.Name, err))
			}
		}
		cancels[i]()
		if waitStopped(stopCtx, done[i]) {
			logger.InfoContext(ctx, "stopped", "component", c.Name, "took", time.Since(began))
		} else {
			logger.ErrorContext(ctx, "component did not stop in time", "component", c.Name)
			stopErrs = append(stopErrs, fmt.Errorf("%w: %s", ErrStopTimeout, c.Name))
		}
	}

	// Collect what the components returned while stopping; ctx errors are how a clean stop
	// looks from inside a component.
	// Every component that stopped has already queued its exit (the send precedes close(done));
	// one abandoned past the deadline may still send later, into the buffer, harmlessly.
collect:
	for {
		select {
		case e := <-exits:
			if e.err != nil && !errors.Is(e.err, context.Canceled) && !errors.Is(e.err, context.DeadlineExceeded) {
				stopErrs = append(stopErrs, fmt.Errorf("%s: %w", components[e.index].Name, e.err))
			}
		default:
			break collect
		}
	}

	if cause != nil {
		return cause
	}
	if len(stopErrs) > 0 {
		return stopErrs[0]
	}
	return nil
}

// returnGrace is how long a component may take to return from Start once the shutdown
// deadline has passed. A server's Stop typically gives up on graceful exactly at the deadline
// and closes everything; its Start returns a moment later, and that is a timely stop.
const returnGrace = 250 * time.Millisecond

// waitStopped reports whether done closes before ctx's deadline (plus returnGrace).
func waitStopped(ctx context.Context, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	t := time.NewTimer(returnGrace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// start runs c.Start, turning a panic into an error so the rest of the process still shuts
// down gracefully.
func start(ctx context.Context, logger *slog.Logger, c Component) (err error) {
	defer func() {
		if r := recover(); r != nil {
			logger.ErrorContext(ctx, "component panicked", "component", c.Name,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	return c.Start(ctx)
}
