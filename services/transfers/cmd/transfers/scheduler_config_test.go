package main

import (
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// TRANSFERS_SCHEDULER_INTERVAL is a Go duration, one minute unless set (browser tests set 1s),
// and must be positive.
func TestSchedulerInterval(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"DATABASE_URL":                  "postgres://x@localhost/db",
		"IDENTITY_ADDR":                 "127.0.0.1:1",
		"PAYMENTMETHODS_ADDR":           "127.0.0.1:2",
		"FEES_ADDR":                     "127.0.0.1:3",
		"TRANSFERS_SERVICE_SECRET":      testkit.ServiceSecret,
		"TRANSFERS_PIN_KEY":             testkit.PINKey,
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": sealtest.NewKey(t).Public().String(),
	}
	var cfg Config
	if err := config.LoadWith(config.MapLookup(env), "TRANSFERS", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.SchedulerInterval != time.Minute {
		t.Fatalf("default interval %s, want 1m", cfg.SchedulerInterval)
	}
	env["TRANSFERS_SCHEDULER_INTERVAL"] = "1s"
	var fast Config
	if err := config.LoadWith(config.MapLookup(env), "TRANSFERS", &fast); err != nil || fast.SchedulerInterval != time.Second {
		t.Fatalf("1s: %s %v", fast.SchedulerInterval, err)
	}
	cfg.SchedulerInterval = 0
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "TRANSFERS_SCHEDULER_INTERVAL") {
		t.Fatalf("a zero interval: %v", err)
	}
}
