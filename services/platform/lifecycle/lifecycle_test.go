package lifecycle_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/lifecycle"
)

// recorder notes the order of events across components.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// server is a component that blocks until Stop, like a network server.
func server(name string, rec *recorder, stopErr error) lifecycle.Component {
	stopped := make(chan struct{})
	var once sync.Once
	return lifecycle.Component{
		Name: name,
		Start: func(context.Context) error {
			<-stopped
			rec.add(name + " returned")
			return nil
		},
		Stop: func(context.Context) error {
			rec.add(name + " stop")
			once.Do(func() { close(stopped) })
			return stopErr
		},
	}
}

// worker is a component that runs until its context is cancelled.
func worker(name string, rec *recorder) lifecycle.Component {
	return lifecycle.Component{
		Name: name,
		Start: func(ctx context.Context) error {
			<-ctx.Done()
			rec.add(name + " returned")
			return ctx.Err()
		},
	}
}

var (
	errBoom = errors.New("boom")
	errStop = errors.New("stop failed")
)

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		components func(rec *recorder) []lifecycle.Component
		cancel     bool // cancel the parent context, as a signal would
		wantErr    error
		wantEvents []string
	}{
		{
			name: "clean stop in reverse order",
			components: func(rec *recorder) []lifecycle.Component {
				return []lifecycle.Component{worker("relay", rec), server("grpc", rec, nil)}
			},
			cancel:     true,
			wantEvents: []string{"grpc stop", "grpc returned", "relay returned"},
		},
		{
			name: "first component error stops the rest and is returned",
			components: func(rec *recorder) []lifecycle.Component {
				return []lifecycle.Component{
					worker("relay", rec),
					server("grpc", rec, nil),
					{Name: "db", Start: func(context.Context) error { return errBoom }},
				}
			},
			wantErr:    errBoom,
			wantEvents: []string{"grpc stop", "grpc returned", "relay returned"},
		},
		{
			name: "stop error is returned after a signal",
			components: func(rec *recorder) []lifecycle.Component {
				return []lifecycle.Component{server("a", rec, errStop), server("b", rec, nil)}
			},
			cancel:     true,
			wantErr:    errStop,
			wantEvents: []string{"b stop", "b returned", "a stop", "a returned"},
		},
		{
			name: "a component that finishes early does not stop the others",
			components: func(rec *recorder) []lifecycle.Component {
				return []lifecycle.Component{
					{Name: "migrate", Start: func(context.Context) error { rec.add("migrated"); return nil }},
					worker("relay", rec),
				}
			},
			cancel:     true,
			wantEvents: []string{"migrated", "relay returned"},
		},
		{
			name: "panic becomes an error",
			components: func(rec *recorder) []lifecycle.Component {
				return []lifecycle.Component{
					worker("relay", rec),
					{Name: "bad", Start: func(context.Context) error { panic("oops") }},
				}
			},
			wantErr:    lifecycle.ErrPanic,
			wantEvents: []string{"relay returned"},
		},
		{
			name: "component without Start is refused",
			components: func(*recorder) []lifecycle.Component {
				return []lifecycle.Component{{Name: "empty"}}
			},
			wantErr: lifecycle.ErrInvalidComponent,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(20*time.Millisecond, cancel)
			}
			err := lifecycle.Run(ctx, slog.New(slog.DiscardHandler), 5*time.Second, tt.components(rec)...)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Run = %v, want %v", err, tt.wantErr)
			}
			if got := rec.list(); !slices.Equal(got, tt.wantEvents) {
				t.Fatalf("events = %v, want %v", got, tt.wantEvents)
			}
		})
	}
}

func TestRunGivesUpAfterTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	stuck := lifecycle.Component{
		Name:  "stuck",
		Start: func(context.Context) error { <-release; return nil },
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	began := time.Now()
	err := lifecycle.Run(ctx, slog.New(slog.DiscardHandler), 50*time.Millisecond, stuck)
	if !errors.Is(err, lifecycle.ErrStopTimeout) {
		t.Fatalf("Run = %v, want ErrStopTimeout", err)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("Run took %v despite a 50ms timeout", took)
	}
}
