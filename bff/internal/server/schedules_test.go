package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

var scheduleCreatedAt = time.Date(2026, 3, 18, 10, 0, 0, 0, time.UTC)

// weeklySchedule is a weekly R500.00 to Thandi on the user's Visa, one occurrence sent and one
// refused.
func weeklySchedule(id string, state transfersv1.ScheduleState) *transfersv1.Schedule {
	return &transfersv1.Schedule{
		Id: id, RecipientName: "Thandi Mokoena", RecipientPhone: "+27821234567", Bank: feesv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", PaymentMethodName: "Visa", PaymentMethodLastFour: "4242",
		Frequency: transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY, StartDate: "2026-03-20", EndDate: "2026-06-26",
		State: state, NextDate: "2026-04-03",
		RecentOccurrences: []*transfersv1.ScheduleOccurrence{
			{Date: "2026-03-27", FailureReason: "This send would pass your daily limit of R5,000.00.", CreatedAt: timestamppb.New(scheduleCreatedAt)},
			{Date: "2026-03-20", TransferId: "tr-1", CreatedAt: timestamppb.New(scheduleCreatedAt)},
		},
		CreatedAt: timestamppb.New(scheduleCreatedAt), UpdatedAt: timestamppb.New(scheduleCreatedAt),
	}
}

// transfersError is transfers' refusal with an ErrorInfo reason (STEP_UP_REQUIRED,
// RECIPIENT_CONFIRMATION_REQUIRED).
func transfersError(msg, reason string) error {
	st, _ := status.New(codes.FailedPrecondition, msg).WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: "transfers.thumela.co.za"})
	return st.Err()
}

func (f *fakeTransfers) CreateSchedule(ctx context.Context, req *transfersv1.CreateScheduleRequest) (*transfersv1.CreateScheduleResponse, error) {
	f.record(ctx, "CreateSchedule", req)
	if !req.GetRecipientKnownConfirmed() {
		return nil, transfersError("Do you know Thandi Mokoena personally?", "RECIPIENT_CONFIRMATION_REQUIRED")
	}
	return &transfersv1.CreateScheduleResponse{Schedule: weeklySchedule("sc-new", transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE)}, nil
}

func (f *fakeTransfers) ListSchedules(ctx context.Context, req *transfersv1.ListSchedulesRequest) (*transfersv1.ListSchedulesResponse, error) {
	f.record(ctx, "ListSchedules", req)
	return &transfersv1.ListSchedulesResponse{Schedules: []*transfersv1.Schedule{
		weeklySchedule("sc-1", transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE),
	}}, nil
}

// The fake keeps one schedule, sc-1; any other id is another user's (or none), as transfers
// answers it.
func (f *fakeTransfers) PauseSchedule(ctx context.Context, req *transfersv1.PauseScheduleRequest) (*transfersv1.PauseScheduleResponse, error) {
	f.record(ctx, "PauseSchedule", req)
	if req.GetScheduleId() != "sc-1" {
		return nil, status.Error(codes.NotFound, "schedule not found")
	}
	return &transfersv1.PauseScheduleResponse{Schedule: weeklySchedule("sc-1", transfersv1.ScheduleState_SCHEDULE_STATE_PAUSED)}, nil
}

func (f *fakeTransfers) ResumeSchedule(ctx context.Context, req *transfersv1.ResumeScheduleRequest) (*transfersv1.ResumeScheduleResponse, error) {
	f.record(ctx, "ResumeSchedule", req)
	if req.GetScheduleId() != "sc-1" {
		return nil, status.Error(codes.NotFound, "schedule not found")
	}
	return &transfersv1.ResumeScheduleResponse{Schedule: weeklySchedule("sc-1", transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE)}, nil
}

func (f *fakeTransfers) DeleteSchedule(ctx context.Context, req *transfersv1.DeleteScheduleRequest) (*transfersv1.DeleteScheduleResponse, error) {
	f.record(ctx, "DeleteSchedule", req)
	if req.GetScheduleId() != "sc-1" {
		return nil, status.Error(codes.NotFound, "schedule not found")
	}
	return &transfersv1.DeleteScheduleResponse{}, nil
}

func (f *fakeTransfers) GetCredit(ctx context.Context, req *transfersv1.GetCreditRequest) (*transfersv1.GetCreditResponse, error) {
	f.record(ctx, "GetCredit", req)
	return &transfersv1.GetCreditResponse{
		BalanceCents: 3755, ReferralCode: "THU-7Q4K2M9X", FriendsJoined: 2, FriendsRewarded: 1, RewardsEarnedCents: 10000,
		RecentMovements: []*transfersv1.CreditMovement{
			{Id: "m-3", Kind: transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_SPENT, AmountCents: -11245, TransferId: "tr-9", OccurredAt: timestamppb.New(scheduleCreatedAt)},
			{Id: "m-2", Kind: transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD, AmountCents: 10000, OccurredAt: timestamppb.New(scheduleCreatedAt)},
			{Id: "m-1", Kind: transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME, AmountCents: 5000, OccurredAt: timestamppb.New(scheduleCreatedAt)},
		},
	}, nil
}

func (b *transfersBFF) schedules() bffv1connect.SchedulesServiceClient {
	return bffv1connect.NewSchedulesServiceClient(b.hc, b.srv.URL)
}

// The schedule RPCs reach transfers for the session's user with the user's token, and the
// answers keep every field the /recipients page shows; the first-payment question passes
// through with its ErrorInfo.
func TestSchedulesAreForwardedForTheSessionsUser(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	ctx := context.Background()
	schedules := b.schedules()

	req := &bffv1.CreateScheduleRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi Mokoena", RecipientPhone: "082 123 4567", Bank: bffv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", Frequency: bffv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY,
		StartDate: "2026-03-20", EndDate: "2026-06-26",
	}
	_, err := schedules.CreateSchedule(ctx, req)
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || errorInfoReason(ce) != "RECIPIENT_CONFIRMATION_REQUIRED" {
		t.Fatalf("unconfirmed first payment: %v, want FailedPrecondition RECIPIENT_CONFIRMATION_REQUIRED", err)
	}

	req.RecipientKnownConfirmed = true
	created, err := schedules.CreateSchedule(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got := b.transfers.last(t, "CreateSchedule")
	want := &transfersv1.CreateScheduleRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi Mokoena", RecipientPhone: "082 123 4567", Bank: feesv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", Frequency: transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY,
		StartDate: "2026-03-20", EndDate: "2026-06-26", RecipientKnownConfirmed: true,
	}
	if !proto.Equal(got.req, want) {
		t.Errorf("transfers got %v\nwant %v", got.req, want)
	}
	if !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("CreateSchedule came with %q, want the user's access token", got.authorization)
	}
	wantSchedule := &bffv1.Schedule{
		Id: "sc-new", RecipientName: "Thandi Mokoena", RecipientPhone: "+27821234567", Bank: bffv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", PaymentMethodName: "Visa", PaymentMethodLastFour: "4242",
		Frequency: bffv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY, StartDate: "2026-03-20", EndDate: "2026-06-26",
		State: bffv1.ScheduleState_SCHEDULE_STATE_ACTIVE, NextDate: "2026-04-03",
		RecentOccurrences: []*bffv1.ScheduleOccurrence{
			{Date: "2026-03-27", FailureReason: "This send would pass your daily limit of R5,000.00.", CreatedAt: timestamppb.New(scheduleCreatedAt)},
			{Date: "2026-03-20", TransferId: "tr-1", CreatedAt: timestamppb.New(scheduleCreatedAt)},
		},
		CreatedAt: timestamppb.New(scheduleCreatedAt), UpdatedAt: timestamppb.New(scheduleCreatedAt),
	}
	if !proto.Equal(created.GetSchedule(), wantSchedule) {
		t.Errorf("created schedule = %v\nwant %v", created.GetSchedule(), wantSchedule)
	}

	list, err := schedules.ListSchedules(ctx, &bffv1.ListSchedulesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if s := list.GetSchedules(); len(s) != 1 || s[0].GetId() != "sc-1" || len(s[0].GetRecentOccurrences()) != 2 {
		t.Fatalf("schedules %v", s)
	}
	if got := b.transfers.last(t, "ListSchedules").req; !proto.Equal(got, &transfersv1.ListSchedulesRequest{}) {
		t.Fatalf("transfers got %v", got)
	}

	paused, err := schedules.PauseSchedule(ctx, &bffv1.PauseScheduleRequest{ScheduleId: "sc-1"})
	if err != nil || paused.GetSchedule().GetState() != bffv1.ScheduleState_SCHEDULE_STATE_PAUSED {
		t.Fatalf("pause: %v %v", paused, err)
	}
	if got := b.transfers.last(t, "PauseSchedule").req; !proto.Equal(got, &transfersv1.PauseScheduleRequest{ScheduleId: "sc-1"}) {
		t.Fatalf("transfers got %v", got)
	}
	resumed, err := schedules.ResumeSchedule(ctx, &bffv1.ResumeScheduleRequest{ScheduleId: "sc-1"})
	if err != nil || resumed.GetSchedule().GetState() != bffv1.ScheduleState_SCHEDULE_STATE_ACTIVE {
		t.Fatalf("resume: %v %v", resumed, err)
	}
	if got := b.transfers.last(t, "ResumeSchedule").req; !proto.Equal(got, &transfersv1.ResumeScheduleRequest{ScheduleId: "sc-1"}) {
		t.Fatalf("transfers got %v", got)
	}
	if _, err := schedules.DeleteSchedule(ctx, &bffv1.DeleteScheduleRequest{ScheduleId: "sc-1"}); err != nil {
		t.Fatal(err)
	}
	if got := b.transfers.last(t, "DeleteSchedule").req; !proto.Equal(got, &transfersv1.DeleteScheduleRequest{ScheduleId: "sc-1"}) {
		t.Fatalf("transfers got %v", got)
	}

	// Another user's schedule: transfers, asked with this user's token, answers NotFound, and
	// so does the BFF.
	if _, err := schedules.PauseSchedule(ctx, &bffv1.PauseScheduleRequest{ScheduleId: "someone-elses"}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("pause another user's schedule: %v, want NotFound", err)
	}
	if _, err := schedules.DeleteSchedule(ctx, &bffv1.DeleteScheduleRequest{ScheduleId: "someone-elses"}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("delete another user's schedule: %v, want NotFound", err)
	}
	if got := b.transfers.last(t, "DeleteSchedule"); !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Errorf("transfers was asked without the user's token: %q", got.authorization)
	}
}

// GetCredit answers the session's user's balance, code, figures and movements.
func TestCreditIsForwardedForTheSessionsUser(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	res, err := bffv1connect.NewCreditServiceClient(b.hc, b.srv.URL).GetCredit(context.Background(), &bffv1.GetCreditRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := b.transfers.last(t, "GetCredit")
	if !proto.Equal(got.req, &transfersv1.GetCreditRequest{}) || !strings.HasPrefix(got.authorization, "Bearer access-for-") {
		t.Fatalf("transfers got %v with %q", got.req, got.authorization)
	}
	want := &bffv1.GetCreditResponse{
		BalanceCents: 3755, ReferralCode: "THU-7Q4K2M9X", FriendsJoined: 2, FriendsRewarded: 1, RewardsEarnedCents: 10000,
		RecentMovements: []*bffv1.CreditMovement{
			{Id: "m-3", Kind: bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_SPENT, AmountCents: -11245, TransferId: "tr-9", OccurredAt: timestamppb.New(scheduleCreatedAt)},
			{Id: "m-2", Kind: bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD, AmountCents: 10000, OccurredAt: timestamppb.New(scheduleCreatedAt)},
			{Id: "m-1", Kind: bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME, AmountCents: 5000, OccurredAt: timestamppb.New(scheduleCreatedAt)},
		},
	}
	if !proto.Equal(res, want) {
		t.Fatalf("credit = %v\nwant %v", res, want)
	}
}

func TestSchedulesAndCreditNeedASession(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	visitor := &http.Client{Transport: b.srv.Client().Transport}
	schedules := bffv1connect.NewSchedulesServiceClient(visitor, b.srv.URL)
	credit := bffv1connect.NewCreditServiceClient(visitor, b.srv.URL)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"CreateSchedule": func() error {
			_, err := schedules.CreateSchedule(ctx, &bffv1.CreateScheduleRequest{IdempotencyKey: "k", AmountCents: 50000, RecipientKnownConfirmed: true})
			return err
		},
		"ListSchedules": func() error { _, err := schedules.ListSchedules(ctx, &bffv1.ListSchedulesRequest{}); return err },
		"PauseSchedule": func() error {
			_, err := schedules.PauseSchedule(ctx, &bffv1.PauseScheduleRequest{ScheduleId: "sc-1"})
			return err
		},
		"ResumeSchedule": func() error {
			_, err := schedules.ResumeSchedule(ctx, &bffv1.ResumeScheduleRequest{ScheduleId: "sc-1"})
			return err
		},
		"DeleteSchedule": func() error {
			_, err := schedules.DeleteSchedule(ctx, &bffv1.DeleteScheduleRequest{ScheduleId: "sc-1"})
			return err
		},
		"GetCredit": func() error { _, err := credit.GetCredit(ctx, &bffv1.GetCreditRequest{}); return err },
	} {
		if err := call(); connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Errorf("%s without a session: %v, want Unauthenticated", name, err)
		}
	}
	b.transfers.mu.Lock()
	defer b.transfers.mu.Unlock()
	if len(b.transfers.calls) != 0 {
		t.Errorf("a call without a session reached transfers: %v", b.transfers.calls)
	}
}

func (f *stepUpTransfers) CreateSchedule(ctx context.Context, req *transfersv1.CreateScheduleRequest) (*transfersv1.CreateScheduleResponse, error) {
	tok := authorization(ctx)
	f.mu.Lock()
	f.tokens = append(f.tokens, tok)
	f.mu.Unlock()
	if !strings.HasSuffix(tok, "+sua") {
		return nil, transfersError("Please confirm it's you before setting up this send.", "STEP_UP_REQUIRED")
	}
	return &transfersv1.CreateScheduleResponse{Schedule: &transfersv1.Schedule{Id: "sc-1", AmountCents: req.GetAmountCents()}}, nil
}

// CreateSchedule answers STEP_UP_REQUIRED as CreateTransfer does, and after a step-up made
// through another replica it goes through with identity's fresh grant.
func TestCreateScheduleStepUpThroughTheBFF(t *testing.T) {
	t.Parallel()
	identity := &steppingIdentity{fakeIdentity: &fakeIdentity{sessions: map[string]bool{}}}
	transfers := &stepUpTransfers{}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
		transfersv1.RegisterTransfersServiceServer(s, transfers)
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	srv := serveBFF(t, &handlers.Deps{
		Logger:    quietLogger(),
		Identity:  idClient,
		Profiles:  profilesv1.NewProfilesServiceClient(conn),
		Transfers: transfersv1.NewTransfersServiceClient(conn),
		Tokens:    session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:   session.Cookies{Secure: true},
	})
	auth, hc := client(t, srv)
	ctx := context.Background()
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	api := bffv1connect.NewSchedulesServiceClient(hc, srv.URL)
	req := &bffv1.CreateScheduleRequest{IdempotencyKey: "k-1", RecipientName: "Sipho", RecipientPhone: "083 765 4321",
		Bank: bffv1.Bank_BANK_FNB, AmountCents: 150_000, PaymentMethodId: "pm-1",
		Frequency: bffv1.ScheduleFrequency_SCHEDULE_FREQUENCY_MONTHLY, StartDate: "2026-03-31", RecipientKnownConfirmed: true}

	_, err := api.CreateSchedule(ctx, req)
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || errorInfoReason(ce) != "STEP_UP_REQUIRED" {
		t.Fatalf("without a step-up: %v, want FailedPrecondition STEP_UP_REQUIRED", err)
	}
	identity.mu.Lock()
	identity.steppedUp = true // FinishStepUp at another replica
	identity.mu.Unlock()
	res, err := api.CreateSchedule(ctx, req)
	if err != nil || res.GetSchedule().GetId() != "sc-1" {
		t.Fatalf("after a step-up elsewhere: %v %v", res, err)
	}
}

// errorInfoReason is the reason of the error's google.rpc.ErrorInfo ("" without one).
func errorInfoReason(ce *connect.Error) string {
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if info, ok := m.(*errdetails.ErrorInfo); ok {
				return info.GetReason()
			}
		}
	}
	return ""
}

// A SchedulesChanged reaches its user's tab as schedules_changed and a CreditChanged as
// credit_changed with the balance; another user's tab gets neither.
func TestLiveEventsForwardSchedulesAndCreditChanged(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	mine, _ := watch(t, ctx, bff.signIn(t, "u1"), "")
	theirs, _ := watch(t, ctx, bff.signIn(t, "u2"), "")

	publish(t, js, "thumela.transfers.u1.schedules", &transfersv1.SchedulesChanged{UserId: "u1"})
	publish(t, js, "thumela.transfers.u1.credit", &transfersv1.CreditChanged{UserId: "u1", BalanceCents: 5000})
	publish(t, js, "thumela.transfers.u2.credit", &transfersv1.CreditChanged{UserId: "u2", BalanceCents: 99900})

	got := next(t, mine)
	if got.GetSchedulesChanged() == nil || got.GetCursor() == "" {
		t.Fatalf("first event = %v, want schedules_changed with a cursor", got)
	}
	got = next(t, mine)
	if got.GetCreditChanged() == nil || got.GetCreditChanged().GetBalanceCents() != 5000 {
		t.Fatalf("second event = %v, want credit_changed with R50.00", got)
	}
	// u2's tab skips u1's two events: its first is its own balance.
	if got := next(t, theirs); got.GetCreditChanged().GetBalanceCents() != 99900 {
		t.Fatalf("u2's first event = %v, want its own credit_changed", got)
	}
}

// A transfer made by a schedule and paid partly with credit reaches the tab with its schedule,
// occurrence date, credit applied and card charge (the details dialog shows them).
func TestLiveTransfersCarryScheduleAndCredit(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tab, _ := watch(t, ctx, signedIn(t, bff), "")

	publish(t, js, "thumela.transfers.u1.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: "tr-7", UserId: "u1", AmountCents: 50000, FeeCents: 1245, TotalAmountCents: 51245,
		Status: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING, ScheduleId: "sc-1", OccurrenceDate: "2026-03-27",
		CreditAppliedCents: 5000, CardChargeCents: 46245,
	}})
	tr := next(t, tab).GetTransferUpdated().GetTransfer()
	if tr.GetId() != "tr-7" || tr.GetScheduleId() != "sc-1" || tr.GetOccurrenceDate() != "2026-03-27" ||
		tr.GetCreditAppliedCents() != 5000 || tr.GetCardChargeCents() != 46245 {
		t.Fatalf("transfer = %v", tr)
	}
}

// referralIdentity records the sign-ups it is asked for.
type referralIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	mu      sync.Mutex
	signUps []*identityv1.SignUpRequest
}

func (f *referralIdentity) SignUp(_ context.Context, req *identityv1.SignUpRequest) (*identityv1.SignUpResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.signUps = append(f.signUps, proto.Clone(req).(*identityv1.SignUpRequest))
	if req.GetReferralCode() == "not-a-code" {
		st, _ := status.New(codes.InvalidArgument, "invalid request").WithDetails(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "referral_code", Description: "This referral code is not valid."}}})
		return nil, st.Err()
	}
	return &identityv1.SignUpResponse{Email: req.GetEmail(), ResendAvailableAt: timestamppb.Now()}, nil
}

// SignUp forwards /signup?ref=<code>'s code to identity as typed (identity checks it), and
// identity's field violation reaches the form.
func TestSignUpForwardsTheReferralCode(t *testing.T) {
	t.Parallel()
	identity := &referralIdentity{}
	conn := serveUpstream(t, func(s *grpc.Server) { identityv1.RegisterIdentityServiceServer(s, identity) })
	idClient := identityv1.NewIdentityServiceClient(conn)
	srv := serveBFF(t, &handlers.Deps{
		Logger: quietLogger(), Identity: idClient,
		Tokens:  session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies: session.Cookies{Secure: true},
	})
	auth, _ := client(t, srv)
	ctx := context.Background()
	req := &bffv1.SignUpRequest{FirstName: "Sipho", LastName: "Dlamini", Email: "sipho@example.co.za",
		Password: "correct horse battery", ConfirmPassword: "correct horse battery", ReferralCode: " thu-7q4k2m9x "}
	if _, err := auth.SignUp(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.ReferralCode = "not-a-code"
	_, err := auth.SignUp(ctx, req)
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("bad code: %v, want InvalidArgument", err)
	}
	if v := badRequest(t, ce).GetFieldViolations(); len(v) != 1 || v[0].GetField() != "referral_code" {
		t.Fatalf("violations %v", v)
	}
	identity.mu.Lock()
	defer identity.mu.Unlock()
	if len(identity.signUps) != 2 || identity.signUps[0].GetReferralCode() != " thu-7q4k2m9x " || identity.signUps[0].GetEmail() != "sipho@example.co.za" {
		t.Fatalf("identity got %v", identity.signUps)
	}
}

// CreateSchedule is limited per account like a costly RPC: a burst of six, then refused with
// RetryInfo; GetCredit at a page's pace is not.
func TestCreateScheduleIsRateLimitedPerAccount(t *testing.T) {
	t.Parallel()
	n := natstest.Start(t)
	_, admin := n.Connect(t, bus.IdentityAdmin)
	if err := bus.EnsureStreams(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	_, js := n.Connect(t, "bff")
	identity := &fakeIdentity{sessions: map[string]bool{}}
	transfers := &fakeTransfers{}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
		transfersv1.RegisterTransfersServiceServer(s, transfers)
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	srv := serveBFF(t, &handlers.Deps{
		Logger: quietLogger(), Identity: idClient, Transfers: transfersv1.NewTransfersServiceClient(conn),
		Profiles: profilesv1.NewProfilesServiceClient(conn),
		Tokens:   session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:  session.Cookies{Secure: true},
		JS:       js,
	})
	auth, hc := client(t, srv)
	ctx := context.Background()
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	schedules := bffv1connect.NewSchedulesServiceClient(hc, srv.URL)
	credit := bffv1connect.NewCreditServiceClient(hc, srv.URL)
	passed, refused := 0, 0
	for range 12 {
		_, err := schedules.CreateSchedule(ctx, &bffv1.CreateScheduleRequest{IdempotencyKey: "k", AmountCents: 50000, RecipientKnownConfirmed: true})
		if err == nil {
			passed++
		} else if _, ok := retryAfter(t, err); ok {
			refused++
		} else {
			t.Fatal(err)
		}
	}
	if passed < 6 || passed > 7 || refused == 0 {
		t.Fatalf("12 CreateSchedule calls at once: %d passed, %d refused; want the burst of 6", passed, refused)
	}
	for i := range 10 {
		if _, err := credit.GetCredit(ctx, &bffv1.GetCreditRequest{}); err != nil {
			t.Fatalf("GetCredit %d: %v", i, err)
		}
	}
}
