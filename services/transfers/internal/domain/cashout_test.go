package domain_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

var (
	transferID = uuid.MustParse("5f0c2a1e-8d6b-4c1a-9e2f-0a1b2c3d4e5f")
	senderID   = uuid.MustParse("0b8e6d2c-1f3a-4b5c-8d7e-9f0a1b2c3d4e")
)

// Amounts are whole rand in multiples of R10: ATMs pay out notes.
func TestAmountsAreMultiplesOfTenRand(t *testing.T) {
	t.Parallel()
	for _, cents := range []int64{1_000, 2_000, 10_000, 50_000, 300_000, 1_000_000} {
		in := validInput()
		in.AmountCents = cents
		if _, err := domain.NewRequest(in); err != nil {
			t.Errorf("%d c refused: %v", cents, err)
		}
	}
	for _, cents := range []int64{1, 500, 999, 1_001, 1_050, 1_500, 10_010, 299_999, 300_001} {
		in := validInput()
		in.AmountCents = cents
		_, err := domain.NewRequest(in)
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || len(verr.Violations) != 1 || verr.Violations[0] !=
			(domain.Violation{Field: "amount_cents", Message: "ATMs pay out notes: choose an amount in multiples of R10."}) {
			t.Errorf("%d c: %v, want the notes violation on amount_cents", cents, err)
		}
	}
	// Nothing at all is still asked for as an amount.
	in := validInput()
	in.AmountCents = 0
	var verr *domain.ValidationError
	if _, err := domain.NewRequest(in); !errors.As(err, &verr) || verr.Violations[0].Message != "Please enter a valid amount greater than zero." {
		t.Errorf("0 c: %v", err)
	}
}

func TestSenderPINRules(t *testing.T) {
	t.Parallel()
	for _, pin := range []string{"4739", "1357", "0102", "1230", "9870", "1243", "0011", "2468", " 4739 "} {
		in := validInput()
		in.SenderPIN = pin
		r, err := domain.NewRequest(in)
		if err != nil || !r.HasSenderPIN() {
			t.Errorf("PIN %q refused: %v", pin, err)
		}
	}
	cases := map[string]string{
		"123": domain.MsgPINFormat, "12345": domain.MsgPINFormat, "12a4": domain.MsgPINFormat, "１２３４": domain.MsgPINFormat,
		"-123": domain.MsgPINFormat, "12 4": domain.MsgPINFormat,
		"0000": domain.MsgPINWeak, "7777": domain.MsgPINWeak, "9999": domain.MsgPINWeak,
		"0123": domain.MsgPINWeak, "1234": domain.MsgPINWeak, "3456": domain.MsgPINWeak, "6789": domain.MsgPINWeak,
		"9876": domain.MsgPINWeak, "5432": domain.MsgPINWeak, "3210": domain.MsgPINWeak,
	}
	for pin, msg := range cases {
		in := validInput()
		in.SenderPIN = pin
		_, err := domain.NewRequest(in)
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || len(verr.Violations) != 1 || verr.Violations[0] != (domain.Violation{Field: "sender_pin", Message: msg}) {
			t.Errorf("PIN %q: %v, want %q on sender_pin", pin, err, msg)
		}
	}
	// No PIN: the PIN is drawn, as before.
	r, err := domain.NewRequest(validInput())
	if err != nil || r.HasSenderPIN() {
		t.Fatalf("no sender PIN: %v", err)
	}
}

// The sender's PIN is in the idempotency hash only as a keyed digest: the same PIN hashes
// alike, another PIN (or none) does not, a request without a PIN hashes as it always did, and
// a retry hashed before a key rotation still matches.
func TestSenderPINInTheRequestHash(t *testing.T) {
	t.Parallel()
	oldKey, newKey := pinKey(t, "old"), pinKey(t, "new")
	pins := domain.NewPINHasher(newKey, oldKey)
	request := func(pin string, h *domain.PINHasher) domain.Request {
		in := validInput()
		in.SenderPIN = pin
		r, err := domain.NewRequest(in)
		if err != nil {
			t.Fatal(err)
		}
		return r.KeyedBy(h)
	}
	base := request("4739", pins)
	if !bytes.Equal(base.Hash(), request("4739", pins).Hash()) {
		t.Fatal("the same PIN hashes differently")
	}
	for _, other := range []domain.Request{request("4738", pins), request("", pins), request("4739", domain.NewPINHasher(pinKey(t, "other")))} {
		if bytes.Equal(base.Hash(), other.Hash()) {
			t.Fatal("another PIN (or key, or none) hashes alike")
		}
	}
	// Without a PIN the hash needs no key and is the one it always was.
	plain, _ := domain.NewRequest(validInput())
	if !bytes.Equal(plain.Hash(), request("", nil).Hash()) || len(plain.Hashes()) != 1 {
		t.Fatal("a request without a PIN hashes differently once keyed")
	}
	// Hashed under the old key (before the rotation), the retry under the new one still matches.
	before := request("4739", domain.NewPINHasher(oldKey)).Hash()
	if !slices.ContainsFunc(base.Hashes(), func(h []byte) bool { return bytes.Equal(h, before) }) {
		t.Fatal("a retry across a key rotation does not match")
	}
	if bytes.Contains(base.Hash(), []byte("4739")) {
		t.Fatal("the PIN is in the hash")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a request with a PIN hashed without a key")
		}
	}()
	in := validInput()
	in.SenderPIN = "4739"
	unkeyed, _ := domain.NewRequest(in)
	unkeyed.Hash()
}

// A transfer with the sender's PIN keeps only its MAC; its voucher takes that PIN and the SMS
// event carries no PIN.
func TestSenderPINVoucher(t *testing.T) {
	t.Parallel()
	in := validInput()
	in.SenderPIN = "4739"
	req, err := domain.NewRequest(in)
	if err != nil {
		t.Fatal(err)
	}
	tr := domain.NewTransfer(transferID, senderID, req.KeyedBy(testPINs), domain.PaymentMethodRef{ID: "pm", Token: "tok"},
		domain.Fee{}, domain.Sender{}, t0)
	s := tr.State()
	if s.SenderPINHash == "" || !testPINs.Verify(s.SenderPINHash, transferID, "4739") || bytes.Contains([]byte(s.SenderPINHash), []byte("4739")) {
		t.Fatalf("sender PIN hash %q", s.SenderPINHash)
	}
	if err := tr.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	drawn := voucher(t, tr)
	if err := tr.Complete("ch", drawn, t0); err != nil {
		t.Fatal(err)
	}
	v := tr.Voucher()
	if !v.PINChosenBySender || v.Number != drawn.Number || !testPINs.Verify(v.PINHash, transferID, "4739") ||
		(drawn.PIN != "4739" && testPINs.Verify(v.PINHash, transferID, drawn.PIN)) {
		t.Fatalf("voucher %+v", v)
	}
	evs := tr.TakeEvents()
	if issued := evs[len(evs)-1].(domain.VoucherIssued); issued.PIN != "" {
		t.Fatalf("the issue event carries a PIN: %+v", issued)
	}
}

// The amount is checked after the credentials (a guesser learns nothing of it) and is not
// counted as a wrong attempt (the recipient must not lock themselves out by a typo).
func TestCollectWrongAmount(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	req := func(pin string, cents int64) domain.CollectRequest {
		r, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: "0123456789", PIN: pin, RecipientPhone: "0821234567",
			Bank: domain.Capitec, ATMID: "ATM-1", AmountCents: cents, STAN: "1", RRN: "R1"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var creds *domain.CredentialsError
	if err := tr.Collect(req(otherPIN(pin), 10_000), testPINs, t0); !errors.As(err, &creds) || creds.AttemptsLeft != 4 {
		t.Fatalf("wrong PIN and amount: %v", err)
	}
	var amount *domain.WrongAmountError
	for range 10 {
		if err := tr.Collect(req(pin, 49_000), testPINs, t0); !errors.As(err, &amount) || amount.Amount != domain.Cents(50_000) {
			t.Fatalf("right PIN, wrong amount: %v", err)
		}
	}
	if v := tr.Voucher(); v.FailedAttempts != 1 || v.Status != domain.CollectionAwaiting {
		t.Fatalf("after wrong amounts: %+v", v)
	}
	if err := tr.Collect(req(pin, 50_000), testPINs, t0); err != nil {
		t.Fatal(err)
	}
}

// An unknown number is counted and locked exactly like a voucher: the same answers in the same
// order, the lock included.
func TestUnknownNumberAnswersLikeAVoucher(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	bad, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: "0123456789", PIN: otherPIN(pin), RecipientPhone: "0821234567",
		Bank: domain.Capitec, ATMID: "ATM-1", AmountCents: 50_000, STAN: "1", RRN: "R1"})
	if err != nil {
		t.Fatal(err)
	}
	var unknown domain.UnknownNumber
	for i, at := range []time.Duration{0, time.Minute, 2 * time.Minute, 3 * time.Minute, 4 * time.Minute, 5 * time.Minute,
		24*time.Hour + 4*time.Minute - time.Second, 24*time.Hour + 4*time.Minute, 24*time.Hour + 5*time.Minute} {
		now := t0.Add(at)
		genuine, fake := tr.Collect(bad, testPINs, now), unknown.Attempt(now)
		r1, ok1 := domain.RefusalOf(genuine)
		r2, ok2 := domain.RefusalOf(fake)
		if !ok1 || !ok2 || r1 != r2 {
			t.Fatalf("attempt %d: voucher %v (%+v), unknown %v (%+v)", i, genuine, r1, fake, r2)
		}
	}
	if unknown.FailedAttempts != 2 || !unknown.LockedUntil.IsZero() {
		t.Fatalf("unknown number after its lock passed: %+v", unknown)
	}
}

func TestRefusalsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, r := range []domain.Refusal{
		{Reason: domain.RefusalWrongCredentials, AttemptsLeft: 3},
		{Reason: domain.RefusalLocked, LockedUntil: t0},
		{Reason: domain.RefusalWrongBank, Bank: domain.FNB},
		{Reason: domain.RefusalWrongAmount, Amount: domain.Cents(50_000)},
		{Reason: domain.RefusalAlreadyCollected}, {Reason: domain.RefusalCancelled}, {Reason: domain.RefusalExpired},
		{Reason: domain.RefusalInvalidVoucher}, {Reason: domain.RefusalReversed},
	} {
		if got, ok := domain.RefusalOf(r.Err()); !ok || got != r {
			t.Errorf("%+v → %v → %+v", r, r.Err(), got)
		}
	}
	if !errors.Is((domain.Refusal{Reason: domain.RefusalWrongCredentials}).Err(), domain.ErrVoucherCredentials) {
		t.Error("wrong credentials is not ErrVoucherCredentials")
	}
	for _, err := range []error{nil, errors.New("database down"), domain.ErrCollectionConflict, domain.ErrNotFound} {
		if _, ok := domain.RefusalOf(err); ok {
			t.Errorf("%v is a refusal", err)
		}
	}
}

func collectAt(t *testing.T, tr *domain.Transfer, pin, rrn, location string, at time.Time) error {
	t.Helper()
	r, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: tr.Voucher().Number, PIN: pin, RecipientPhone: "0821234567",
		Bank: domain.Capitec, ATMID: "ATM-7", AmountCents: 50_000, STAN: "7", RRN: rrn, ATMLocation: location})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Collect(r, testPINs, at)
}

// Only the request that collected the voucher can reverse it, once; the voucher then awaits
// collection again with its expiry and attempts as they were.
func TestReverseCollection(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	if err := tr.ReverseCollection(reversalOf(tr, "R1"), t0); !errors.Is(err, domain.ErrNotCollectedByRequest) {
		t.Fatalf("reversing an uncollected voucher: %v", err)
	}
	_ = collectAt(t, tr, otherPIN(pin), "R0", "", t0) // one wrong attempt
	if err := collectAt(t, tr, pin, "R1", "  Capitec   ATM Mall of Africa ", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	v := tr.Voucher()
	if v.CollectedRRN != "R1" || v.CollectedLocation != "Capitec ATM Mall of Africa" || v.Location(domain.Capitec) != "Capitec ATM Mall of Africa" {
		t.Fatalf("collected voucher %+v", v)
	}
	for _, rrn := range []string{"R0", "R2", ""} {
		if err := tr.ReverseCollection(reversalOf(tr, rrn), t0); !errors.Is(err, domain.ErrNotCollectedByRequest) {
			t.Fatalf("reversal by %q: %v", rrn, err)
		}
	}
	// A reversal naming the request but another voucher number (forged from the references
	// alone) changes nothing.
	forged := reversalOf(tr, "R1")
	forged.VoucherNumber = "1111111111"
	if err := tr.ReverseCollection(forged, t0.Add(2*time.Hour)); !errors.Is(err, domain.ErrReversalMismatch) {
		t.Fatalf("a reversal with another voucher number: %v", err)
	}
	if tr.Voucher().Status != domain.CollectionCollected || len(tr.TakeEvents()) != 0 {
		t.Fatalf("a mismatched reversal changed the voucher: %+v", tr.Voucher())
	}
	if err := tr.ReverseCollection(reversalOf(tr, "R1"), t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	v = tr.Voucher()
	if v.Status != domain.CollectionAwaiting || !v.CollectedAt.IsZero() || v.CollectedATM != "" || v.CollectedLocation != "" ||
		v.CollectedRRN != "" || v.FailedAttempts != 1 || !v.ExpiresAt.Equal(t0.Add(domain.DefaultVoucherTTL)) || v.Location(domain.Capitec) != "" {
		t.Fatalf("reversed voucher %+v", v)
	}
	if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherReversed{At: t0.Add(2 * time.Hour), RRN: "R1"}) {
		t.Fatalf("events %v", evs)
	}
	if err := tr.ReverseCollection(reversalOf(tr, "R1"), t0); !errors.Is(err, domain.ErrNotCollectedByRequest) {
		t.Fatalf("second reversal: %v", err)
	}
	// Collected again by another request; without a location the ATM is named by bank and id.
	if err := collectAt(t, tr, pin, "R2", "", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if loc := tr.Voucher().Location(domain.Capitec); loc != "Capitec ATM ATM-7" {
		t.Fatalf("location %q", loc)
	}
	if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherCollected{At: t0.Add(3 * time.Hour), RRN: "R2"}) {
		t.Fatalf("events %v", evs)
	}
}

func TestCollectRequestReferences(t *testing.T) {
	t.Parallel()
	base := domain.CollectInput{VoucherNumber: "0123456789", Bank: domain.FNB, ATMID: "ATM-1", AmountCents: 1000, STAN: "123456", RRN: "612312345678"}
	for name, edit := range map[string]func(*domain.CollectInput){
		"no STAN": func(in *domain.CollectInput) { in.STAN = "" }, "long STAN": func(in *domain.CollectInput) { in.STAN = "1234567" },
		"letters in STAN": func(in *domain.CollectInput) { in.STAN = "12a" }, "no RRN": func(in *domain.CollectInput) { in.RRN = " " },
		"long RRN": func(in *domain.CollectInput) { in.RRN = "1234567890123" }, "RRN punctuation": func(in *domain.CollectInput) { in.RRN = "12-3" },
		"no amount":     func(in *domain.CollectInput) { in.AmountCents = 0 },
		"long location": func(in *domain.CollectInput) { in.ATMLocation = string(bytes.Repeat([]byte("a"), 65)) },
		"control chars": func(in *domain.CollectInput) { in.ATMLocation = "FNB\x00ATM" },
	} {
		in := base
		edit(&in)
		var verr *domain.ValidationError
		if _, err := domain.NewCollectRequest(in); !errors.As(err, &verr) || len(verr.Violations) != 1 {
			t.Errorf("%s: %v, want one violation", name, err)
		}
	}
	a, _ := domain.NewCollectRequest(base)
	same := base
	same.PIN, same.RecipientPhone, same.ATMLocation = "9999", "0831234567", "elsewhere"
	b, _ := domain.NewCollectRequest(same)
	if !bytes.Equal(a.Digest(), b.Digest()) {
		t.Fatal("a retry's digest depends on its PIN, phone or location")
	}
	for _, edit := range []func(*domain.CollectInput){
		func(in *domain.CollectInput) { in.STAN = "123457" }, func(in *domain.CollectInput) { in.AmountCents = 2000 },
		func(in *domain.CollectInput) { in.VoucherNumber = "0123456788" }, func(in *domain.CollectInput) { in.ATMID = "ATM-2" },
	} {
		in := base
		edit(&in)
		c, _ := domain.NewCollectRequest(in)
		if bytes.Equal(a.Digest(), c.Digest()) {
			t.Errorf("another request %+v has the same digest", in)
		}
	}
}

// reversalOf is a reversal of the ATM request rrn that repeats the voucher's number, as the
// ATM gateway's does.
func reversalOf(tr *domain.Transfer, rrn string) domain.ReversalKey {
	return domain.ReversalKey{Bank: domain.Capitec, RRN: rrn, STAN: "7", ATMID: "ATM-7", Amount: domain.Cents(50_000),
		VoucherNumber: tr.Voucher().Number}
}

// A reversal matches its request only when it repeats the request's ATM and amount, within a
// day of the approval.
func TestReversalMatchesItsRequest(t *testing.T) {
	t.Parallel()
	key, err := domain.NewReversalKey(domain.ReversalInput{Bank: domain.Capitec, RRN: "R1", STAN: "7", ATMID: " ATM-7 ",
		AmountCents: 50_000, Voucher: "1234567890"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		atm    string
		amount int64
		after  time.Duration
		want   bool
	}{
		{"ATM-7", 50_000, time.Minute, true},
		{"ATM-7", 50_000, domain.MaxReversalDelay, true},
		{"ATM-7", 50_000, domain.MaxReversalDelay + time.Second, false},
		{"ATM-8", 50_000, time.Minute, false},
		{"ATM-7", 40_000, time.Minute, false},
	}
	for _, c := range cases {
		if got := key.Matches(c.atm, domain.Cents(c.amount), t0, t0.Add(c.after)); got != c.want {
			t.Errorf("Matches(%q, %d, +%s) = %v, want %v", c.atm, c.amount, c.after, got, c.want)
		}
	}
	for _, in := range []domain.ReversalInput{
		{Bank: domain.Capitec, RRN: "R1", STAN: "7", AmountCents: 50_000, Voucher: "1234567890"},
		{Bank: domain.Capitec, RRN: "R1", STAN: "7", ATMID: "ATM-7", Voucher: "1234567890"},
		{Bank: domain.Capitec, RRN: "R1", STAN: "7", ATMID: "ATM-7", AmountCents: 50_000},
	} {
		if _, err := domain.NewReversalKey(in); err == nil {
			t.Errorf("NewReversalKey(%+v) accepted a reversal that does not repeat its request", in)
		}
	}
}
