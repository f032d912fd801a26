package outage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// What every send does after it is accepted, by turns: the recipient withdraws the voucher at
// the dev ATM, the sender cancels it, or it is left to be collected later.
const (
	actionCollect = "collect"
	actionCancel  = "cancel"
	actionKeep    = "keep"
)

// The recipient of every send, and how they type their number at the ATM.
const (
	recipientPhone = "+27821234567"
	typedPhone     = "082 123 4567"
)

// Patience with one step while dependencies come and go: a create, a cancel or a withdrawal
// is tried again (with the same idempotency key, at the same ATM) for retryFor; a transfer
// must be final within finalWithin. Both grow with a longer hold (OUTAGE_HOLD, make chaos).
var (
	retryFor    = 90 * time.Second
	finalWithin = 2 * time.Minute
)

const (
	retryPause = 300 * time.Millisecond
	pollEvery  = 500 * time.Millisecond
)

// record is one send and what the test was told about it.
type record struct {
	user   int
	key    string
	amount int64
	action string
	window string // the fault under way when the send started ("" for none)

	mu        sync.Mutex
	id        string // empty: no create was answered
	attempts  int
	status    bffv1.TransferStatus
	voucher   string
	collected bool   // the ATM paid out
	unsure    bool   // the ATM got no answer, then "already collected": collected, or reversed since
	cancelled bool   // CancelTransfer answered (or a later read showed it cancelled after a lost answer)
	note      string // what happened on the way, for the summary
	err       error
}

func (r *record) set(f func(r *record)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r)
}

// load is the traffic: senders, and a follow-up per accepted send (withdraw or cancel).
type load struct {
	st     *stacktest.Stack
	users  []*bench.User
	runID  string
	outbox *smsWatch
	atm    *http.Client

	window atomic.Value // string: the fault under way

	mu      sync.Mutex
	recs    []*record
	answers map[string]int // "window code" -> count of the BFF's error answers to the load

	senders, followUps sync.WaitGroup
	atmInFlight        atomic.Int64
	atmLost            atomic.Int64 // withdrawals with no answer (the ATM reversed or gave up)
}

func newLoad(st *stacktest.Stack, users []*bench.User, runID string) *load {
	l := &load{
		st: st, users: users, runID: runID,
		outbox:  &smsWatch{url: st.DevToolsURL + "/dev/outbox?format=json", pins: map[string]string{}},
		atm:     &http.Client{Timeout: 45 * time.Second},
		answers: map[string]int{},
	}
	l.window.Store("")
	return l
}

// mark names the fault under way ("" when none), for the tallies.
func (l *load) mark(window string) { l.window.Store(window) }

func (l *load) current() string { return l.window.Load().(string) }

// note tallies an error answer of the BFF to the load.
func (l *load) noteAnswer(err error) {
	w := l.current()
	if w == "" {
		w = "no fault"
	}
	l.mu.Lock()
	l.answers[w+": "+connect.CodeOf(err).String()]++
	l.mu.Unlock()
}

// start runs the senders until sending ends; follow-ups run on ctx.
func (l *load) start(sending, ctx context.Context) {
	for u := range l.users {
		l.senders.Go(func() {
			for i := 0; sending.Err() == nil; i++ {
				r := &record{
					user: u, key: fmt.Sprintf("outage-%s-%d-%03d", l.runID, u, i),
					amount: int64(1+(i%5)) * 1000, // whole rand, multiples of R10: ATMs pay notes
					action: []string{actionCollect, actionCancel, actionKeep}[(u+i)%3],
					window: l.current(),
				}
				l.mu.Lock()
				l.recs = append(l.recs, r)
				l.mu.Unlock()
				// Once started, a send is seen through even when sending stops meanwhile.
				if l.create(ctx, r) {
					l.followUps.Go(func() { l.followUp(ctx, r) })
				}
				sleep(sending, sendEvery)
			}
		})
	}
}

// wait waits for the senders (after sending ended) and every follow-up.
func (l *load) wait() {
	l.senders.Wait()
	l.followUps.Wait()
}

func (l *load) records() []*record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*record(nil), l.recs...)
}

// errors are the sends whose steps did not end as they must.
func (l *load) errors() []error {
	var errs []error
	for _, r := range l.records() {
		r.mu.Lock()
		if r.err != nil {
			errs = append(errs, fmt.Errorf("send %s (%s, transfer %s, %d create attempts, %s): %w", r.key, r.action, r.id, r.attempts, r.note, r.err))
		}
		r.mu.Unlock()
	}
	return errs
}

func (l *load) summary() string {
	count := map[string]int{}
	retried, notes := 0, []string{}
	for _, r := range l.records() {
		r.mu.Lock()
		count["sends"]++
		if r.id != "" {
			count["accepted"]++
		}
		if r.attempts > 1 {
			retried++
		}
		if r.collected {
			count["withdrawn"]++
		}
		if r.cancelled {
			count["cancelled"]++
		}
		if r.unsure {
			count["unsure"]++
		}
		if r.status == bffv1.TransferStatus_TRANSFER_STATUS_FAILED {
			count["failed"]++
		}
		if r.note != "" && len(notes) < 8 {
			notes = append(notes, r.key+": "+r.note)
		}
		r.mu.Unlock()
	}
	l.mu.Lock()
	answers := make([]string, 0, len(l.answers))
	for k, n := range l.answers {
		answers = append(answers, fmt.Sprintf("%s ×%d", k, n))
	}
	l.mu.Unlock()
	sort.Strings(answers)
	return fmt.Sprintf("%d sends, %d accepted (%d needed more than one attempt), %d failed, %d withdrawn at the ATM, %d cancelled, "+
		"%d withdrawals whose approval the ATM did not hear, %d ATM attempts without an answer; the BFF's error answers to the traffic: %s; notes: %s",
		count["sends"], count["accepted"], retried, count["failed"], count["withdrawn"], count["cancelled"], count["unsure"],
		l.atmLost.Load(), strings.Join(answers, ", "), strings.Join(notes, "; "))
}

// transient reports whether the BFF's answer says "not now" rather than "no": the call is
// made again (a create with the same idempotency key), as the web client does.
func transient(ctx context.Context, err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeInternal, connect.CodeUnknown, connect.CodeDeadlineExceeded, connect.CodeAborted:
		return true
	case connect.CodeCanceled:
		return ctx.Err() == nil
	}
	return false
}

// create sends r until an answer that is not transient; it reports whether the transfer was
// accepted.
func (l *load) create(ctx context.Context, r *record) bool {
	u := l.users[r.user]
	req := &bffv1.CreateTransferRequest{
		IdempotencyKey: r.key, RecipientName: "Lerato Outage", RecipientPhone: recipientPhone,
		Bank: bffv1.Bank_BANK_FNB, AmountCents: r.amount, PaymentMethodId: u.CardID, RecipientKnownConfirmed: true,
	}
	deadline := time.Now().Add(retryFor)
	for attempt := 1; ; attempt++ {
		res, err := u.Transfers.CreateTransfer(ctx, req)
		r.set(func(r *record) { r.attempts = attempt })
		if err == nil {
			r.set(func(r *record) { r.id, r.status = res.GetTransfer().GetId(), res.GetTransfer().GetStatus() })
			return true
		}
		l.noteAnswer(err)
		switch {
		case ctx.Err() != nil:
			r.set(func(r *record) { r.err = fmt.Errorf("create: %w", err) })
			return false
		case stepUpRequired(err):
			// The step-up went stale meanwhile: the wizard asks for it again.
			if serr := u.StepUp(ctx); serr != nil {
				l.noteAnswer(serr)
			}
		case transient(ctx, err) && time.Now().Before(deadline):
		default:
			r.set(func(r *record) { r.err = fmt.Errorf("create: %w", err) })
			return false
		}
		sleep(ctx, retryPause)
	}
}

// stepUpRequired: FailedPrecondition with ErrorInfo reason STEP_UP_REQUIRED.
func stepUpRequired(err error) bool {
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition {
		return false
	}
	for _, d := range ce.Details() {
		if d.Type() == "google.rpc.ErrorInfo" && strings.Contains(string(d.Bytes()), "STEP_UP_REQUIRED") {
			return true
		}
	}
	return false
}

// followUp waits for r's transfer to end and then does r's action.
func (l *load) followUp(ctx context.Context, r *record) {
	u := l.users[r.user]
	tr, err := l.waitTransfer(ctx, u, r.id, func(tr *bffv1.Transfer) bool {
		return tr.GetStatus() == bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED || tr.GetStatus() == bffv1.TransferStatus_TRANSFER_STATUS_FAILED
	})
	if err != nil {
		r.set(func(r *record) { r.err = fmt.Errorf("the transfer did not end: %w", err) })
		return
	}
	r.set(func(r *record) { r.status, r.voucher = tr.GetStatus(), tr.GetVoucher().GetNumber() })
	if tr.GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
		r.set(func(r *record) { r.note = "failed: " + tr.GetFailureReason() })
		return
	}
	switch r.action {
	case actionCollect:
		l.collect(ctx, r, tr)
	case actionCancel:
		l.cancel(ctx, r)
	}
}

// waitTransfer polls the transfer through the BFF until done holds, through errors.
func (l *load) waitTransfer(ctx context.Context, u *bench.User, id string, done func(*bffv1.Transfer) bool) (*bffv1.Transfer, error) {
	deadline := time.Now().Add(finalWithin)
	var last *bffv1.Transfer
	var lastErr error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		res, err := u.Transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: id})
		if err == nil {
			last = res.GetTransfer()
			if done(last) {
				return last, nil
			}
		} else {
			l.noteAnswer(err)
			if !transient(ctx, err) {
				return nil, err
			}
			lastErr = err
		}
		sleep(ctx, pollEvery)
	}
	return nil, fmt.Errorf("still %v after %s (last error %v)", last.GetStatus(), finalWithin, lastErr)
}

// cancel cancels r's voucher, again after a transient answer. A cancel whose answer was lost
// and that a retry finds done is a cancel.
func (l *load) cancel(ctx context.Context, r *record) {
	u := l.users[r.user]
	deadline := time.Now().Add(retryFor)
	for attempt := 1; ; attempt++ {
		res, err := u.Transfers.CancelTransfer(ctx, &bffv1.CancelTransferRequest{Id: r.id})
		if err == nil {
			if s := res.GetTransfer().GetVoucher().GetCollectionStatus(); s != bffv1.CollectionStatus_COLLECTION_STATUS_CANCELLED {
				r.set(func(r *record) { r.err = fmt.Errorf("CancelTransfer answered the voucher %v", s) })
				return
			}
			r.set(func(r *record) {
				r.cancelled = true
				if attempt > 1 {
					r.note = fmt.Sprintf("cancelled at attempt %d", attempt)
				}
			})
			return
		}
		l.noteAnswer(err)
		if connect.CodeOf(err) == connect.CodeFailedPrecondition {
			// Perhaps an earlier attempt cancelled it and its answer was lost.
			if tr, gerr := l.waitTransfer(ctx, u, r.id, func(*bffv1.Transfer) bool { return true }); gerr == nil &&
				tr.GetVoucher().GetCollectionStatus() == bffv1.CollectionStatus_COLLECTION_STATUS_CANCELLED {
				r.set(func(r *record) {
					r.cancelled, r.note = true, "cancel answered FailedPrecondition after a lost answer: already cancelled"
				})
				return
			}
		}
		if !transient(ctx, err) || time.Now().After(deadline) {
			r.set(func(r *record) { r.err = fmt.Errorf("CancelTransfer (attempt %d): %w", attempt, err) })
			return
		}
		sleep(ctx, retryPause)
	}
}

// The dev ATM's screen: its kind (approved, declined, failed, reversed) and its message.
var (
	screenRe = regexp.MustCompile(`<div class="screen (\w+)"[^>]*><p>([^<]*)</p>`)
	// What the dev ATM says when the gateway cannot be reached, or answers 91/96: try again.
	atmTryAgain = []string{"The bank cannot be reached right now. Try again.", "Something went wrong at the bank. Try again later."}
)

const atmAlreadyCollected = "This voucher has already been collected."

// collect withdraws r's voucher at the dev ATM with the PIN from its SMS, again when the ATM
// got no answer or was told to try again.
func (l *load) collect(ctx context.Context, r *record, tr *bffv1.Transfer) {
	number := tr.GetVoucher().GetNumber()
	pin, err := l.outbox.pin(ctx, number, retryFor)
	if err != nil {
		r.set(func(r *record) { r.err = fmt.Errorf("the voucher SMS: %w", err) })
		return
	}
	form := url.Values{
		"bank": {"fnb"}, "atm": {"FNB ATM Sandton City"}, "voucher": {number}, "pin": {pin},
		"phone": {typedPhone}, "amount": {strconv.FormatInt(r.amount/100, 10)},
	}
	deadline := time.Now().Add(retryFor)
	lost := 0
	for attempt := 1; ; attempt++ {
		kind, msg, err := l.withdraw(ctx, form)
		switch {
		case err == nil && kind == "approved":
			r.set(func(r *record) {
				r.collected = true
				if attempt > 1 {
					r.note = fmt.Sprintf("withdrawn at attempt %d (%d without an answer)", attempt, lost)
				}
			})
			return
		case err == nil && kind == "declined" && msg == atmAlreadyCollected && lost > 0:
			// An earlier attempt was approved and its answer lost. The gateway reverses such
			// an approval in the background (a stand-in reversal) once transfers answers again,
			// unless it died meanwhile: the voucher ends collected or collectable again.
			r.set(func(r *record) {
				r.unsure = true
				r.note = fmt.Sprintf("an approval the ATM did not hear (attempt %d, %d without an answer)", attempt, lost)
			})
			return
		case err == nil && kind == "failed", err == nil && kind == "declined" && isTryAgain(msg):
			lost++
			l.atmLost.Add(1)
		case err != nil && ctx.Err() == nil:
			lost++ // the BFF's proxy or the page itself: try again
		default:
			r.set(func(r *record) { r.err = fmt.Errorf("the dev ATM at attempt %d: %s %q %v", attempt, kind, msg, err) })
			return
		}
		if time.Now().After(deadline) {
			r.set(func(r *record) {
				r.err = fmt.Errorf("no withdrawal within %s: last %s %q %v", retryFor, kind, msg, err)
			})
			return
		}
		sleep(ctx, time.Second)
	}
}

func isTryAgain(msg string) bool {
	for _, m := range atmTryAgain {
		if msg == m {
			return true
		}
	}
	return false
}

// withdraw posts the dev ATM's form through the BFF, as a person does, and reads the screen.
func (l *load) withdraw(ctx context.Context, form url.Values) (kind, msg string, err error) {
	l.atmInFlight.Add(1)
	defer l.atmInFlight.Add(-1)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.st.BaseURL+"/dev/atm", strings.NewReader(form.Encode()))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := l.atm.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", err
	}
	m := screenRe.FindStringSubmatch(string(body))
	if resp.StatusCode != http.StatusOK || m == nil {
		return "", "", fmt.Errorf("POST /dev/atm: %s, no screen", resp.Status)
	}
	return m[1], strings.TrimSpace(htmlUnescape(m[2])), nil
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&#39;", "'", "&amp;", "&", "&quot;", `"`, "&lt;", "<", "&gt;", ">", "&#34;", `"`).Replace(s)
}

// ---- The SMS the recipient gets ----------------------------------------------------------

// The voucher SMS: "Voucher number: 1234567890." and "PIN: 4821.".
var (
	voucherInSMS = regexp.MustCompile(`Voucher number: ([0-9 ]+)\.`)
	// cancelledInSMS reads the reference of a cancellation SMS (notifications' voucher_cancelled).
	cancelledInSMS = regexp.MustCompile(`cancelled the R[0-9,.]+ voucher sent to you\. It can no longer be withdrawn\.\s+Ref ([0-9a-f]{8})`)
	pinInSMS       = regexp.MustCompile(`PIN: (\d{4,12})\.`)
)

// smsWatch reads the dev outbox (the SMS provider stand-in's messages) and keeps each voucher's
// PIN.
type smsWatch struct {
	url string

	mu   sync.Mutex
	pins map[string]string // voucher number -> PIN
	sms  []stacktest.OutboxMessage
}

func (w *smsWatch) run(ctx context.Context) {
	for ctx.Err() == nil {
		_ = w.refresh(ctx)
		sleep(ctx, 300*time.Millisecond)
	}
}

// refresh reads the whole outbox once.
func (w *smsWatch) refresh(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Messages []stacktest.OutboxMessage `json:"messages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return err
	}
	var sms []stacktest.OutboxMessage
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range body.Messages {
		if m.Channel != "sms" {
			continue
		}
		sms = append(sms, m)
		if v, p := voucherInSMS.FindStringSubmatch(m.Body), pinInSMS.FindStringSubmatch(m.Body); v != nil && p != nil {
			w.pins[strings.ReplaceAll(v[1], " ", "")] = p[1]
		}
	}
	w.sms = sms
	return nil
}

func (w *smsWatch) pin(ctx context.Context, number string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		w.mu.Lock()
		p, ok := w.pins[number]
		w.mu.Unlock()
		if ok {
			return p, nil
		}
		sleep(ctx, 200*time.Millisecond)
	}
	return "", fmt.Errorf("no SMS with voucher number %s in /dev/outbox within %s", number, timeout)
}

// all returns every SMS the stand-in accepted, oldest first.
func (w *smsWatch) all(ctx context.Context) ([]stacktest.OutboxMessage, error) {
	if err := w.refresh(ctx); err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]stacktest.OutboxMessage(nil), w.sms...), nil
}
