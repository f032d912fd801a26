package lifecycle_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/lifecycle"
)

// KeepTrying retries a failing attempt, warns once, and returns nil when ctx ends.
func TestKeepTryingRetriesAndWarnsOnce(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	err := lifecycle.KeepTrying(ctx, logger, "cannot follow yet", time.Millisecond, func(context.Context) error {
		attempts++
		if attempts == 4 {
			cancel()
		}
		return errors.New("no stream")
	})
	if err != nil || attempts != 4 {
		t.Fatalf("KeepTrying = %v after %d attempts, want nil after 4", err, attempts)
	}
	if n := strings.Count(logs.String(), "cannot follow yet"); n != 1 {
		t.Fatalf("warned %d times, want once:\n%s", n, logs.String())
	}
}
