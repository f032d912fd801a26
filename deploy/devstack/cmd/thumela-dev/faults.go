package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

// stopTimeout bounds a graceful stop: a service finishes its calls in flight, then exits.
const stopTimeout = 30 * time.Second

// serveFaults lets the browser tests take one of the stack's processes down and bring it back,
// as the outage test does in Go with stack.Faults: POST /stop?process=paymentmethods sends it
// SIGTERM and answers once it has exited; POST /start?process=paymentmethods starts it again
// (without waiting for it to be ready). It listens on a loopback port of its own, apart from
// the BFF and its /dev/ tools, so that nothing the site serves reaches it. It returns the
// control's base URL and stops serving when ctx ends.
func serveFaults(ctx context.Context, faults *stack.Faults, logger *slog.Logger) (string, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("fault control: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /stop", func(w http.ResponseWriter, r *http.Request) {
		answer(w, faults.Stop(r.URL.Query().Get("process"), syscall.SIGTERM, stopTimeout))
	})
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, r *http.Request) {
		answer(w, faults.Start(r.URL.Query().Get("process")))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			logger.Error("fault control stopped", "err", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	return "http://" + ln.Addr().String(), nil
}

// answer is 204 when the fault took effect, else 409 with why (no such process, still running).
func answer(w http.ResponseWriter, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
