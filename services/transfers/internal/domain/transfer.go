package domain

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Status is the transfer's progress (DECISIONS.md): pending (accepted, not charged),
// processing (the card is being charged), completed (charged, voucher issued), failed
// (declined or not chargeable; nothing was taken).
type Status string

// The four statuses.
const (
	StatusPending    Status = "pending"
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
)

// Statuses lists every status.
var Statuses = []Status{StatusPending, StatusProcessing, StatusCompleted, StatusFailed}

// transitions is the whole state machine: pending → processing → completed | failed.
// Nothing goes backwards, nothing leaves completed or failed, and no step repeats.
var transitions = map[Status][]Status{
	StatusPending:    {StatusProcessing},
	StatusProcessing: {StatusCompleted, StatusFailed},
}

// CanBecome reports whether the state machine allows s → to.
func (s Status) CanBecome(to Status) bool { return slices.Contains(transitions[s], to) }

// Known reports whether s is one of the four statuses.
func (s Status) Known() bool { return slices.Contains(Statuses, s) }

// RefundStatus tracks the refund owed after a cancelled or expired voucher.
type RefundStatus string

// Refund states; "" means none is owed.
const (
	RefundPending  RefundStatus = "pending"
	RefundRefunded RefundStatus = "refunded"
)

// Refund is the refund of the whole total (fee included) after a cancellation or expiry.
type Refund struct {
	Status RefundStatus
	ID     string // the processor's refund id
	Reason string // "cancelled" or "expired"
}

// PaymentMethodRef is the sender's card as it was when the transfer was made: its name and
// last four digits for history (no call to paymentmethods to show a list), and the vault's
// opaque token for the charge. The token is never returned by the API.
type PaymentMethodRef struct {
	ID       string
	Name     string
	LastFour string
	Token    string
}

// State is every stored field of a transfer: what the repository reads and writes. Only
// Restore and the Transfer's methods produce one that is consistent.
type State struct {
	ID             uuid.UUID
	UserID         uuid.UUID
	IdempotencyKey string
	RequestHash    []byte
	// SenderName is how the recipient's SMS names the sender (from the access token).
	SenderName string
	// SenderFirstName and SenderEmail address the sender's own e-mails (receipt, cash
	// collected, refund), from the access token at creation; empty for transfers made before
	// they were kept, which then get no e-mail.
	SenderFirstName string
	SenderEmail     string
	RecipientName   string
	RecipientPhone  Phone
	// SenderPINHash is the MAC (PINHasher) of the PIN the sender chose, kept from creation
	// until the voucher is issued with it (and for every re-issue); "" when the PIN is drawn.
	SenderPINHash string
	Bank          Bank
	Amount        Money
	Fee           Fee
	Status        Status
	FailureReason string
	PaymentMethod PaymentMethodRef
	Location      Location
	ChargeID      string
	// Attempts counts the claims of the current job (the charge, then a refund).
	Attempts int
	// LeaseUntil: while processing (or refunding), no worker may take the job again before
	// this time; a worker that died is replaced once it passes.
	LeaseUntil time.Time
	Voucher    Voucher
	Refund     Refund
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// TraceContext is the W3C trace context (traceparent, and tracestate if any) of the
	// request that created the transfer, so that the worker's steps join that request's trace.
	// Opaque here; nil when there was none.
	TraceContext map[string]string
	// RecipientKnownConfirmed is the sender's answer to the first-payment question ("Do you know
	// {name} personally?") as the create request carried it.
	RecipientKnownConfirmed bool
	// SaveRecipient: when the transfer completes, its recipient is saved (or updated) in the
	// sender's recipients; false when the sender unticked 'Save {name} for next time'.
	SaveRecipient bool
	// CreditApplied is the sender's credit spent on the transfer when it was created (credit.go);
	// the card is charged the rest of the total (CardCharge).
	CreditApplied Money
	// ScheduleID and OccurrenceDate are set when the scheduler made the transfer for one
	// occurrence of a recurring send (uuid.Nil and the zero Date otherwise).
	ScheduleID     uuid.UUID
	OccurrenceDate Date
}

// Event is something that happened to a transfer, to be published through the outbox in the
// same transaction as the change.
type Event interface{ isEvent() }

// StatusChanged: the status moved from Previous ("" at creation) to the transfer's current.
type StatusChanged struct {
	Previous Status
	At       time.Time
}

// VoucherIssued: the voucher was issued; PIN is the clear PIN for the recipient's SMS ("" when
// the sender chose it: the SMS then carries only the voucher number).
type VoucherIssued struct {
	PIN string
	At  time.Time
}

// VoucherReissued: the sender had the voucher sent again (to the same or another phone) with a
// new number and, unless they chose it, a new PIN (PIN, "" otherwise). Reissue numbers the
// re-issues of the transfer from 1.
type VoucherReissued struct {
	PIN     string
	Reissue int
	At      time.Time
	// SamePhone: a resend, to the phone that has the earlier voucher's SMS (not a new number).
	SamePhone bool
}

// VoucherChanged: the voucher's collection status changed (cancelled, expired).
type VoucherChanged struct{ At time.Time }

// VoucherLocked: wrong PINs or phone numbers at ATMs locked the voucher until Until. The sender
// is told (their open pages, through the voucher's event): the recipient may be the one who
// mistyped, and a resend gives them a new voucher at once.
type VoucherLocked struct{ At, Until time.Time }

// VoucherSMSFailed: the SMS provider could not deliver the voucher SMS of delivery Delivery (a
// notification request's id) to the recipient's number, for Reason (words a sender may read;
// may be empty). The sender is told by e-mail: only they can change the number or resend it.
type VoucherSMSFailed struct {
	At       time.Time
	Delivery string
	Reason   string
}

// VoucherCollected: the recipient withdrew the cash (the collection status is collected) with
// the ATM request RRN.
type VoucherCollected struct {
	At  time.Time
	RRN string
}

// VoucherReversed: the collection by ATM request RRN was reversed (the ATM could not dispense);
// the voucher awaits collection again.
type VoucherReversed struct {
	At  time.Time
	RRN string
}

// VoucherReminder: the recipient is to be reminded that the voucher expires soon.
type VoucherReminder struct{ At time.Time }

// RefundCompleted: the refund owed after a cancellation or expiry was made.
type RefundCompleted struct{ At time.Time }

func (StatusChanged) isEvent()    {}
func (VoucherIssued) isEvent()    {}
func (VoucherReissued) isEvent()  {}
func (VoucherChanged) isEvent()   {}
func (VoucherLocked) isEvent()    {}
func (VoucherSMSFailed) isEvent() {}
func (VoucherCollected) isEvent() {}
func (VoucherReversed) isEvent()  {}
func (VoucherReminder) isEvent()  {}
func (RefundCompleted) isEvent()  {}

// Sender is who makes a transfer, as the access token names them: how the recipient's SMS
// names them (DisplayName, "Thandi N."), and the first name and e-mail address their own
// e-mails go to.
type Sender struct {
	DisplayName string
	FirstName   string
	Email       string
}

// Bounds of the sender's details kept on a transfer: identity's own, so that a token it did
// not issue (or a future change there) cannot make a transfer fail on the column checks.
const (
	MaxSenderName  = 100
	MaxSenderEmail = 254 // RFC 5321's longest path
)

// normalised trims s's fields and drops what could not be a name or an address: a transfer
// must not fail because of how the sender is to be greeted.
func (s Sender) normalised() Sender {
	s.DisplayName = truncateRunes(strings.TrimSpace(s.DisplayName), MaxSenderName)
	s.FirstName = truncateRunes(strings.TrimSpace(s.FirstName), MaxSenderName)
	s.Email = strings.TrimSpace(s.Email)
	if len(s.Email) > MaxSenderEmail || !strings.Contains(s.Email, "@") || !utf8.ValidString(s.Email) {
		s.Email = ""
	}
	return s
}

func truncateRunes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// Transfer is one cash-send transfer and its voucher.
type Transfer struct {
	s      State
	events []Event
}

// NewTransfer is a transfer accepted from req: pending, not yet charged.
func NewTransfer(id, userID uuid.UUID, req Request, pm PaymentMethodRef, fee Fee, sender Sender, now time.Time) *Transfer {
	sender = sender.normalised()
	t := &Transfer{s: State{
		ID:              id,
		UserID:          userID,
		IdempotencyKey:  req.IdempotencyKey(),
		RequestHash:     req.Hash(),
		SenderName:      sender.DisplayName,
		SenderFirstName: sender.FirstName,
		SenderEmail:     sender.Email,
		RecipientName:   req.RecipientName(),
		RecipientPhone:  req.RecipientPhone(),
		Bank:            req.Bank(),
		Amount:          req.Amount(),
		Fee:             fee,
		Status:          StatusPending,
		PaymentMethod:   pm,
		Location:        req.Location(),
		CreatedAt:       now,
		UpdatedAt:       now,
	}}
	if req.senderPIN != "" {
		if req.pins == nil {
			panic("domain: a request with a sender PIN must be KeyedBy a PIN hasher before NewTransfer")
		}
		// MACed as a voucher's PIN is, bound to this transfer; the clear PIN goes no further.
		t.s.SenderPINHash = req.pins.Hash(id, req.senderPIN)
	}
	t.s.RecipientKnownConfirmed = req.RecipientKnownConfirmed()
	t.s.SaveRecipient = req.SaveRecipient()
	t.events = append(t.events, StatusChanged{At: now})
	return t
}

// SetTraceContext records the trace context of the request creating the transfer (see
// State.TraceContext); the map is copied.
func (t *Transfer) SetTraceContext(tc map[string]string) {
	if len(tc) == 0 {
		t.s.TraceContext = nil
		return
	}
	t.s.TraceContext = maps.Clone(tc)
}

// TraceContext is the trace context of the request that created the transfer (nil if none).
func (t *Transfer) TraceContext() map[string]string { return maps.Clone(t.s.TraceContext) }

// SetOccurrence marks a new transfer as the occurrence on date of the recurring send
// scheduleID (schedule.go's scheduler makes it).
func (t *Transfer) SetOccurrence(scheduleID uuid.UUID, date Date) {
	t.s.ScheduleID, t.s.OccurrenceDate = scheduleID, date
}

// Restore rebuilds a stored transfer.
func Restore(s State) *Transfer { return &Transfer{s: s} }

// State returns a copy of every field, for storage and mapping.
func (t *Transfer) State() State { return t.s }

// TakeEvents returns the events recorded since the last call and forgets them.
func (t *Transfer) TakeEvents() []Event {
	ev := t.events
	t.events = nil
	return ev
}

// ID is the transfer's id (a random UUIDv4).
func (t *Transfer) ID() uuid.UUID { return t.s.ID }

// UserID is the sender's id.
func (t *Transfer) UserID() uuid.UUID { return t.s.UserID }

// Reference is the first 8 characters of the id, as the sender quotes it.
func (t *Transfer) Reference() string { return Reference(t.s.ID) }

// Reference is the first 8 characters of id.
func Reference(id uuid.UUID) string { return id.String()[:8] }

// Status is the transfer's status.
func (t *Transfer) Status() Status { return t.s.Status }

// RequestHash is the hash of the request that created the transfer (for idempotency).
func (t *Transfer) RequestHash() []byte { return t.s.RequestHash }

// Amount is what the recipient withdraws.
func (t *Transfer) Amount() Money { return t.s.Amount }

// Fee is the fee stored on the transfer.
func (t *Transfer) Fee() Fee { return t.s.Fee }

// Total is what the sender's card is charged: the amount plus the fee charged.
func (t *Transfer) Total() Money { return t.s.Amount.Add(t.s.Fee.Charged()) }

// Attempts counts the claims of the current job.
func (t *Transfer) Attempts() int { return t.s.Attempts }

// Voucher is the voucher (zero before completion).
func (t *Transfer) Voucher() Voucher { return t.s.Voucher }

// Refund is the refund owed or made (zero when none).
func (t *Transfer) Refund() Refund { return t.s.Refund }

func (t *Transfer) setStatus(to Status, now time.Time) error {
	from := t.s.Status
	if !from.CanBecome(to) {
		return ErrInvalidTransition
	}
	t.s.Status, t.s.UpdatedAt = to, now
	t.events = append(t.events, StatusChanged{Previous: from, At: now})
	return nil
}

func (t *Transfer) setCollection(to CollectionStatus, now time.Time) error {
	if !t.s.Voucher.Status.CanBecome(to) {
		return ErrInvalidTransition
	}
	t.s.Voucher.Status, t.s.UpdatedAt = to, now
	return nil
}

// ChargeDue reports whether a worker may take the charge now: a pending transfer, or one left
// processing whose lease has passed (its worker died or gave up for a while).
func (t *Transfer) ChargeDue(now time.Time) bool {
	return t.s.Status == StatusPending || (t.s.Status == StatusProcessing && !now.Before(t.s.LeaseUntil))
}

// ClaimCharge gives the charge to a worker until leaseUntil: pending moves to processing; a
// processing transfer whose lease passed is taken over without a status change.
func (t *Transfer) ClaimCharge(now, leaseUntil time.Time) error {
	if !t.ChargeDue(now) {
		return ErrInvalidTransition
	}
	if t.s.Status == StatusPending {
		if err := t.setStatus(StatusProcessing, now); err != nil {
			return err
		}
	}
	t.s.Attempts++
	t.s.LeaseUntil, t.s.UpdatedAt = leaseUntil, now
	return nil
}

// Complete records an approved charge and issues the voucher, awaiting collection. When the
// sender chose the PIN, the voucher takes it (v's drawn PIN is dropped) and the SMS will carry
// only the number.
func (t *Transfer) Complete(chargeID string, v IssuedVoucher, now time.Time) error {
	// A transfer paid wholly by credit has no charge, and so no charge id.
	if (chargeID == "" && !t.CardCharge().IsZero()) || v.Number == "" || v.PINHash == "" {
		return ErrInvalidTransition
	}
	if err := t.setStatus(StatusCompleted, now); err != nil {
		return err
	}
	t.s.ChargeID = chargeID
	pin, hash := t.pinFor(v)
	t.s.Voucher = Voucher{Number: v.Number, PINHash: hash, ExpiresAt: v.ExpiresAt, PINChosenBySender: t.s.SenderPINHash != ""}
	if err := t.setCollection(CollectionAwaiting, now); err != nil {
		return err
	}
	t.s.Attempts, t.s.LeaseUntil = 0, time.Time{}
	t.events = append(t.events, VoucherIssued{PIN: pin, At: now})
	return nil
}

// pinFor is the PIN of a voucher issued as v: the sender's (known only as its MAC: no clear
// PIN) when they chose one, else v's.
func (t *Transfer) pinFor(v IssuedVoucher) (pin, hash string) {
	if t.s.SenderPINHash != "" {
		return "", t.s.SenderPINHash
	}
	return v.PIN, v.PINHash
}

// Fail records a declined or impossible charge: nothing was taken.
func (t *Transfer) Fail(reason string, now time.Time) error {
	if err := t.setStatus(StatusFailed, now); err != nil {
		return err
	}
	t.s.FailureReason = reason
	t.s.Attempts, t.s.LeaseUntil = 0, time.Time{}
	return nil
}

// RetryAt postpones the current job (a charge or a refund that could not be made) to until.
func (t *Transfer) RetryAt(until, now time.Time) error {
	if t.s.Status != StatusProcessing && t.s.Refund.Status != RefundPending {
		return ErrInvalidTransition
	}
	t.s.LeaseUntil, t.s.UpdatedAt = until, now
	return nil
}

// Cancel cancels a voucher awaiting collection; the whole total is owed back to the sender.
func (t *Transfer) Cancel(now time.Time) error {
	if t.s.Status != StatusCompleted || t.s.Voucher.Status != CollectionAwaiting {
		return ErrNotCancellable
	}
	return t.endVoucher(CollectionCancelled, "cancelled", now)
}

// ExpiryDue reports whether the voucher is unclaimed past its expiry.
func (t *Transfer) ExpiryDue(now time.Time) bool {
	return t.s.Voucher.Status == CollectionAwaiting && !now.Before(t.s.Voucher.ExpiresAt)
}

// Expire ends an unclaimed voucher past its expiry; the whole total is owed back.
func (t *Transfer) Expire(now time.Time) error {
	if !t.ExpiryDue(now) {
		return ErrInvalidTransition
	}
	return t.endVoucher(CollectionExpired, "expired", now)
}

func (t *Transfer) endVoucher(to CollectionStatus, reason string, now time.Time) error {
	if err := t.setCollection(to, now); err != nil {
		return err
	}
	t.s.Refund = Refund{Status: RefundPending, Reason: reason}
	t.s.Attempts, t.s.LeaseUntil = 0, time.Time{}
	t.events = append(t.events, VoucherChanged{At: now})
	if t.CardCharge().IsZero() {
		// Paid wholly by credit: nothing was charged, so nothing is refunded to the card (and no
		// refund e-mail is owed); the credit returns in this same transaction (the repository's
		// credit return, with its CreditChanged).
		t.s.Refund.Status = RefundRefunded
	}
	return nil
}

// MarkCollected records the recipient's withdrawal at now (Collect checks the voucher first).
func (t *Transfer) MarkCollected(now time.Time) error { return t.markCollected(now, CollectRequest{}) }

// markCollected records the withdrawal by the ATM request req.
func (t *Transfer) markCollected(now time.Time, req CollectRequest) error {
	if t.s.Voucher.Status != CollectionAwaiting {
		return ErrInvalidTransition // never reached through a reversal's way back
	}
	if err := t.setCollection(CollectionCollected, now); err != nil {
		return err
	}
	v := &t.s.Voucher
	v.CollectedAt, v.CollectedATM, v.CollectedLocation, v.CollectedRRN = now, req.atmID, req.location, req.rrn
	t.events = append(t.events, VoucherCollected{At: now, RRN: req.rrn})
	return nil
}

// RefundDue reports whether a worker may make the refund now.
func (t *Transfer) RefundDue(now time.Time) bool {
	return t.s.Refund.Status == RefundPending && !now.Before(t.s.LeaseUntil)
}

// ClaimRefund gives the refund to a worker until leaseUntil.
func (t *Transfer) ClaimRefund(now, leaseUntil time.Time) error {
	if !t.RefundDue(now) {
		return ErrInvalidTransition
	}
	t.s.Attempts++
	t.s.LeaseUntil, t.s.UpdatedAt = leaseUntil, now
	return nil
}

// Refunded records the processor's refund.
func (t *Transfer) Refunded(refundID string, now time.Time) error {
	if t.s.Refund.Status != RefundPending {
		return ErrInvalidTransition
	}
	t.s.Refund.Status, t.s.Refund.ID = RefundRefunded, refundID
	t.s.Attempts, t.s.LeaseUntil, t.s.UpdatedAt = 0, time.Time{}, now
	t.events = append(t.events, RefundCompleted{At: now})
	return nil
}

// ChargeKey is the idempotency key of the transfer's charge: the transfer id, so a charge is
// made once however often a worker retries.
func (t *Transfer) ChargeKey() string { return t.s.ID.String() }

// RefundKey is the idempotency key of the transfer's refund.
func (t *Transfer) RefundKey() string { return "refund-" + t.s.ID.String() }
