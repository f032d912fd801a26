package grpcport_test

import (
	"testing"

	"github.com/thumela/thumela/services/transfers/internal/app"
)

// A recurring send keeps the fee it was set up with, and the version of the fee schedule that
// priced it: each occurrence's transfer charges that fee and records that version, even after
// fees publishes a new schedule (the sender agreed to the first price).
func TestOccurrencesKeepTheScheduleVersionThatPricedThem(t *testing.T) {
	t.Parallel()
	l := startLocal(t)
	l.publishSchedule(t, 3, 1000)
	user, pm := l.NewUser()
	sch := createSchedule(t, l.Env, user, pm, nil)

	l.publishSchedule(t, 4, 1500)
	if n := tick(t, scheduler(l.Env, app.SchedulerConfig{})); n != 1 {
		t.Fatalf("ran %d schedules, want 1", n)
	}
	got := scheduledTransfers(t, l.Env, sch.GetId())
	if len(got) != 1 {
		t.Fatalf("transfers %v, want one", got)
	}
	if v := storedScheduleVersion(t, l.Env, got[0].id); v != 3 {
		t.Errorf("the occurrence recorded fee schedule version %d, want 3 (the schedule's)", v)
	}
	if tr := getTransfer(t, l.Env, user, got[0].id); tr.GetBankFeeCents() != 1000 {
		t.Errorf("the occurrence's bank fee is %d cents, want 1000 (the price set up)", tr.GetBankFeeCents())
	}
}
