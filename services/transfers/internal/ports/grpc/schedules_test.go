package grpcport_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// The env's clock starts on Wednesday 2026-03-18, noon in Johannesburg.
const today = "2026-03-18"

// scheduleRequest is a weekly R500 to Sipho from today, with the first-payment answer.
func scheduleRequest(key, pm string) *transfersv1.CreateScheduleRequest {
	return &transfersv1.CreateScheduleRequest{
		IdempotencyKey:          key,
		RecipientName:           "Sipho Dlamini",
		RecipientPhone:          "082 123 4567",
		Bank:                    feesv1.Bank_BANK_CAPITEC,
		AmountCents:             50_000,
		PaymentMethodId:         pm,
		Frequency:               transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY,
		StartDate:               today,
		RecipientKnownConfirmed: true,
	}
}

// createSchedule creates scheduleRequest's schedule for user paying with pm, edited by edit.
func createSchedule(t *testing.T, e *testkit.Env, user, pm string, edit func(*transfersv1.CreateScheduleRequest)) *transfersv1.Schedule {
	t.Helper()
	req := scheduleRequest("s-"+uuid.NewString(), pm)
	if edit != nil {
		edit(req)
	}
	res, err := e.Client.CreateSchedule(e.Ctx(t, user), req)
	if err != nil {
		t.Fatalf("CreateSchedule: %v", err)
	}
	return res.GetSchedule()
}

// scheduler is a scheduler over the env's service (the env's clock), with cfg.
func scheduler(e *testkit.Env, cfg app.SchedulerConfig) *app.Scheduler {
	return app.NewScheduler(e.App, cfg, e.Logger)
}

// replica is a second service on its own pool, as another replica of transfers would be.
func replica(t *testing.T, e *testkit.Env) *app.Scheduler {
	t.Helper()
	repo := postgres.NewTransfers(testkit.OpenPool(t, e.DBURL, 4), e.SealKey.Public())
	svc, err := app.New(repo, e.Payments, e.Fees, app.Config{Limits: domain.DefaultLimits, Now: e.Clock.Now, PINs: e.PINs}, e.Logger)
	if err != nil {
		t.Fatal(err)
	}
	return app.NewScheduler(svc, app.SchedulerConfig{}, e.Logger)
}

func tick(t *testing.T, sc *app.Scheduler) int {
	t.Helper()
	n, err := sc.Tick(context.Background())
	if err != nil {
		t.Fatalf("Tick: %v", err)
	}
	return n
}

// occurrenceTransfer is one transfer the scheduler made.
type occurrenceTransfer struct {
	id, key, date, status string
}

// scheduledTransfers returns the transfers of schedule id, by occurrence date.
func scheduledTransfers(t *testing.T, e *testkit.Env, id string) []occurrenceTransfer {
	t.Helper()
	rows, err := e.Pool.Query(context.Background(), `SELECT id::text, idempotency_key, occurrence_date::text, status
		FROM transfers WHERE schedule_id = $1 ORDER BY occurrence_date, id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []occurrenceTransfer
	for rows.Next() {
		var o occurrenceTransfer
		if err := rows.Scan(&o.id, &o.key, &o.date, &o.status); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// occurrenceRow is one recorded occurrence.
type occurrenceRow struct {
	date, transferID, reason string
}

func occurrences(t *testing.T, e *testkit.Env, id string) []occurrenceRow {
	t.Helper()
	rows, err := e.Pool.Query(context.Background(), `SELECT date::text, coalesce(transfer_id::text, ''), failure_reason
		FROM schedule_occurrences WHERE schedule_id = $1 ORDER BY date`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []occurrenceRow
	for rows.Next() {
		var o occurrenceRow
		if err := rows.Scan(&o.date, &o.transferID, &o.reason); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func listSchedules(t *testing.T, e *testkit.Env, user string) []*transfersv1.Schedule {
	t.Helper()
	res, err := e.Client.ListSchedules(e.Ctx(t, user), &transfersv1.ListSchedulesRequest{})
	if err != nil {
		t.Fatalf("ListSchedules: %v", err)
	}
	return res.GetSchedules()
}

// schedulesChanged counts the SchedulesChanged events of user, checking their subject.
func schedulesChanged(t *testing.T, e *testkit.Env, user string) int {
	t.Helper()
	n := 0
	for _, row := range e.Outbox(t) {
		if row.Type != "thumela.transfers.v1.SchedulesChanged" {
			continue
		}
		var ev transfersv1.SchedulesChanged
		if err := proto.Unmarshal(row.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetUserId() != user {
			continue
		}
		if want := "thumela.transfers." + user + ".schedules"; row.Subject != want {
			t.Fatalf("SchedulesChanged on %q, want %q", row.Subject, want)
		}
		n++
	}
	return n
}

// scheduleFailedEmails are the SCHEDULED_SEND_FAILED requests about reference (a schedule id
// for a refused occurrence, a transfer id for a declined one).
func scheduleFailedEmails(t *testing.T, e *testkit.Env, reference string) []testkit.Notification {
	t.Helper()
	return e.NotificationsOf(t, reference, notificationsv1.Template_TEMPLATE_SCHEDULED_SEND_FAILED)
}

const week = 7 * 24 * time.Hour

// A due schedule makes one ordinary transfer per date, keyed schedule:<id>:<date> and naming
// its schedule and date; running again the same day makes nothing more; a week later the next
// date is made. The list shows the occurrences and the next date, and every change is
// announced.
func TestScheduleMakesOneTransferPerDate(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	sch := createSchedule(t, e, user, pm, nil)
	if sch.GetState() != transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE || sch.GetNextDate() != today ||
		sch.GetPaymentMethodLastFour() != "4242" || sch.GetRecipientPhone() != "+27821234567" {
		t.Fatalf("created %v", sch)
	}
	if n := schedulesChanged(t, e, user); n != 1 {
		t.Fatalf("%d SchedulesChanged after the create, want 1", n)
	}
	sc := scheduler(e, app.SchedulerConfig{})
	if n := tick(t, sc); n != 1 {
		t.Fatalf("ran %d schedules, want 1", n)
	}
	tick(t, sc)
	got := scheduledTransfers(t, e, sch.GetId())
	if len(got) != 1 || got[0].key != "schedule:"+sch.GetId()+":"+today || got[0].date != today {
		t.Fatalf("transfers %v, want one for %s keyed schedule:<id>:<date>", got, today)
	}
	tr := getTransfer(t, e, user, got[0].id)
	if tr.GetScheduleId() != sch.GetId() || tr.GetOccurrenceDate() != today || tr.GetAmountCents() != 50_000 ||
		tr.GetPaymentMethodId() != pm || !tr.GetRecipientKnownConfirmed() {
		t.Fatalf("the occurrence's transfer %v", tr)
	}

	e.Clock.Advance(week)
	tick(t, sc)
	got = scheduledTransfers(t, e, sch.GetId())
	if len(got) != 2 || got[1].date != "2026-03-25" {
		t.Fatalf("transfers %v after a week", got)
	}
	list := listSchedules(t, e, user)
	if len(list) != 1 || list[0].GetNextDate() != "2026-04-01" || len(list[0].GetRecentOccurrences()) != 2 ||
		list[0].GetRecentOccurrences()[0].GetDate() != "2026-03-25" || list[0].GetRecentOccurrences()[0].GetTransferId() != got[1].id {
		t.Fatalf("list %v", list)
	}
	if n := schedulesChanged(t, e, user); n != 3 {
		t.Fatalf("%d SchedulesChanged, want 3 (create, two runs)", n)
	}
	// The fee the schedule shows for each send is the one its sends charge once the first
	// transfer's waiver is spent, with the total the card pays.
	want := testkit.BankFees[domain.Capitec] + testkit.PlatformFee(50_000)
	second := getTransfer(t, e, user, got[1].id)
	if want == 0 || second.GetFeeCents() != want || sch.GetFeeCents() != want || list[0].GetFeeCents() != want ||
		list[0].GetTotalCents() != 50_000+want || sch.GetTotalCents() != 50_000+want {
		t.Fatalf("schedule fee %d total %d (listed %d, %d); the second send charged %d; want %d and %d",
			sch.GetFeeCents(), sch.GetTotalCents(), list[0].GetFeeCents(), list[0].GetTotalCents(), second.GetFeeCents(), want, 50_000+want)
	}
}

// Two schedulers (two replicas, each on its own pool) ticking at once over many due schedules,
// each with missed runs, make every occurrence exactly once and record it once.
func TestTwoSchedulersMakeEachOccurrenceOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 8})
	var ids []string
	for range 6 {
		user, pm := e.NewUser()
		ids = append(ids, createSchedule(t, e, user, pm, nil).GetId())
	}
	e.Clock.Advance(3 * week) // four dates each: 18 and 25 March, 1 and 8 April
	scs := []*app.Scheduler{scheduler(e, app.SchedulerConfig{}), replica(t, e)}
	var wg sync.WaitGroup
	for _, sc := range scs {
		for range 2 {
			wg.Go(func() {
				if _, err := sc.Tick(context.Background()); err != nil {
					t.Errorf("Tick: %v", err)
				}
			})
		}
	}
	wg.Wait()
	want := []string{"2026-03-18", "2026-03-25", "2026-04-01", "2026-04-08"}
	for _, id := range ids {
		var dates []string
		for _, tr := range scheduledTransfers(t, e, id) {
			dates = append(dates, tr.date)
		}
		if !slices.Equal(dates, want) {
			t.Fatalf("schedule %s: transfers on %v, want one on each of %v", id, dates, want)
		}
		occ := occurrences(t, e, id)
		if len(occ) != len(want) {
			t.Fatalf("schedule %s: %d occurrences recorded, want %d", id, len(occ), len(want))
		}
	}
}

// A crash between the create and the advance (simulated: the run stops after the transfer is
// committed, before the occurrence is recorded) leaves the schedule due; the next run finds the
// transfer by its key and records it, and no second transfer is made.
func TestCrashBetweenCreateAndAdvanceDoesNotDuplicate(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	sch := createSchedule(t, e, user, pm, nil)
	crash := errors.New("crashed after the create")
	crashing := scheduler(e, app.SchedulerConfig{AfterCreate: func(uuid.UUID, domain.Date) error { return crash }})
	if _, err := crashing.Tick(context.Background()); !errors.Is(err, crash) {
		t.Fatalf("crashing tick: %v", err)
	}
	if got := scheduledTransfers(t, e, sch.GetId()); len(got) != 1 {
		t.Fatalf("%d transfers after the crash, want the one committed", len(got))
	}
	if occ := occurrences(t, e, sch.GetId()); len(occ) != 0 {
		t.Fatalf("occurrences recorded by a run that crashed: %v", occ)
	}
	if list := listSchedules(t, e, user); list[0].GetNextDate() != today {
		t.Fatalf("next date %s after the crash, want still %s", list[0].GetNextDate(), today)
	}

	tick(t, scheduler(e, app.SchedulerConfig{}))
	got := scheduledTransfers(t, e, sch.GetId())
	occ := occurrences(t, e, sch.GetId())
	if len(got) != 1 || len(occ) != 1 || occ[0].transferID != got[0].id {
		t.Fatalf("after the restart: transfers %v, occurrences %v; want one, recorded", got, occ)
	}
	if list := listSchedules(t, e, user); list[0].GetNextDate() != "2026-03-25" {
		t.Fatalf("next date %s, want 2026-03-25", list[0].GetNextDate())
	}
}

// Missed runs are all made: a monthly schedule on the 31st whose scheduler did not run for
// three months makes every date, each clamped to its month's last day.
func TestMissedRunsAreAllCreated(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	sch := createSchedule(t, e, user, pm, func(r *transfersv1.CreateScheduleRequest) {
		r.StartDate = "2026-03-31"
		r.Frequency = transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_MONTHLY
	})
	sc := scheduler(e, app.SchedulerConfig{})
	if n := tick(t, sc); n != 0 {
		t.Fatalf("ran %d schedules before the start date", n)
	}
	e.Clock.Set(time.Date(2026, time.June, 30, 9, 0, 0, 0, domain.Johannesburg))
	tick(t, sc)
	var dates []string
	for _, tr := range scheduledTransfers(t, e, sch.GetId()) {
		dates = append(dates, tr.date)
	}
	if want := []string{"2026-03-31", "2026-04-30", "2026-05-31", "2026-06-30"}; !slices.Equal(dates, want) {
		t.Fatalf("transfers on %v, want %v", dates, want)
	}
	if list := listSchedules(t, e, user); list[0].GetNextDate() != "2026-07-31" {
		t.Fatalf("next date %s, want 2026-07-31", list[0].GetNextDate())
	}
}

// An occurrence refused by a limit is recorded with the limit's words, and the sender is
// e-mailed (SCHEDULED_SEND_FAILED, in the outbox in the same transaction), once however often
// the scheduler runs.
func TestLimitRefusedOccurrenceIsRecordedAndEmailed(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	sch := createSchedule(t, e, user, pm, func(r *transfersv1.CreateScheduleRequest) {
		r.AmountCents = 300_000 // R3,000: two of them pass the R5,000 day
	})
	e.Clock.Advance(week) // two dates due today: the second passes the daily limit
	sc := scheduler(e, app.SchedulerConfig{})
	tick(t, sc)
	tick(t, sc)
	occ := occurrences(t, e, sch.GetId())
	if len(occ) != 2 || occ[0].transferID == "" || occ[1].transferID != "" || !strings.Contains(occ[1].reason, "daily limit") {
		t.Fatalf("occurrences %v, want the first made and the second refused by the daily limit", occ)
	}
	if got := scheduledTransfers(t, e, sch.GetId()); len(got) != 1 {
		t.Fatalf("%d transfers, want 1", len(got))
	}
	mails := scheduleFailedEmails(t, e, sch.GetId())
	if len(mails) != 1 {
		t.Fatalf("%d SCHEDULED_SEND_FAILED requests, want 1", len(mails))
	}
	req := mails[0].Request
	p := req.GetParams()
	if req.GetRecipient() != testkit.SenderEmail || req.GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL ||
		mails[0].Subject != "thumela.notifications.transfers."+user+".email" || p["first_name"] != "Thandi" ||
		p["recipient_name"] != "Sipho Dlamini" || p["amount_cents"] != "300000" || p["date"] != "2026-03-25" || p["reason"] != occ[1].reason {
		t.Fatalf("e-mail request %v on %s", req, mails[0].Subject)
	}
	list := listSchedules(t, e, user)
	if r := list[0].GetRecentOccurrences(); len(r) != 2 || r[0].GetFailureReason() != occ[1].reason || r[0].GetTransferId() != "" {
		t.Fatalf("listed occurrences %v", r)
	}
}

// A scheduled transfer whose card is declined fails like any other, and the worker's failure
// also asks for the SCHEDULED_SEND_FAILED e-mail; a declined transfer the sender made
// themselves (they saw it fail) asks for none.
func TestDeclinedScheduledTransferIsEmailed(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser(testkit.TokenDecline)
	sch := createSchedule(t, e, user, pm, nil)
	tick(t, scheduler(e, app.SchedulerConfig{}))
	got := scheduledTransfers(t, e, sch.GetId())
	if len(got) != 1 {
		t.Fatalf("%d transfers", len(got))
	}
	failed := e.WaitStatus(t, got[0].id, domain.StatusFailed, 10*time.Second)
	mails := scheduleFailedEmails(t, e, got[0].id)
	if len(mails) != 1 {
		t.Fatalf("%d SCHEDULED_SEND_FAILED requests for the declined transfer, want 1", len(mails))
	}
	p := mails[0].Request.GetParams()
	if p["date"] != today || p["reason"] != failed.State().FailureReason || p["reason"] == "" || p["amount_cents"] != "50000" {
		t.Fatalf("params %v", p)
	}
	// The schedule's list says so too: the occurrence made a transfer, and it failed, with why.
	list := listSchedules(t, e, user)
	if len(list) != 1 || len(list[0].GetRecentOccurrences()) != 1 {
		t.Fatalf("listed %v", list)
	}
	occ := list[0].GetRecentOccurrences()[0]
	if occ.GetTransferId() != got[0].id || occ.GetTransferStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_FAILED ||
		occ.GetFailureReason() != failed.State().FailureReason {
		t.Fatalf("the declined occurrence is listed as %v", occ)
	}

	own := create(t, e.Ctx(t, user), e, testkit.Request("own-"+uuid.NewString(), pm))
	e.WaitStatus(t, own.GetId(), domain.StatusFailed, 10*time.Second)
	if n := len(scheduleFailedEmails(t, e, own.GetId())); n != 0 {
		t.Fatalf("%d SCHEDULED_SEND_FAILED requests for a transfer the sender made", n)
	}
}

// Pause stops the occurrences and skips the dates that pass meanwhile; Resume continues from
// the first date on or after today; Delete removes the schedule (its transfers stay). Each is
// announced.
func TestPauseResumeDelete(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	sch := createSchedule(t, e, user, pm, nil)
	sc := scheduler(e, app.SchedulerConfig{})
	tick(t, sc) // 18 March
	paused, err := e.Client.PauseSchedule(ctx, &transfersv1.PauseScheduleRequest{ScheduleId: sch.GetId()})
	if err != nil || paused.GetSchedule().GetState() != transfersv1.ScheduleState_SCHEDULE_STATE_PAUSED {
		t.Fatalf("PauseSchedule: %v %v", paused, err)
	}
	e.Clock.Advance(2 * week) // 25 March passes while paused; today is 1 April
	tick(t, sc)
	if got := scheduledTransfers(t, e, sch.GetId()); len(got) != 1 {
		t.Fatalf("%d transfers while paused", len(got))
	}
	resumed, err := e.Client.ResumeSchedule(ctx, &transfersv1.ResumeScheduleRequest{ScheduleId: sch.GetId()})
	if err != nil || resumed.GetSchedule().GetState() != transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE ||
		resumed.GetSchedule().GetNextDate() != "2026-04-01" {
		t.Fatalf("ResumeSchedule: %v %v", resumed, err)
	}
	tick(t, sc)
	var dates []string
	for _, tr := range scheduledTransfers(t, e, sch.GetId()) {
		dates = append(dates, tr.date)
	}
	if want := []string{"2026-03-18", "2026-04-01"}; !slices.Equal(dates, want) {
		t.Fatalf("transfers on %v, want %v (25 March skipped)", dates, want)
	}
	before := schedulesChanged(t, e, user)
	if _, err := e.Client.DeleteSchedule(ctx, &transfersv1.DeleteScheduleRequest{ScheduleId: sch.GetId()}); err != nil {
		t.Fatalf("DeleteSchedule: %v", err)
	}
	if list := listSchedules(t, e, user); len(list) != 0 {
		t.Fatalf("listed after delete: %v", list)
	}
	if schedulesChanged(t, e, user) != before+1 {
		t.Fatal("the delete was not announced")
	}
	if got := scheduledTransfers(t, e, sch.GetId()); len(got) != 2 {
		t.Fatalf("%d transfers after the delete, want the 2 made", len(got))
	}
}

// Another user's schedule id answers NotFound for every call, as an unknown or malformed one
// does, and changes nothing.
func TestAnotherUsersScheduleIsNotFound(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	owner, pm := e.NewUser()
	sch := createSchedule(t, e, owner, pm, nil)
	other, _ := e.NewUser()
	ctx := e.Ctx(t, other)
	for _, id := range []string{sch.GetId(), uuid.NewString(), "not-a-uuid"} {
		_, err := e.Client.PauseSchedule(ctx, &transfersv1.PauseScheduleRequest{ScheduleId: id})
		wantCode(t, "pause "+id, err, codes.NotFound, "Scheduled send not found.")
		_, err = e.Client.ResumeSchedule(ctx, &transfersv1.ResumeScheduleRequest{ScheduleId: id})
		wantCode(t, "resume "+id, err, codes.NotFound, "Scheduled send not found.")
		_, err = e.Client.DeleteSchedule(ctx, &transfersv1.DeleteScheduleRequest{ScheduleId: id})
		wantCode(t, "delete "+id, err, codes.NotFound, "Scheduled send not found.")
	}
	if list := listSchedules(t, e, other); len(list) != 0 {
		t.Fatalf("another user lists %v", list)
	}
	if list := listSchedules(t, e, owner); len(list) != 1 || list[0].GetState() != transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE {
		t.Fatalf("the owner's schedule after the others' calls: %v", list)
	}
}

// CreateSchedule asks what CreateTransfer asks before money moves to a new phone: the sender's
// answer to the first-payment question, then a fresh step-up; refused requests store nothing.
// The same key replays the first schedule; with another body it is AlreadyExists. Bad fields
// and a card that is not the sender's are InvalidArgument on their field.
func TestCreateScheduleNeedsConfirmationAndStepUp(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	req := scheduleRequest("form-1", pm)
	req.RecipientKnownConfirmed = false
	_, err := e.Client.CreateSchedule(e.Ctx(t, user), req)
	wantConfirmation(t, "no answer", err)

	req.RecipientKnownConfirmed = true
	_, err = e.Client.CreateSchedule(e.CtxSteppedUpAt(t, user, time.Time{}), req)
	wantStepUp(t, "no step-up", err)
	_, err = e.Client.CreateSchedule(e.CtxSteppedUpAt(t, user, time.Now().Add(-6*time.Minute)), req)
	wantStepUp(t, "stale step-up", err)
	if list := listSchedules(t, e, user); len(list) != 0 {
		t.Fatalf("refused creates stored %v", list)
	}

	res, err := e.Client.CreateSchedule(e.CtxSteppedUpAt(t, user, time.Now().Add(-time.Minute)), req)
	if err != nil {
		t.Fatalf("confirmed and stepped up: %v", err)
	}
	again, err := e.Client.CreateSchedule(e.CtxSteppedUpAt(t, user, time.Time{}), req)
	if err != nil || again.GetSchedule().GetId() != res.GetSchedule().GetId() {
		t.Fatalf("replay: %v %v", again, err)
	}
	changed := proto.Clone(req).(*transfersv1.CreateScheduleRequest)
	changed.AmountCents = 60_000
	_, err = e.Client.CreateSchedule(e.Ctx(t, user), changed)
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("same key, other body: %v", err)
	}
	if list := listSchedules(t, e, user); len(list) != 1 {
		t.Fatalf("%d schedules, want 1", len(list))
	}

	other, otherPM := e.NewUser()
	cases := []struct {
		name string
		edit func(*transfersv1.CreateScheduleRequest)
		want string
	}{
		{"start in the past", func(r *transfersv1.CreateScheduleRequest) { r.StartDate = "2026-03-17" }, "start_date: The start date cannot be in the past."},
		{"end before start", func(r *transfersv1.CreateScheduleRequest) { r.EndDate = "2026-03-10" }, "end_date: The end date cannot be before the start date."},
		{"no frequency", func(r *transfersv1.CreateScheduleRequest) { r.Frequency = 0 }, "frequency: Please choose how often to send: weekly or monthly."},
		{"another user's card", func(r *transfersv1.CreateScheduleRequest) { r.PaymentMethodId = otherPM }, "payment_method_id: " + grpcport.MsgPaymentMethodNotFound},
	}
	for _, c := range cases {
		r := scheduleRequest("bad-"+uuid.NewString(), pm)
		c.edit(r)
		_, err := e.Client.CreateSchedule(e.Ctx(t, user), r)
		if got := violations(t, err); !slices.Contains(got, c.want) {
			t.Fatalf("%s: violations %v, want %q", c.name, got, c.want)
		}
	}
	// Above the per-transfer limit: refused like a transfer, with the limit's detail.
	r := scheduleRequest("big-"+uuid.NewString(), pm)
	r.AmountCents = 310_000
	_, err = e.Client.CreateSchedule(e.Ctx(t, user), r)
	if d, _ := limitDetail(t, err); d.GetKind() != transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER {
		t.Fatalf("above the per-transfer limit: %v", err)
	}
	if list := listSchedules(t, e, other); len(list) != 0 {
		t.Fatalf("%v", list)
	}
}
