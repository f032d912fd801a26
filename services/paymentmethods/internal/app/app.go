// Package app holds the payment-method use cases: the user's own cards (each call scoped to
// the calling user), tokenization into the vault, and charges and refunds by token for the
// transfers service, each made at most once per idempotency key.
package app

import (
	"log/slog"
	"time"
)

// Caller is the authenticated user making a request, from the verified access token.
type Caller struct{ UserID string }

// DefaultProcessorTimeout bounds one processor call.
const DefaultProcessorTimeout = 30 * time.Second

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
	keys             Vault
	fingerprints     Fingerprinter
	processor        Processor
	processorTimeout time.Duration
	now              func() time.Time
	logger           *slog.Logger
}

// New returns the service.
func New(repo Repository, keys Vault, fingerprints Fingerprinter, processor Processor, opts Options) *Service {
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
