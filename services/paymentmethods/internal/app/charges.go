package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

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

// leaseMargin is how much longer than a processor call a charge's lease lasts, so a lease never
// runs out while its holder is still waiting for the processor.
const leaseMargin = 5 * time.Second

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
