// Package sandbox is Thumela's built-in card processor (the default): it moves no money and
// decides by card number, like the big processors' test cards (DECISIONS.md, Transfers):
//
//	4242 4242 4242 4242, 5555 5555 5555 4444  approve
//	4000 0000 0000 0002                       can be added (the zero-amount check approves), every
//	                                          charge declined card_declined (so a saved card can
//	                                          show a failed transfer)
//	4000 0000 0000 9995                       declined, insufficient_funds (the card can be added:
//	                                          a zero-amount check needs no funds)
//	4000 0000 0000 0259                       approves slowly (SlowDelay, 10 s by default)
//	4000 0000 0000 0341                       can be added, every charge declined card_declined
//	                                          (an addition to DECISIONS.md, as in processors'
//	                                          "attach succeeds, charge fails" card)
//	any other Luhn-valid number               approves
//
// An expired card is declined expired_card. Every call takes Delay (about a second, like a
// real processor). Calls are idempotent per key: a repeated key, also while the first call is
// running, returns the first answer without a second charge; a key reused with different
// parameters is an error. Keys are remembered in memory for 24 hours, like a processor's
// idempotency window.
//
// Like a real processor, the sandbox keeps its own records of the charges it decided and the
// refunds it made, by idempotency key (Options.Store: in production the table
// sandbox_processor_records, apart from paymentmethods' own tables). A key repeated after a
// restart is answered from them, and Records reads them for reconciliation.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// Test card numbers.
const (
	CardVisa              = "4242424242424242"
	CardMastercard        = "5555555555554444"
	CardDeclined          = "4000000000000002" // saved fine, every charge declined
	CardInsufficientFunds = "4000000000009995"
	CardSlow              = "4000000000000259"
	CardDeclinedOnCharge  = "4000000000000341"
)

// Decline codes and messages.
const (
	CodeCardDeclined      = "card_declined"
	CodeInsufficientFunds = "insufficient_funds"
	CodeExpiredCard       = "expired_card"
	CodeIncorrectNumber   = "incorrect_number"
	CodeIncorrectCVC      = "incorrect_cvc"

	MsgCardDeclined      = "Your card was declined."
	MsgInsufficientFunds = "Your card has insufficient funds."
	MsgExpiredCard       = "Your card has expired."
	MsgIncorrectNumber   = "Your card number is incorrect."
	MsgIncorrectCVC      = "Your card's security code is incorrect."
)

// Defaults.
const (
	DefaultDelay     = time.Second
	DefaultSlowDelay = 10 * time.Second
	// keyRetention is how long an idempotency key is remembered.
	keyRetention = 24 * time.Hour
	// pruneEvery is how often the keys past their retention are looked for.
	pruneEvery = time.Minute
)

// ErrIdempotencyMismatch: a key was reused with different parameters.
var ErrIdempotencyMismatch = errors.New("sandbox: idempotency key reused with different parameters")

// Options configure the sandbox.
type Options struct {
	// Delay is added to every call (0 in tests).
	Delay time.Duration
	// SlowDelay replaces Delay for the slow test card's charges.
	SlowDelay time.Duration
	// Now is the clock for expiry checks (default time.Now).
	Now func() time.Time
	// Store keeps the processor's records (default: in memory).
	Store Store
}

// Processor is the sandbox. It implements app.Processor.
type Processor struct {
	opts Options

	mu    sync.Mutex
	calls map[string]*call
	// pruned is when calls was last pruned.
	pruned time.Time

	executions atomic.Int64 // operations actually performed, not answered from memory
}

var _ app.Processor = (*Processor)(nil)

type call struct {
	signature string
	at        time.Time
	done      chan struct{}
	out       domain.Outcome
	err       error
}

// New returns a sandbox processor.
func New(opts Options) *Processor {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Store == nil {
		opts.Store = NewMemoryStore()
	}
	return &Processor{opts: opts, calls: map[string]*call{}}
}

// Verify implements app.Processor: a zero-amount authorization with the CVV.
func (p *Processor) Verify(ctx context.Context, key string, card app.Card) (domain.Outcome, error) {
	sig := signature("verify", card, 0, "")
	return p.once(ctx, "verify", key, sig, func(ctx context.Context) (domain.Outcome, error) {
		if err := sleep(ctx, p.opts.Delay); err != nil {
			return domain.Outcome{}, err
		}
		if out, refused := p.refuse(card); refused {
			return out, nil
		}
		if card.CVV.IsZero() {
			return declined(CodeIncorrectCVC, MsgIncorrectCVC), nil
		}
		return approved("seti_sbx_"), nil
	})
}

// Charge implements app.Processor.
func (p *Processor) Charge(ctx context.Context, key string, card app.Card, amount domain.Money, _ string) (domain.Outcome, error) {
	sig := signature("charge", card, amount.Cents(), "")
	return p.once(ctx, "charge", key, sig, func(ctx context.Context) (domain.Outcome, error) {
		if out, ok, err := p.recorded(ctx, app.RecordCharge, key, sig); ok || err != nil {
			return out, err
		}
		delay := p.opts.Delay
		if string(card.Number.Reveal()) == CardSlow {
			delay = p.opts.SlowDelay
		}
		if err := sleep(ctx, delay); err != nil {
			return domain.Outcome{}, err
		}
		out, refused := p.refuse(card)
		if !refused {
			switch string(card.Number.Reveal()) {
			case CardDeclined, CardDeclinedOnCharge:
				out = declined(CodeCardDeclined, MsgCardDeclined)
			case CardInsufficientFunds:
				out = declined(CodeInsufficientFunds, MsgInsufficientFunds)
			default:
				out = approved("ch_sbx_")
			}
		}
		return p.record(ctx, app.RecordCharge, key, sig, out.Reference, amount, out)
	})
}

// Refund implements app.Processor: every refund of a sandbox charge succeeds.
func (p *Processor) Refund(ctx context.Context, key string, chargeReference string, amount domain.Money) (domain.Outcome, error) {
	sig := "refund|" + chargeReference + "|" + strconv.FormatInt(amount.Cents(), 10)
	return p.once(ctx, "refund", key, sig, func(ctx context.Context) (domain.Outcome, error) {
		if out, ok, err := p.recorded(ctx, app.RecordRefund, key, sig); ok || err != nil {
			return out, err
		}
		if err := sleep(ctx, p.opts.Delay); err != nil {
			return domain.Outcome{}, err
		}
		if chargeReference == "" {
			return declined("invalid_charge", "The charge to refund is unknown."), nil // nothing moved: no record
		}
		return p.record(ctx, app.RecordRefund, key, sig, chargeReference, amount, approved("re_sbx_"))
	})
}

// Records implements app.Processor: the sandbox's own records of the keys.
func (p *Processor) Records(ctx context.Context, keys []string) ([]app.ProcessorRecord, error) {
	recs, err := p.opts.Store.Find(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]app.ProcessorRecord, len(recs))
	for i, r := range recs {
		out[i] = r.ProcessorRecord
	}
	return out, nil
}

// recorded answers a key the processor has a record of (made before a restart): its outcome,
// or ErrIdempotencyMismatch when the parameters differ.
func (p *Processor) recorded(ctx context.Context, kind app.ProcessorRecordKind, key, sig string) (domain.Outcome, bool, error) {
	r, ok, err := p.opts.Store.Get(ctx, kind, key)
	if err != nil || !ok {
		return domain.Outcome{}, false, err
	}
	if r.Signature != sig {
		return domain.Outcome{}, true, ErrIdempotencyMismatch
	}
	return outcomeOf(r), true, nil
}

// record writes the processor's record of a decided charge or a made refund and answers with
// the record kept (the first, should two processes have raced on the key).
func (p *Processor) record(ctx context.Context, kind app.ProcessorRecordKind, key, sig, chargeID string, amount domain.Money, out domain.Outcome) (domain.Outcome, error) {
	status := domain.StatusDeclined
	if out.Approved {
		status = domain.StatusApproved
	}
	r, err := p.opts.Store.Save(ctx, Record{
		ProcessorRecord: app.ProcessorRecord{IdempotencyKey: key, Kind: kind, ChargeID: chargeID, Status: status, Amount: amount},
		Reference:       out.Reference, DeclineCode: out.DeclineCode, DeclineMessage: out.DeclineMessage, Signature: sig,
	})
	if err != nil {
		return domain.Outcome{}, err // not recorded: as if the processor was not reached
	}
	if r.Signature != sig {
		return domain.Outcome{}, ErrIdempotencyMismatch
	}
	return outcomeOf(r), nil
}

func outcomeOf(r Record) domain.Outcome {
	return domain.Outcome{Approved: r.Status == domain.StatusApproved, Reference: r.Reference,
		DeclineCode: r.DeclineCode, DeclineMessage: r.DeclineMessage}
}

// refuse declines what no processor would accept: an invalid number or an expired card.
func (p *Processor) refuse(card app.Card) (domain.Outcome, bool) {
	if !domain.Luhn(string(card.Number.Reveal())) {
		return declined(CodeIncorrectNumber, MsgIncorrectNumber), true
	}
	if card.Expiry.Expired(p.opts.Now()) {
		return declined(CodeExpiredCard, MsgExpiredCard), true
	}
	return domain.Outcome{}, false
}

// once runs fn for the first call of (op, key) and gives every later call of the same key
// its answer, waiting while it is being computed. A call that failed (the processor was not
// reached: here only a cancelled context) is forgotten, so a retry performs it.
func (p *Processor) once(ctx context.Context, op, key, sig string, fn func(context.Context) (domain.Outcome, error)) (domain.Outcome, error) {
	id := op + "\x00" + key
	p.mu.Lock()
	c, ok := p.calls[id]
	if !ok {
		p.pruneLocked()
		c = &call{signature: sig, at: time.Now(), done: make(chan struct{})}
		p.calls[id] = c
	}
	p.mu.Unlock()
	if ok {
		if c.signature != sig {
			return domain.Outcome{}, ErrIdempotencyMismatch
		}
		select {
		case <-c.done:
			return c.out, c.err
		case <-ctx.Done():
			return domain.Outcome{}, ctx.Err()
		}
	}
	p.executions.Add(1)
	c.out, c.err = fn(ctx)
	if c.err != nil {
		p.mu.Lock()
		delete(p.calls, id)
		p.mu.Unlock()
	}
	close(c.done)
	return c.out, c.err
}

// pruneLocked forgets keys older than the retention, now and then: at most once a minute, as
// a pass reads every key (pruning on every new key once 1,024 are kept made each charge's cost
// grow with the day's charges).
func (p *Processor) pruneLocked() {
	now := time.Now()
	if len(p.calls) < 1024 || now.Sub(p.pruned) < pruneEvery {
		return
	}
	p.pruned = now
	cutoff := now.Add(-keyRetention)
	for id, c := range p.calls {
		if c.at.Before(cutoff) {
			select {
			case <-c.done:
				delete(p.calls, id)
			default:
			}
		}
	}
}

// signature identifies a call's parameters without keeping the card number.
func signature(op string, card app.Card, cents int64, extra string) string {
	return op + "|" + card.Number.LastFour() + "|" + card.Expiry.String() + "|" + strconv.FormatInt(cents, 10) + "|" + extra
}

func approved(prefix string) domain.Outcome {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return domain.Outcome{Approved: true, Reference: prefix + base64.RawURLEncoding.EncodeToString(b[:])}
}

func declined(code, msg string) domain.Outcome {
	return domain.Outcome{DeclineCode: code, DeclineMessage: msg}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
