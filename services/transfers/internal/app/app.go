// Package app holds the transfers use cases: creating a transfer (idempotent, within the
// sender's limits, with the first-transfer waiver and an optional PIN of the sender's),
// reading and listing the sender's transfers, cancelling, resending or redirecting a voucher,
// reporting limits; the ATM gateway's collection and its reversal; and the worker that
// charges, issues vouchers, reminds their recipients, expires them and refunds. It declares what it needs from other services
// (PaymentMethods, Fees) and from storage (Repository).
package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/personname"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Errors of the other services, as the app sees them.
var (
	// ErrPaymentMethodNotFound: the payment method is unknown or not the caller's.
	ErrPaymentMethodNotFound = errors.New("payment method not found")
	// ErrPaymentMethodNotUsable: the method exists but cannot pay for a transfer (a bank
	// account, still 'Coming Soon').
	ErrPaymentMethodNotUsable = errors.New("payment method cannot be used for transfers")
	// ErrUnavailable wraps a failure of another service that a retry may cure.
	ErrUnavailable = errors.New("a service the transfer depends on is unavailable")
	// ErrChargeRejected: the processor refused the request itself (unknown token, bad
	// amount), as opposed to declining the card; retrying cannot help, nothing was taken.
	ErrChargeRejected = errors.New("charge rejected")
	// ErrEventsWritten: the Repository found a step's events in the outbox already (their ids,
	// derived from the step, are taken): the step was recorded before, and its retry changes
	// nothing.
	ErrEventsWritten = errors.New("the step's events were written before")
)

// PaymentMethod is the sender's method as paymentmethods answers for it.
type PaymentMethod struct {
	ID       string
	UserID   string
	Name     string
	LastFour string
	// Card is false for a method that cannot pay yet (bank account).
	Card bool
	// Token is the vault's opaque token, charged by the worker.
	Token string
}

// ChargeRequest asks for a charge of the sender's card, once per IdempotencyKey.
type ChargeRequest struct {
	UserID         string
	Token          string
	Amount         domain.Money
	IdempotencyKey string
	Description    string
}

// ChargeResult is the processor's answer: approved with a charge id, or declined with a reason.
type ChargeResult struct {
	ChargeID       string
	Approved       bool
	DeclineCode    string
	DeclineMessage string
}

// RefundRequest returns a charge's money, once per IdempotencyKey.
type RefundRequest struct {
	ChargeID       string
	Amount         domain.Money
	IdempotencyKey string
	Reason         string
}

// PaymentMethods is the paymentmethods service. GetPaymentMethod acts for the user whose
// access token is in ctx; Charge and Refund act as the transfers service.
type PaymentMethods interface {
	// GetPaymentMethod returns ErrPaymentMethodNotFound for an unknown or another user's id.
	GetPaymentMethod(ctx context.Context, userID, id string) (PaymentMethod, error)
	// Charge returns ErrChargeRejected when the request can never succeed; other errors may
	// be retried with the same idempotency key.
	Charge(ctx context.Context, req ChargeRequest) (ChargeResult, error)
	// Refund returns the processor's refund id.
	Refund(ctx context.Context, req RefundRequest) (string, error)
}

// Fees is the fees service, acting for the user whose access token is in ctx.
type Fees interface {
	Quote(ctx context.Context, bank domain.Bank, amount domain.Money) (domain.Quote, error)
}

// HeldPaymentMethods is a PaymentMethods that may hold cards in memory (a cache kept current by
// paymentmethods' events): HeldPaymentMethod answers without a call, false when it holds none.
type HeldPaymentMethods interface {
	HeldPaymentMethod(userID, id string) (PaymentMethod, bool)
}

// LocalFees is a Fees that may price from a schedule in memory: LocalQuote answers without a
// call, false when only the fees service can.
type LocalFees interface {
	LocalQuote(bank domain.Bank, amount domain.Money) (domain.Quote, bool)
}

// UserState is what the create transaction knows about the sender, under their lock.
type UserState struct {
	Usage domain.Usage
	// HasTransferred: the sender has a transfer that has not failed (the waiver is used).
	HasTransferred bool
	// PaidPhoneBefore: the sender has a transfer to the request's recipient phone that was
	// charged (completed), so the phone is not new to them (domain.NeedsStepUp).
	PaidPhoneBefore bool
}

// ListFilter selects and pages a sender's transfers.
type ListFilter struct {
	// Query: a case-insensitive substring of the recipient's name, or a substring of the
	// phone (its digits also matched against the stored E.164, so "082" finds "+2782…").
	Query  string
	Statuses []domain.Status // any of these; none for all
	// Window bounds created_at (a statement's period); zero bounds are open.
	Window Window
	Offset int
	Limit  int
}

// Repository stores transfers. Every method that changes a transfer writes its events to the
// outbox in the same transaction.
type Repository interface {
	// FindByKey returns the sender's transfer created with the idempotency key, or
	// domain.ErrNotFound.
	FindByKey(ctx context.Context, userID uuid.UUID, key string) (*domain.Transfer, error)
	// Create runs, under a lock per sender: decide is given the sender's usage in periods,
	// whether they have transferred before and whether they have paid phone before, and the
	// transfer it returns is inserted with its events. If a transfer with the key exists it is
	// returned with replayed=true instead, whatever decide said (a retry is answered, never
	// refused by what its first request passed).
	Create(ctx context.Context, userID uuid.UUID, key string, phone domain.Phone, periods domain.Periods,
		decide func(UserState) (*domain.Transfer, error)) (t *domain.Transfer, replayed bool, err error)
	// PaidPhone reports whether the sender has a charged (completed) transfer to phone.
	PaidPhone(ctx context.Context, userID uuid.UUID, phone domain.Phone) (bool, error)
	// AwaitingCollection returns the ids of the sender's vouchers awaiting collection, oldest
	// first (what FreezeVouchers cancels).
	AwaitingCollection(ctx context.Context, userID uuid.UUID) ([]uuid.UUID, error)
	// Get returns the sender's transfer, or domain.ErrNotFound (also for another user's).
	Get(ctx context.Context, userID, id uuid.UUID) (*domain.Transfer, error)
	// List returns a page of the sender's transfers, newest first, and how many match.
	List(ctx context.Context, userID uuid.UUID, f ListFilter) ([]*domain.Transfer, int, error)
	// Usage returns the sender's usage in periods.
	Usage(ctx context.Context, userID uuid.UUID, periods domain.Periods) (domain.Usage, error)
	// Uncollected returns the amounts (fees excluded) and the number of the sender's vouchers
	// awaiting collection.
	Uncollected(ctx context.Context, userID uuid.UUID) (domain.Money, int, error)
	// HasTransferred reports whether the sender has a transfer that has not failed (their
	// first-transfer waiver is used), as the create reads it (UserState.HasTransferred).
	HasTransferred(ctx context.Context, userID uuid.UUID) (bool, error)
	// Update locks the transfer, runs fn, and stores the result with its events; an error
	// from fn rolls back. userID may be uuid.Nil for the worker (no scoping).
	Update(ctx context.Context, userID, id uuid.UUID, fn func(*domain.Transfer) error) (*domain.Transfer, error)
	// ClaimCharge takes one transfer whose charge is due (FOR UPDATE SKIP LOCKED), claims it
	// until leaseUntil and returns it; nil when there is none. The claim (its change, save and
	// events) runs through step, which may be nil.
	ClaimCharge(ctx context.Context, now, leaseUntil time.Time, step Step) (*domain.Transfer, error)
	// ClaimCharges is ClaimCharge for up to limit transfers at once, oldest first, in one
	// transaction; each claim runs through step. None due is an empty slice.
	ClaimCharges(ctx context.Context, now, leaseUntil time.Time, limit int, step Step) ([]*domain.Transfer, error)
	// UpdateClaimed runs fn on t, a transfer this worker claimed, and stores the result with
	// its events without reading the row again, provided it is still as claimed (status and
	// attempt); otherwise domain.ErrInvalidTransition (another worker took the job over) and
	// t is unchanged.
	UpdateClaimed(ctx context.Context, t *domain.Transfer, fn func(*domain.Transfer) error) error
	// DueWork tells which of the worker's other batches (expiries, reminders, refunds) have
	// something due at now; a hint read without locks (the batches themselves decide).
	DueWork(ctx context.Context, now time.Time) (DueWork, error)
	// ClaimRefund is ClaimCharge for refunds.
	ClaimRefund(ctx context.Context, now, leaseUntil time.Time, step Step) (*domain.Transfer, error)
	// ExpireDue expires up to limit unclaimed vouchers past their expiry and returns how many;
	// each transfer's expiry runs through step, which may be nil.
	ExpireDue(ctx context.Context, now time.Time, limit int, step Step) (int, error)
	// RemindDue asks for the reminder SMS of up to limit vouchers that expire within
	// domain.ReminderBefore and were not reminded, and returns how many; each runs through step.
	RemindDue(ctx context.Context, now time.Time, limit int, step Step) (int, error)
	// Collect answers one ATM request (req, at at), named by its (bank, retrieval reference). A
	// request already recorded answers as it did, changing nothing (Replayed), unless it was
	// another request under the same reference (domain.ErrCollectionConflict). Otherwise judge
	// decides it inside the repository's transaction, and the voucher's change (a counted
	// attempt; the collection with its events), the unknown number's count and the request's
	// outcome are committed together. judge's error is the outcome's Refusal when it is one
	// (domain.RefusalOf); any other error rolls everything back and is returned.
	Collect(ctx context.Context, req domain.CollectRequest, at time.Time, judge CollectJudge) (CollectOutcome, error)
	// Reverse undoes the collection made by the ATM request key names: when that request was
	// recorded as an approval with key's STAN and is not reversed yet, it is marked reversed at
	// at and fn is run on its transfer, locked, which is stored with its events; reversed
	// reports whether that happened. The transfer id is the request's voucher's (uuid.Nil when
	// it collected nothing). A reversal of a request not recorded yet is remembered, and that
	// request, should it come later, is refused as reversed by Collect (a late original).
	Reverse(ctx context.Context, key domain.ReversalKey, at time.Time, fn func(*domain.Transfer) error) (transferID uuid.UUID, reversed bool, err error)
	// PruneCollectionRecords deletes up to limit wrong-attempt counts of unknown voucher numbers
	// last tried before before, and up to limit early reversals received before it, and returns
	// the larger of the two counts.
	PruneCollectionRecords(ctx context.Context, before time.Time, limit int) (int, error)
	// The saved recipients (recipients.go).
	RecipientRepository
	// The recurring sends (schedules.go).
	ScheduleRepository
	// The credit ledger and referrals (credit.go).
	CreditRepository
}

// CollectJudge decides a first ATM request inside the repository's transaction: t is the
// transfer whose voucher has the number typed, locked (nil when none has it); unknown is the
// wrong-attempt count of that number when no voucher has it, locked (nil otherwise); both are
// nil for a malformed number. The changes it makes to either are stored.
type CollectJudge func(t *domain.Transfer, unknown *domain.UnknownNumber) error

// CollectOutcome is the answer to an ATM request: approved (Refusal nil: dispense Amount) or
// refused, as first given when Replayed.
type CollectOutcome struct {
	// Transfer is the voucher's transfer as the request left it; nil for a repeat or when no
	// voucher has the number.
	Transfer    *domain.Transfer
	TransferID  uuid.UUID
	Amount      domain.Money
	CollectedAt time.Time
	Refusal     *domain.Refusal
	Replayed    bool
}

// Step wraps the change the repository makes, inside its transaction, to a transfer it
// selected and locked itself (a claim, an expiry): it must call change once, with a context
// derived from ctx, and return change's error. The worker uses it to run that change as one of
// its traced steps, so that the events written by change carry the step's trace context. The
// transaction commits (or not) after Step returns.
type Step func(ctx context.Context, t *domain.Transfer, change func(context.Context) error) error

// Caller is the authenticated sender, from the verified access token.
type Caller struct {
	UserID     string
	GivenName  string
	FamilyName string
	// Email is the sender's verified address, where their e-mails about a transfer go.
	Email string
	// SteppedUpAt is when the sender's session last proved it is them (the token's "sua");
	// zero when it never did. Transfers that need it (domain.NeedsStepUp) check it.
	SteppedUpAt time.Time
}

// sender is the caller as a transfer keeps them: named in the recipient's SMS, greeted and
// written to in their own e-mails. The names are the token's (or a schedule's copy of them),
// which identity checked at sign-up by the rule of the day; an account made before the rule
// refused web addresses may be named "Visit fnb-secure.co.za". personname.Clean keeps what
// the rule allows now, so no such name reaches the SMS next to a voucher number and PIN.
func (c Caller) sender() domain.Sender {
	c.GivenName, c.FamilyName = personname.Clean(c.GivenName), personname.Clean(c.FamilyName)
	return domain.Sender{DisplayName: c.displayName(), FirstName: c.GivenName, Email: c.Email}
}

// displayName is how the recipient's SMS names the sender: the first word of the given name
// and the family name's initial, "Thandi N.". One word, because the name is free text that
// Thumela sends under its own name to a phone the sender chooses: a first name of many words
// ("FNB Fraud Desk says your card is blocked") made the voucher SMS a bank-impersonation
// message. A second given name ("Mary Ann") is the price.
func (c Caller) displayName() string {
	given := firstWord(c.GivenName)
	family := []rune(familyInitialWord(c.FamilyName))
	switch {
	case given == "":
		return ""
	case len(family) == 0:
		return given
	default:
		return given + " " + string(family[0]) + "."
	}
}

// familyInitialWord is the word of a family name whose initial the SMS shows: the first one that
// starts with a capital, so that "van der Merwe" is "M." (not "v."), and "De Villiers" "D.";
// the first word when none does.
func familyInitialWord(s string) string {
	words := strings.Fields(s)
	for _, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			return w
		}
	}
	return firstWord(s)
}

// firstWord returns s's first whitespace-separated word.
func firstWord(s string) string {
	if words := strings.Fields(s); len(words) > 0 {
		return words[0]
	}
	return ""
}

// Config tunes the service.
type Config struct {
	Limits domain.Limits
	// Now is the clock (time.Now by default); tests move it across days and months.
	Now func() time.Time
	// NewID makes transfer ids (uuid.New, a random v4, by default).
	NewID func() uuid.UUID
	// PINs verifies the PINs typed at ATMs, MACs the PINs senders choose and the PINs of
	// re-issued vouchers (TRANSFERS_PIN_KEY); required.
	PINs *domain.PINHasher
	// Wall is the clock a caller's step-up time is judged by (time.Now by default). The step-up
	// time is identity's wall clock, like the token's expiry that the verifier checks against
	// time.Now, so it is not Now, which tests move across days and months.
	Wall func() time.Time
	// ReferralWelcome is a referred friend's welcome credit (TRANSFERS_REFERRAL_WELCOME_CENTS;
	// domain.DefaultReferralWelcome when zero).
	ReferralWelcome domain.Money
}

// Service implements the sender's use cases.
type Service struct {
	repo     Repository
	payments PaymentMethods
	fees     Fees
	// heldCards and localFees are payments and fees when they can answer from memory (nil
	// otherwise): decided once, in New, not on every create.
	heldCards HeldPaymentMethods
	localFees LocalFees
	limits    domain.Limits
	now       func() time.Time
	wall      func() time.Time
	newID     func() uuid.UUID
	pins      *domain.PINHasher
	logger    *slog.Logger
	welcome   domain.Money
}

// New returns the service.
func New(repo Repository, payments PaymentMethods, fees Fees, cfg Config, logger *slog.Logger) (*Service, error) {
	if err := cfg.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("limits: %w", err)
	}
	if cfg.PINs == nil {
		return nil, errors.New("app: Config.PINs is required (voucher collection)")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.New
	}
	if cfg.Wall == nil {
		cfg.Wall = time.Now
	}
	if cfg.ReferralWelcome.IsZero() {
		cfg.ReferralWelcome = domain.DefaultReferralWelcome
	}
	heldCards, _ := payments.(HeldPaymentMethods)
	localFees, _ := fees.(LocalFees)
	return &Service{repo: repo, payments: payments, fees: fees, heldCards: heldCards, localFees: localFees, limits: cfg.Limits,
		now: cfg.Now, wall: cfg.Wall, newID: cfg.NewID, pins: cfg.PINs, logger: logger, welcome: cfg.ReferralWelcome}, nil
}

// self returns the caller's user id: the access token's subject, which alone names the user.
// A subject that is not a user id owns nothing: domain.ErrNotFound, as an unknown transfer.
func self(c Caller) (uuid.UUID, error) {
	id, err := uuid.Parse(c.UserID)
	if err != nil {
		return uuid.Nil, domain.ErrNotFound
	}
	return id, nil
}

// replay answers a request whose key was used before: the first transfer when the request is
// the same (its hash under any PIN key, see domain.Request.Hashes), ErrIdempotencyConflict
// when it is not.
func replay(t *domain.Transfer, hashes [][]byte) (*domain.Transfer, error) {
	for _, h := range hashes {
		if bytes.Equal(t.RequestHash(), h) {
			return t, nil
		}
	}
	return nil, domain.ErrIdempotencyConflict
}

// CreateTransfer accepts a transfer, pending; the worker charges the card. The same key with
// the same request returns the first transfer; with a different one, ErrIdempotencyConflict.
// A transfer that needs a step-up (domain.NeedsStepUp) without a fresh one in the caller's
// token is domain.ErrStepUpRequired and nothing is created; a replay of a transfer already
// created needs none (the step-up was checked when it was). Likewise a first payment to a phone
// without the sender's confirmation that they know the recipient is
// domain.ErrRecipientConfirmationRequired (checked before the step-up), and a replay needs none.
func (s *Service) CreateTransfer(ctx context.Context, c Caller, in domain.RequestInput) (*domain.Transfer, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	req, err := domain.NewRequest(in)
	if err != nil {
		return nil, err
	}
	// The sender's PIN, if any, is keyed at once: it enters the idempotency hash and the
	// transfer only as MACs.
	req = req.KeyedBy(s.pins)
	hashes := req.Hashes()
	ref, quote, local := s.heldCardAndQuote(userID, req)
	if !local {
		// Another service must be asked: a retry (the browser's, the BFF's) is answered before
		// any is. (With the card and the price in this process's memory, the common case, no
		// service is asked, and the insert's transaction answers a retry through the key's
		// unique constraint (Repository.Create): a look-up here would cost every create a
		// statement and a round trip for nothing.)
		if t, err := s.repo.FindByKey(ctx, userID, req.IdempotencyKey()); err == nil {
			return replay(t, hashes)
		} else if !errors.Is(err, domain.ErrNotFound) {
			return nil, err
		}
		// Refuse what no usage could allow before asking the other services.
		if err := s.limits.Check(req.Amount(), domain.Usage{}); err != nil {
			return nil, err
		}
		ref, quote, err = s.cardAndQuote(ctx, userID, req)
		if err != nil {
			return nil, err
		}
	}
	t, replayed, err := s.create(ctx, userID, req, ref, quote, c.sender(), nil,
		func(st UserState) error {
			// After the limits: a transfer that cannot be sent anyway should not first ask the
			// sender to prove it is them. Decided under the sender's lock, on the same snapshot
			// as the limits, so the phone's history cannot change in between.
			// The first-payment question comes before the step-up: it is the sender's own
			// answer, asked on the review step, and proving it is them should come last, just
			// before money moves, not be spent on a request that still lacks their answer.
			if err := domain.CheckRecipientKnown(st.PaidPhoneBefore, req.RecipientKnownConfirmed()); err != nil {
				return err
			}
			return domain.CheckStepUp(req.Amount(), st.PaidPhoneBefore, c.SteppedUpAt, s.wall())
		})
	if err != nil {
		return nil, err
	}
	if replayed {
		return replay(t, hashes)
	}
	return t, nil
}

// cardAndQuote asks paymentmethods for the request's card (it must be the user's, and a card)
// and fees for the price, with the caller's token (CreateTransfer, CreateSchedule).
func (s *Service) cardAndQuote(ctx context.Context, userID uuid.UUID, req domain.Request) (domain.PaymentMethodRef, domain.Quote, error) {
	// The card and the quote are independent: ask both services at once, so a create waits for
	// the slower of the two hops rather than their sum.
	type quoted struct {
		quote domain.Quote
		err   error
	}
	quoteCh := make(chan quoted, 1)
	go func() {
		q, err := s.fees.Quote(ctx, req.Bank(), req.Amount())
		quoteCh <- quoted{q, err}
	}()
	pm, err := s.payments.GetPaymentMethod(ctx, userID.String(), req.PaymentMethodID())
	q := <-quoteCh // always received, so the goroutine never outlives the call
	if err != nil {
		return domain.PaymentMethodRef{}, domain.Quote{}, err
	}
	ref, err := usableCard(userID, pm)
	if err != nil {
		return domain.PaymentMethodRef{}, domain.Quote{}, err
	}
	if q.err != nil {
		return domain.PaymentMethodRef{}, domain.Quote{}, q.err
	}
	return ref, q.quote, nil
}

// usableCard is pm as a transfer pays with it: it must be userID's, and a card with a token.
func usableCard(userID uuid.UUID, pm PaymentMethod) (domain.PaymentMethodRef, error) {
	if pm.UserID != "" && pm.UserID != userID.String() {
		return domain.PaymentMethodRef{}, ErrPaymentMethodNotFound // belt and braces: paymentmethods scopes by token
	}
	if !pm.Card {
		return domain.PaymentMethodRef{}, ErrPaymentMethodNotUsable
	}
	if pm.Token == "" {
		return domain.PaymentMethodRef{}, errors.New("paymentmethods answered a card without a token")
	}
	return domain.PaymentMethodRef{ID: pm.ID, Name: pm.Name, LastFour: pm.LastFour, Token: pm.Token}, nil
}

// heldCardAndQuote is cardAndQuote answered from this process's memory, without a call: local
// is false unless both the card (a usable one) and the price are held (HeldPaymentMethods,
// LocalFees), and the caller then asks the services.
func (s *Service) heldCardAndQuote(userID uuid.UUID, req domain.Request) (ref domain.PaymentMethodRef, quote domain.Quote, local bool) {
	if s.heldCards == nil || s.localFees == nil {
		return ref, quote, false
	}
	pm, ok := s.heldCards.HeldPaymentMethod(userID.String(), req.PaymentMethodID())
	if !ok {
		return ref, quote, false
	}
	ref, err := usableCard(userID, pm)
	if err != nil {
		return ref, quote, false // the services say why, as for a card not held
	}
	quote, ok = s.localFees.LocalQuote(req.Bank(), req.Amount())
	return ref, quote, ok
}

// occurrenceOf names the schedule and date a transfer is made for (scheduler.go).
type occurrenceOf struct {
	scheduleID uuid.UUID
	date       domain.Date
}

// create is the one path by which a transfer is inserted, for CreateTransfer and for the
// scheduler's occurrences alike: under the sender's lock, a transfer with req's key is
// returned as it is (replayed); otherwise the limits, then consent (the sender's own checks;
// nil for an occurrence, whose consent was given when the schedule was made), then the fee's
// waiver are decided on one snapshot, and the transfer is inserted with its events.
func (s *Service) create(ctx context.Context, userID uuid.UUID, req domain.Request, ref domain.PaymentMethodRef, quote domain.Quote,
	sender domain.Sender, occ *occurrenceOf, consent func(UserState) error) (*domain.Transfer, bool, error) {
	now := s.now()
	return s.repo.Create(ctx, userID, req.IdempotencyKey(), req.RecipientPhone(), domain.PeriodsAt(now),
		func(st UserState) (*domain.Transfer, error) {
			if err := s.limits.Check(req.Amount(), st.Usage); err != nil {
				return nil, err
			}
			if consent != nil {
				if err := consent(st); err != nil {
					return nil, err
				}
			}
			fee := domain.DecideFee(quote, st.HasTransferred)
			t := domain.NewTransfer(s.newID(), userID, req, ref, fee, sender, now)
			t.SetTraceContext(TraceContextOf(ctx))
			if occ != nil {
				t.SetOccurrence(occ.scheduleID, occ.date)
			}
			return t, nil
		})
}

// GetTransfer returns one of the caller's transfers.
func (s *Service) GetTransfer(ctx context.Context, c Caller, id string) (*domain.Transfer, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	tid, err := uuid.Parse(id)
	if err != nil {
		return nil, domain.ErrNotFound
	}
	return s.repo.Get(ctx, userID, tid)
}

// Paging defaults (the history page shows 5).
const (
	DefaultPageSize = 5
	MaxPageSize     = 50
)

// Page is one page of the caller's transfers.
type Page struct {
	Transfers []*domain.Transfer
	Total     int
}

// listedAs is the statuses a history filter by status finds: the spec's filter has all,
// pending, completed and failed, and shows Pending and Processing alike (yellow), so "pending"
// finds every transfer still in flight, the one whose card is being charged included.
func listedAs(status domain.Status) []domain.Status {
	switch status {
	case "":
		return nil
	case domain.StatusPending:
		return []domain.Status{domain.StatusPending, domain.StatusProcessing}
	}
	return []domain.Status{status}
}

// ListTransfers pages through the caller's transfers, newest first. page is 1-based (values
// below 1 mean 1); size defaults to 5 and is capped at 50.
func (s *Service) ListTransfers(ctx context.Context, c Caller, query string, status domain.Status, w Window, page, size int) (Page, error) {
	userID, err := self(c)
	if err != nil {
		return Page{}, err
	}
	if size <= 0 {
		size = DefaultPageSize
	}
	size = min(size, MaxPageSize)
	page = max(page, 1)
	query = strings.TrimSpace(query)
	if len([]rune(query)) > 100 {
		query = string([]rune(query)[:100])
	}
	if err := w.validate(); err != nil {
		return Page{}, err
	}
	list, total, err := s.repo.List(ctx, userID, ListFilter{Query: query, Statuses: listedAs(status), Window: w, Offset: (page - 1) * size, Limit: size})
	if err != nil {
		return Page{}, err
	}
	return Page{Transfers: list, Total: total}, nil
}

// CancelTransfer cancels the caller's voucher awaiting collection; the worker refunds the
// whole total at once.
func (s *Service) CancelTransfer(ctx context.Context, c Caller, id string) (*domain.Transfer, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	tid, err := uuid.Parse(id)
	if err != nil {
		return nil, domain.ErrNotFound
	}
	now := s.now()
	return s.repo.Update(ctx, userID, tid, func(t *domain.Transfer) error { return t.Cancel(now) })
}

// Collected is an approved withdrawal: the ATM dispenses Amount.
type Collected struct {
	TransferID  uuid.UUID
	Amount      domain.Money
	CollectedAt time.Time
}

// CollectVoucher is the recipient's withdrawal at an ATM, for the ATM gateway (the domain's
// Transfer.Collect says what is checked, in which order). It is idempotent by (bank, retrieval
// reference): a repeated request answers as the first did and changes nothing. A well-formed
// voucher number that no voucher has is counted and locked like a voucher (UnknownNumber),
// after a PIN verification spent on nothing, so that neither its answers nor their speed tell
// it from a wrong PIN; a malformed one is domain.ErrInvalidVoucher. A refusal is returned as
// the domain's error for it (domain.RefusalOf), which the ports map to a CollectionRefused.
func (s *Service) CollectVoucher(ctx context.Context, in domain.CollectInput) (Collected, error) {
	req, err := domain.NewCollectRequest(in)
	if err != nil {
		return Collected{}, err
	}
	now := s.now()
	out, err := s.repo.Collect(ctx, req, now, func(t *domain.Transfer, unknown *domain.UnknownNumber) error {
		switch {
		case t != nil:
			return t.Collect(req, s.pins, now)
		case unknown != nil:
			s.pins.VerifyNothing(in.PIN)
			return unknown.Attempt(now)
		default:
			return domain.ErrInvalidVoucher
		}
	})
	if err != nil {
		return Collected{}, err
	}
	// Logged without the number, the PIN or the phone: the transfer id, the request's
	// references and the count say enough to whoever looks into a locked voucher or a dispute.
	attrs := []any{"bank", string(req.Bank()), "rrn", req.RRN(), "stan", req.STAN(), "atm_id", req.ATMID(), "replayed", out.Replayed}
	if out.TransferID != uuid.Nil {
		attrs = append(attrs, "transfer_id", out.TransferID.String())
	}
	if out.Refusal != nil {
		attrs = append(attrs, "reason", string(out.Refusal.Reason))
		if out.Transfer != nil {
			v := out.Transfer.Voucher()
			attrs = append(attrs, "failed_attempts", v.FailedAttempts, "locked", v.Locked(now))
		}
		s.logger.InfoContext(ctx, "voucher collection refused", attrs...)
		return Collected{}, out.Refusal.Err()
	}
	s.logger.InfoContext(ctx, "voucher collected", attrs...)
	return Collected{TransferID: out.TransferID, Amount: out.Amount, CollectedAt: out.CollectedAt}, nil
}

// ReverseCollection undoes the collection made by the ATM request in names (bank, rrn, stan)
// when the ATM could not dispense the cash: the voucher awaits collection again, once. A
// repeated reversal, or one of a request that collected nothing, changes nothing (reversed
// false); a reversal of a request not seen yet is remembered, and that request is refused if it
// comes with the same ATM and amount. A reversal that disagrees with the approved request (its
// ATM, amount or voucher number) or comes more than domain.MaxReversalDelay after it is
// domain.ErrReversalMismatch, with nothing changed.
func (s *Service) ReverseCollection(ctx context.Context, in domain.ReversalInput) (uuid.UUID, bool, error) {
	key, err := domain.NewReversalKey(in)
	if err != nil {
		return uuid.Nil, false, err
	}
	now := s.now()
	id, reversed, err := s.repo.Reverse(ctx, key, now, func(t *domain.Transfer) error { return t.ReverseCollection(key, now) })
	if errors.Is(err, domain.ErrReversalMismatch) {
		// Never the number: the bank, the references and the ATM the reversal claims are enough
		// for whoever looks into a link that sends them.
		s.logger.WarnContext(ctx, "collection reversal refused: it does not match the request it names", "bank", string(key.Bank),
			"rrn", key.RRN, "stan", key.STAN, "atm_id", key.ATMID, "amount_cents", key.Amount.Cents())
		return uuid.Nil, false, err
	}
	if err != nil {
		return uuid.Nil, false, err
	}
	s.logger.InfoContext(ctx, "collection reversal", "bank", string(key.Bank), "rrn", key.RRN, "stan", key.STAN,
		"transfer_id", id.String(), "reversed", reversed)
	return id, reversed, nil
}

// voucherDraws is how many voucher numbers a re-issue draws before giving up (each clash with
// a number in use draws again; with 10^10 numbers, a second draw is already rare).
const voucherDraws = 5

// ResendVoucher re-issues the caller's voucher awaiting collection with a new number (and a new
// PIN unless the sender chose it) and asks for its SMS to the same phone; at most
// domain.MaxVoucherResends times.
func (s *Service) ResendVoucher(ctx context.Context, c Caller, id string) (*domain.Transfer, error) {
	return s.reissue(ctx, c, id, func(t *domain.Transfer, v domain.IssuedVoucher, now time.Time) error {
		return t.ResendVoucher(v, now)
	})
}

// ChangeRecipientPhone re-issues the caller's voucher awaiting collection to another South
// African mobile number (validated like at create); at most domain.MaxPhoneChanges times.
// Sending the voucher to a phone is moving the money there, so it needs a step-up as a create
// would (domain.CheckStepUp: a phone the sender never paid, or a voucher above R1,000);
// otherwise it would be the way round the create's check.
func (s *Service) ChangeRecipientPhone(ctx context.Context, c Caller, id, phone string) (*domain.Transfer, error) {
	p, ok := domain.ParsePhone(phone)
	if !ok {
		return nil, &domain.ValidationError{Violations: []domain.Violation{
			{Field: "recipient_phone", Message: "Please enter a valid South African mobile number."}}}
	}
	paid := true // only looked up when the caller's step-up does not already cover it
	if !domain.SteppedUp(c.SteppedUpAt, s.wall()) {
		userID, err := self(c)
		if err != nil {
			return nil, err
		}
		if paid, err = s.repo.PaidPhone(ctx, userID, p); err != nil {
			return nil, err
		}
	}
	return s.reissue(ctx, c, id, func(t *domain.Transfer, v domain.IssuedVoucher, now time.Time) error {
		// Checked on the locked transfer, after ChangeRecipientPhone's own refusals (the same
		// number, a voucher not awaiting collection): those say more than a step-up would.
		if err := t.ChangeRecipientPhone(p, v, now); err != nil {
			return err
		}
		return domain.CheckStepUp(t.Amount(), paid, c.SteppedUpAt, s.wall())
	})
}

func (s *Service) reissue(ctx context.Context, c Caller, id string,
	fn func(*domain.Transfer, domain.IssuedVoucher, time.Time) error) (*domain.Transfer, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	tid, err := uuid.Parse(id)
	if err != nil {
		return nil, domain.ErrNotFound
	}
	for range voucherDraws {
		now := s.now()
		// The TTL is not used: a re-issue keeps the voucher's expiry.
		v, err := domain.NewVoucher(s.pins, tid, now, 0)
		if err != nil {
			return nil, err
		}
		t, err := s.repo.Update(ctx, userID, tid, func(t *domain.Transfer) error { return fn(t, v, now) })
		if errors.Is(err, domain.ErrVoucherNumberTaken) {
			continue
		}
		return t, err
	}
	return nil, errors.New("no free voucher number after several draws")
}
