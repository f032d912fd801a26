// Package app holds the payment-method use cases: the user's own cards (each call scoped to
// the calling user), tokenization into the vault, and charges and refunds by token for the
// transfers service, each made at most once per idempotency key.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	"github.com/thumela/thumela/services/paymentmethods/internal/vault"
)

// Caller is the authenticated user making a request, from the verified access token.
type Caller struct{ UserID string }

// DefaultProcessorTimeout bounds one processor call.
const DefaultProcessorTimeout = 30 * time.Second

// leaseMargin is how much longer than a processor call a charge's lease lasts, so a lease never
// runs out while its holder is still waiting for the processor.
const leaseMargin = 5 * time.Second

// Options tune a Service.
type Options struct {
	// ProcessorTimeout bounds one processor call (default DefaultProcessorTimeout).
	ProcessorTimeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// Service implements the use cases.
type Service struct {
	repo             Repository
	keys             *vault.Keyring
	fingerprints     *vault.Fingerprinter
	processor        Processor
	processorTimeout time.Duration
	now              func() time.Time
	logger           *slog.Logger
}

// New returns the service.
func New(repo Repository, keys *vault.Keyring, fingerprints *vault.Fingerprinter, processor Processor, opts Options) *Service {
	s := &Service{
		repo: repo, keys: keys, fingerprints: fingerprints, processor: processor,
		processorTimeout: opts.ProcessorTimeout, now: opts.Now, logger: opts.Logger,
	}
	if s.processorTimeout <= 0 {
		s.processorTimeout = DefaultProcessorTimeout
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	return s
}

// scope returns the user whose methods the caller may act on: their own. Any other user id,
// or one that is not a user id at all, is ErrNotFound, exactly as an unknown method, so nothing
// tells a caller whether someone else's methods exist.
func scope(caller Caller, userID string) (uuid.UUID, error) {
	want, err := uuid.Parse(userID)
	if err != nil {
		return uuid.Nil, domain.ErrNotFound
	}
	self, err := uuid.Parse(caller.UserID)
	if err != nil || self != want {
		return uuid.Nil, domain.ErrNotFound
	}
	return self, nil
}

// methodID parses a payment method id; a malformed one is simply not found.
func methodID(id string) (uuid.UUID, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, domain.ErrNotFound
	}
	return u, nil
}

// List returns the caller's methods, the default first, then newest first.
func (s *Service) List(ctx context.Context, caller Caller, userID string) ([]domain.PaymentMethod, error) {
	uid, err := scope(caller, userID)
	if err != nil {
		return nil, err
	}
	return s.repo.List(ctx, uid)
}

// Get returns one of the caller's methods.
func (s *Service) Get(ctx context.Context, caller Caller, userID, id string) (domain.PaymentMethod, error) {
	uid, err := scope(caller, userID)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	mid, err := methodID(id)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	return s.repo.Get(ctx, uid, mid)
}

// AddCard validates a card, checks it with the processor (a zero-amount authorization with the
// CVV), encrypts the number into the vault under a new token and saves the method. The CVV is
// used for that authorization only; the number and CVV are wiped from memory on return.
func (s *Service) AddCard(ctx context.Context, caller Caller, userID string, in domain.CardInput) (domain.PaymentMethod, error) {
	uid, err := scope(caller, userID)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	card, err := domain.ValidateCard(in, s.now())
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	defer card.Wipe()
	number := card.Number()

	fingerprint := s.fingerprints.Sum(number.Reveal())
	saved, err := s.repo.HasFingerprint(ctx, uid, fingerprint)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	if saved {
		return domain.PaymentMethod{}, domain.ErrAlreadySaved
	}
	// Refuse before asking the processor when the user has no room left; Add checks again
	// under the user's lock.
	existing, err := s.repo.List(ctx, uid)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	if len(existing) >= domain.MaxMethodsPerUser {
		return domain.PaymentMethod{}, domain.ErrTooManyMethods
	}

	pctx, cancel := context.WithTimeout(ctx, s.processorTimeout)
	defer cancel()
	outcome, err := s.processor.Verify(pctx, "verify_"+uuid.NewString(),
		Card{Number: number, Expiry: card.Expiry(), CVV: card.CVV(), Holder: card.Name()})
	if err != nil {
		return domain.PaymentMethod{}, fmt.Errorf("%w: verify: %w", domain.ErrProcessorUnavailable, err)
	}
	if !outcome.Approved {
		s.logger.InfoContext(ctx, "card declined at tokenization",
			"brand", number.Brand().String(), "last_four", number.LastFour(), "decline_code", outcome.DeclineCode)
		return domain.PaymentMethod{}, &domain.DeclinedError{Code: outcome.DeclineCode, Message: outcome.DeclineMessage}
	}

	token, err := vault.NewToken()
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	sealed, err := s.keys.Seal(token, number.Reveal())
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	return s.repo.Add(ctx, NewMethod{
		ID: id, UserID: uid, Name: card.Name(), Brand: number.Brand(), LastFour: number.LastFour(),
		Expiry: card.Expiry(), Token: token, Fingerprint: fingerprint, Sealed: sealed, WantDefault: card.IsDefault(),
	}, domain.MaxMethodsPerUser)
}

// Update renames one of the caller's methods and, when isDefault, makes it the default.
// isDefault false never clears the flag: a user with cards always has exactly one default,
// and it moves only to another card (SetDefault, or Update of that card).
func (s *Service) Update(ctx context.Context, caller Caller, userID, id, name string, isDefault bool) (domain.PaymentMethod, error) {
	uid, err := scope(caller, userID)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	mid, err := methodID(id)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	name, v := domain.ParseName(name)
	if v != nil {
		return domain.PaymentMethod{}, &domain.ValidationError{Violations: []domain.FieldViolation{*v}}
	}
	return s.repo.Update(ctx, uid, mid, name, isDefault)
}

// SetDefault makes one of the caller's methods the default and clears the others.
func (s *Service) SetDefault(ctx context.Context, caller Caller, userID, id string) (domain.PaymentMethod, error) {
	uid, err := scope(caller, userID)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	mid, err := methodID(id)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	return s.repo.SetDefault(ctx, uid, mid)
}

// Delete removes one of the caller's methods unless a transfer or charge uses it.
func (s *Service) Delete(ctx context.Context, caller Caller, userID, id string) error {
	uid, err := scope(caller, userID)
	if err != nil {
		return err
	}
	mid, err := methodID(id)
	if err != nil {
		return err
	}
	return s.repo.Delete(ctx, uid, mid)
}

// RecordTransferUsage notes that a transfer uses a method, from the transfers service's
// events. Ids that cannot name a method are ignored: there is nothing to protect.
func (s *Service) RecordTransferUsage(ctx context.Context, userID, paymentMethodID, transferID string) error {
	uid, err1 := uuid.Parse(userID)
	mid, err2 := uuid.Parse(paymentMethodID)
	if err1 != nil || err2 != nil || transferID == "" {
		return nil
	}
	return s.repo.MarkUsedByTransfer(ctx, uid, mid, transferID)
}

// RewrapKeys re-wraps every vault record still under a retired key-encryption key with the
// current one, so a retired key can be removed from configuration afterwards.
func (s *Service) RewrapKeys(ctx context.Context) (int, error) {
	return s.repo.RewrapAll(ctx, s.keys.CurrentID(), func(token string, sealed vault.Sealed) (vault.Sealed, error) {
		out, _, err := s.keys.Rewrap(token, sealed)
		return out, err
	})
}

// ChargeInput is a charge request of the transfers service.
type ChargeInput struct {
	UserID         string
	Token          string
	AmountCents    int64
	IdempotencyKey string
	Description    string
}

// Charge takes money from the user's tokenized card, once per idempotency key: a repeated
// key returns the first result without calling the processor again, also while the first
// request is still running (the repeat waits for it). The charge is recorded as pending before
// the processor is called (outside any transaction), then completed with its answer; a pending
// charge left by a crash is resumed by the next retry with the same processor key.
func (s *Service) Charge(ctx context.Context, in ChargeInput) (domain.Charge, error) {
	var violations domain.Violations
	amount, v := domain.ParseAmount(in.AmountCents)
	violations.Add(v)
	key, v := domain.ParseIdempotencyKey(in.IdempotencyKey)
	violations.Add(v)
	description, v := domain.ParseNote(domain.FieldDescription, in.Description)
	violations.Add(v)
	if in.Token == "" {
		violations.Add(&domain.FieldViolation{Field: domain.FieldToken, Message: "Token is required"})
	}
	if err := violations.Err(); err != nil {
		return domain.Charge{}, err
	}
	uid, err := uuid.Parse(in.UserID)
	if err != nil {
		return domain.Charge{}, domain.ErrNotFound
	}

	ch, leased, err := s.repo.BeginCharge(ctx, NewCharge{
		IdempotencyKey: key, UserID: uid, Token: in.Token, Amount: amount, Description: description,
	}, s.lease())
	if err != nil {
		return domain.Charge{}, err
	}
	return settle(ctx, s.maxWait(), ch, leased,
		func(ctx context.Context) (domain.Charge, bool, error) {
			return s.repo.LeaseCharge(ctx, ch.ID, s.lease())
		},
		s.processCharge)
}

// processCharge calls the processor for a charge this request holds the lease of. The number
// is decrypted here, just for the call, and wiped after it. The call and the recording of its
// answer outlive the caller's cancellation (bounded by the processor timeout), so an answer
// the processor gave is not lost.
func (s *Service) processCharge(ctx context.Context, ch domain.Charge) (domain.Charge, error) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.processorTimeout)
	defer cancel()
	rec, err := s.repo.VaultRecord(pctx, ch.PaymentMethodID)
	if err != nil {
		s.releaseCharge(pctx, ch.ID)
		return domain.Charge{}, err
	}
	digits, err := s.keys.Open(rec.Token, rec.Sealed)
	if err != nil {
		s.releaseCharge(pctx, ch.ID)
		return domain.Charge{}, fmt.Errorf("open the vault record of charge %s: %w", ch.ID, err)
	}
	card := Card{Number: domain.PANFromDigits(digits), Expiry: rec.Expiry, Holder: rec.Name}
	// The processor's idempotency key is the caller's (the transfer's): a repeat under it is
	// answered with the first charge, and the processor's records are found by it
	// (ListProcessorRecords), as a reconciliation asks for them.
	outcome, err := s.processor.Charge(pctx, ch.IdempotencyKey, card, ch.Amount, ch.Description)
	card.Number.Wipe()
	if err != nil {
		s.releaseCharge(pctx, ch.ID)
		return domain.Charge{}, fmt.Errorf("%w: charge %s: %w", domain.ErrProcessorUnavailable, ch.ID, err)
	}
	return s.repo.CompleteCharge(pctx, ch.ID, outcome)
}

func (s *Service) releaseCharge(ctx context.Context, id uuid.UUID) {
	if err := s.repo.ReleaseCharge(ctx, id); err != nil {
		s.logger.WarnContext(ctx, "could not release a charge's lease; a retry resumes it when the lease runs out",
			"charge_id", id.String(), "error", err)
	}
}

// RefundInput is a refund request of the transfers service.
type RefundInput struct {
	ChargeID       string
	AmountCents    int64
	IdempotencyKey string
	Reason         string
}

// Refund returns part or all of an approved charge, once per idempotency key, the same way as
// Charge. A refund the processor refuses is a *domain.DeclinedError, every time the key is
// repeated.
func (s *Service) Refund(ctx context.Context, in RefundInput) (domain.Refund, error) {
	var violations domain.Violations
	amount, v := domain.ParseAmount(in.AmountCents)
	violations.Add(v)
	key, v := domain.ParseIdempotencyKey(in.IdempotencyKey)
	violations.Add(v)
	reason, v := domain.ParseNote(domain.FieldReason, in.Reason)
	violations.Add(v)
	if err := violations.Err(); err != nil {
		return domain.Refund{}, err
	}
	chargeID, err := uuid.Parse(in.ChargeID)
	if err != nil {
		return domain.Refund{}, domain.ErrNotFound
	}
	r, leased, err := s.repo.BeginRefund(ctx, NewRefund{IdempotencyKey: key, ChargeID: chargeID, Amount: amount, Reason: reason}, s.lease())
	if err != nil {
		return domain.Refund{}, err
	}
	r, err = settle(ctx, s.maxWait(), r, leased,
		func(ctx context.Context) (domain.Refund, bool, error) {
			return s.repo.LeaseRefund(ctx, r.ID, s.lease())
		},
		s.processRefund)
	if err != nil {
		return domain.Refund{}, err
	}
	if r.Status == domain.StatusDeclined {
		return r, &domain.DeclinedError{Code: r.FailureCode, Message: r.FailureMessage}
	}
	return r, nil
}

func (s *Service) processRefund(ctx context.Context, r domain.Refund) (domain.Refund, error) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.processorTimeout)
	defer cancel()
	outcome, err := s.processor.Refund(pctx, r.IdempotencyKey, r.ChargeReference, r.Amount)
	if err != nil {
		if rerr := s.repo.ReleaseRefund(pctx, r.ID); rerr != nil {
			s.logger.WarnContext(ctx, "could not release a refund's lease", "refund_id", r.ID.String(), "error", rerr)
		}
		return domain.Refund{}, fmt.Errorf("%w: refund %s: %w", domain.ErrProcessorUnavailable, r.ID, err)
	}
	return s.repo.CompleteRefund(pctx, r.ID, outcome)
}

// MaxProcessorRecordKeys bounds one ListProcessorRecords request.
const MaxProcessorRecordKeys = 1000

// ListProcessorRecords reads the processor's own records of the charges and refunds made
// under keys (the transfers service's idempotency keys), through the processor's API: what
// the processor says happened, whatever this service's tables say.
func (s *Service) ListProcessorRecords(ctx context.Context, keys []string) ([]ProcessorRecord, error) {
	if len(keys) > MaxProcessorRecordKeys {
		return nil, &domain.ValidationError{Violations: []domain.FieldViolation{{
			Field: "idempotency_keys", Message: fmt.Sprintf("At most %d idempotency keys", MaxProcessorRecordKeys),
		}}}
	}
	for _, k := range keys {
		if _, v := domain.ParseIdempotencyKey(k); v != nil {
			v.Field = "idempotency_keys"
			return nil, &domain.ValidationError{Violations: []domain.FieldViolation{*v}}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	pctx, cancel := context.WithTimeout(ctx, s.processorTimeout)
	defer cancel()
	recs, err := s.processor.Records(pctx, keys)
	if err != nil {
		return nil, fmt.Errorf("%w: records: %w", domain.ErrProcessorUnavailable, err)
	}
	return recs, nil
}

// lease is how long a request may hold a pending charge or refund: one processor call and a
// margin.
func (s *Service) lease() time.Duration { return s.processorTimeout + leaseMargin }

// maxWait is how long a repeated request waits for the first: past the lease, so that when the
// first request died mid-call the repeat takes the lease over and finishes the job.
func (s *Service) maxWait() time.Duration { return s.lease() + 2*time.Second }

// pending is a charge or refund row.
type pending interface{ Pending() bool }

// settle finishes an idempotent processor operation recorded as row. A row already answered
// is returned as is. The request holding the lease calls process. Any other request polls
// until the answer is recorded or the lease runs out (the holder died), in which case it takes
// the lease and calls process itself: with the same processor key, so the processor answers
// the first call's result instead of charging again.
func settle[T pending](ctx context.Context, maxWait time.Duration, row T, leased bool,
	lease func(context.Context) (T, bool, error), process func(context.Context, T) (T, error),
) (T, error) {
	deadline := time.Now().Add(maxWait)
	backoff := 10 * time.Millisecond
	for {
		if !row.Pending() {
			return row, nil
		}
		if leased {
			return process(ctx, row)
		}
		if !time.Now().Before(deadline) {
			return row, domain.ErrInProgress
		}
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
			return row, ctx.Err()
		case <-timer.C:
		}
		backoff = min(backoff*2, 250*time.Millisecond)
		var err error
		if row, leased, err = lease(ctx); err != nil {
			return row, err
		}
	}
}
