// Package app is the gateway's use cases: pay out a voucher at an ATM, and undo a payout the
// ATM could not complete. Transfers owns the vouchers; this layer adds what only the gateway
// can know: how long an ATM can wait, and that an answer it gave up waiting for may still have
// collected the voucher.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// Transfers is what the gateway needs from the transfers service.
type Transfers interface {
	// CollectVoucher collects the voucher for withdrawal w: the Collection, a
	// *domain.RefusedError, domain.ErrIssuerUnavailable, or another error (a fault).
	CollectVoucher(ctx context.Context, w domain.Withdrawal) (domain.Collection, error)
	// ReverseCollection undoes the collection made by the request r names; reversed is false
	// for a repeat, or when that request collected nothing.
	ReverseCollection(ctx context.Context, r domain.Reversal) (domain.ReversalResult, error)
}

// Config is the use cases' timing.
type Config struct {
	// Timeout bounds each call to transfers (CASHOUT_REQUEST_TIMEOUT): shorter than the
	// switch's own timeout, so the ATM gets a decline (91) rather than nothing.
	Timeout time.Duration
	// StandInRetry is the first pause between attempts of a stand-in reversal; it doubles up to
	// a minute. StandInWindow is how long the gateway keeps trying before it gives up and logs
	// the reversal for on-call (docs/cashout.md, runbook).
	StandInRetry  time.Duration
	StandInWindow time.Duration
}

// Defaults for the zero Config fields.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultStandInRetry  = time.Second
	DefaultStandInWindow = 10 * time.Minute
	maxStandInPause      = time.Minute
)

// Service runs the use cases.
type Service struct {
	transfers Transfers
	cfg       Config
	logger    *slog.Logger
	standIns  metric.Int64Counter

	mu       sync.Mutex
	stopping bool
	stop     chan struct{} // closed when Close gives up waiting
	stopOnce sync.Once
	inflight sync.WaitGroup
}

// New returns the service.
func New(transfers Transfers, cfg Config, logger *slog.Logger) (*Service, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StandInRetry <= 0 {
		cfg.StandInRetry = DefaultStandInRetry
	}
	if cfg.StandInWindow <= 0 {
		cfg.StandInWindow = DefaultStandInWindow
	}
	counter, err := otel.Meter(instrumentation).Int64Counter("thumela.cashout.stand_in_reversals",
		metric.WithDescription("Reversals the gateway sent on its own, for a withdrawal whose outcome it could not know (transfers too slow or unreachable) or whose amount was wrong, by outcome (reversed, nothing_to_reverse, gave_up)."),
		metric.WithUnit("{reversal}"))
	if err != nil {
		return nil, fmt.Errorf("app: metric: %w", err)
	}
	return &Service{transfers: transfers, cfg: cfg, logger: logger, standIns: counter, stop: make(chan struct{})}, nil
}

const instrumentation = "github.com/thumela/thumela/services/cashout/internal/app"

// Withdraw collects the voucher for an ATM withdrawal. When the outcome is unknown (transfers
// did not answer in time or could not be reached) it returns ErrIssuerUnavailable, so the ATM
// dispenses nothing, and reverses the request on its own in the background: transfers may have
// collected the voucher after all, and nobody else would undo it, since an ATM does not reverse
// a request it was told was declined.
func (s *Service) Withdraw(ctx context.Context, w domain.Withdrawal) (domain.Collection, error) {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	c, err := s.transfers.CollectVoucher(cctx, w)
	switch {
	case errors.Is(err, domain.ErrIssuerUnavailable):
		s.standInReversal(ctx, w, "outcome unknown")
		return domain.Collection{}, err
	case err != nil:
		return domain.Collection{}, err
	case c.Amount != w.Amount:
		// Transfers checks the amount; should it ever approve another one, the ATM must not pay
		// out what it did not ask for, and the voucher must not stay collected.
		s.logger.ErrorContext(ctx, "transfers approved another amount than the ATM asked for; reversing",
			"requested_cents", int64(w.Amount), "approved_cents", int64(c.Amount), "rrn", w.RRN, "bank", w.Bank.String())
		s.standInReversal(ctx, w, "wrong amount approved")
		return domain.Collection{}, domain.Refused(domain.ReasonWrongAmount)
	}
	return c, nil
}

// Reverse undoes the withdrawal r names. Reversed is false for a repeat or for a request that
// collected nothing; either way the switch's advice is answered, since it changed all it
// should.
func (s *Service) Reverse(ctx context.Context, r domain.Reversal) (domain.ReversalResult, error) {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	return s.transfers.ReverseCollection(cctx, r)
}

// standInReversal reverses w in the background until transfers acknowledges it, within
// StandInWindow. The goroutine keeps ctx's trace (not its cancellation).
func (s *Service) standInReversal(ctx context.Context, w domain.Withdrawal, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		s.logger.ErrorContext(ctx, "stand-in reversal not sent: the gateway is stopping; reverse by hand (docs/cashout.md runbook)",
			"bank", w.Bank.String(), "rrn", w.RRN, "stan", w.STAN, "voucher", w.Voucher)
		s.record(ctx, "gave_up")
		return
	}
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		// A child of the ISO request's span (which has ended by then): the same trace.
		ctx, span := otel.Tracer(instrumentation).Start(context.WithoutCancel(ctx), "cashout stand-in reversal",
			trace.WithAttributes(
				attribute.String("thumela.cashout.bank", w.Bank.String()),
				attribute.String("iso8583.rrn", w.RRN),
				attribute.String("thumela.cashout.reason", why)))
		defer span.End()
		s.reverseUntilDone(ctx, w, why)
	}()
}

func (s *Service) reverseUntilDone(ctx context.Context, w domain.Withdrawal, why string) {
	deadline := time.Now().Add(s.cfg.StandInWindow)
	pause := s.cfg.StandInRetry
	for attempt := 1; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		result, err := s.transfers.ReverseCollection(cctx, w.Reversal())
		cancel()
		if err == nil {
			outcome := "nothing_to_reverse"
			if result.Reversed {
				outcome = "reversed"
			}
			s.logger.WarnContext(ctx, "stand-in reversal acknowledged", "why", why, "reversed", result.Reversed, "transfer_id", result.TransferID,
				"bank", w.Bank.String(), "rrn", w.RRN, "stan", w.STAN, "attempts", attempt)
			s.record(ctx, outcome)
			return
		}
		if time.Now().Add(pause).After(deadline) {
			s.logger.ErrorContext(ctx, "stand-in reversal gave up; reverse by hand (docs/cashout.md runbook)", "why", why,
				"bank", w.Bank.String(), "rrn", w.RRN, "stan", w.STAN, "voucher", w.Voucher, "attempts", attempt, "error", err)
			s.record(ctx, "gave_up")
			return
		}
		select {
		case <-time.After(pause):
		case <-s.stop:
			s.logger.ErrorContext(ctx, "stand-in reversal abandoned at shutdown; reverse by hand (docs/cashout.md runbook)", "why", why,
				"bank", w.Bank.String(), "rrn", w.RRN, "stan", w.STAN, "voucher", w.Voucher, "attempts", attempt, "error", err)
			s.record(ctx, "gave_up")
			return
		}
		pause = min(2*pause, maxStandInPause)
	}
}

func (s *Service) record(ctx context.Context, outcome string) {
	s.standIns.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", outcome)))
}

// Close waits, until ctx ends, for the stand-in reversals still being retried; past that it
// abandons them (each is logged for on-call).
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.stopOnce.Do(func() { close(s.stop) })
		<-done
		return nil
	}
}
