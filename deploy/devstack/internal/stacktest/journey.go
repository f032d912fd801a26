package stacktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// What a person does against a running stack, through the BFF's Connect API and its /dev/
// pages as the browser does: sign up (with the code from the e-mail), add a card, send money,
// read the SMS the recipient got.

// Context returns the context for a test's calls to the stack: it ends after timeout or, with
// the reason as its cause, as soon as the stack stops early (a child died), so that a wait ends
// then and says why (Why). It is cancelled when the test ends.
func (s *Stack) Context(t testing.TB, timeout time.Duration) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancel(nil)
	})
	go func() {
		<-s.Stopped()
		cancel(fmt.Errorf("the stack stopped: %v", s.Err()))
	}()
	return ctx
}

// Why returns " (<cause>)" when ctx ended before the test did (the stack stopped, the time ran
// out), for a failure's message.
func Why(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return " (" + cause.Error() + ")"
	}
	return ""
}

// Fatalf fails the test with the message, why ctx ended (Why) and the stack's last lines.
func (s *Stack) Fatalf(t testing.TB, ctx context.Context, format string, args ...any) {
	t.Helper()
	t.Fatalf(format+"%s\n%s", append(args, Why(ctx), s.Tail(60))...)
}

// NewUser signs a user up through the BFF, verifies the e-mail with the code /dev/outbox shows
// and saves the sandbox's approving card as the default (bench.Client.SetUpUsers); it fails the
// test when any of that fails.
func (s *Stack) NewUser(t testing.TB, ctx context.Context) *bench.User {
	t.Helper()
	client := bench.NewClient(bench.ClientConfig{BaseURL: s.BaseURL, JSON: true})
	t.Cleanup(client.Close)
	users, err := client.SetUpUsers(ctx, randomHex(4), 1, 1, true)
	if err != nil {
		s.Fatalf(t, ctx, "set up a user: %v", err)
	}
	return users[0]
}

// The PIN as the voucher SMS says it: "PIN 4821", "PIN: 4821".
var pinInSMS = regexp.MustCompile(`\bPIN\b\D{0,3}(\d{4})\b`)

// Sent is a transfer that completed, the voucher SMS /dev/outbox shows for it, and the PIN that
// SMS gives.
type Sent struct {
	Transfer *bffv1.Transfer
	SMS      OutboxMessage
	PIN      string
}

// SendMoney steps u up (bench.User.StepUp), makes the transfer req as u and waits, up to 90 s, until it has completed with a
// voucher (the sandbox approves 4242…), then, up to 60 s, until /dev/outbox shows the voucher
// SMS to req's recipient (who must be in E.164 form, as bench.TransferRequest's is), with the
// status smsStatus unless that is "". It fails the test when any of that does not happen or the
// SMS gives no PIN.
func (s *Stack) SendMoney(t testing.TB, ctx context.Context, u *bench.User, req *bffv1.CreateTransferRequest, smsStatus string) Sent {
	t.Helper()
	// As the wizard's "Confirm it's you": bench.TransferRequest's phone is new to a new user.
	if err := u.StepUp(ctx); err != nil {
		s.Fatalf(t, ctx, "%v", err)
	}
	// As the wizard's first-payment question: the sender knows the recipient.
	req.RecipientKnownConfirmed = true
	created, err := u.Transfers.CreateTransfer(ctx, req)
	if err != nil {
		s.Fatalf(t, ctx, "CreateTransfer: %v", err)
	}
	tr, err := WaitTransfer(ctx, u, created.GetTransfer().GetId(), 90*time.Second, func(tr *bffv1.Transfer) bool {
		return tr.GetStatus() == bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED || tr.GetStatus() == bffv1.TransferStatus_TRANSFER_STATUS_FAILED
	})
	if err != nil || tr.GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
		s.Fatalf(t, ctx, "the transfer did not complete (the sandbox approves 4242…): %v %v", tr.GetStatus(), err)
	}
	number := tr.GetVoucher().GetNumber()
	if number == "" {
		s.Fatalf(t, ctx, "the completed transfer's voucher: %v", tr.GetVoucher())
	}
	sms, err := s.Outbox().Wait(ctx, 60*time.Second, func(m OutboxMessage) bool {
		return m.Channel == "sms" && m.Recipient == req.GetRecipientPhone() && strings.Contains(digits(m.Body), number) &&
			(smsStatus == "" || m.Status == smsStatus)
	})
	if err != nil {
		what := "the voucher SMS"
		if smsStatus != "" {
			what += ", " + smsStatus
		}
		s.Fatalf(t, ctx, "%s: %v", what, err)
	}
	pin := pinInSMS.FindStringSubmatch(sms.Body)
	if pin == nil {
		s.Fatalf(t, ctx, "no PIN in the voucher SMS %q", sms.Body)
	}
	return Sent{Transfer: tr, SMS: sms, PIN: pin[1]}
}

// WaitTransfer polls u's transfer id until done holds or timeout has passed (or ctx ended), and
// returns its last state: with an error unless done held.
func WaitTransfer(ctx context.Context, u *bench.User, id string, timeout time.Duration, done func(*bffv1.Transfer) bool) (*bffv1.Transfer, error) {
	var last *bffv1.Transfer
	var lastErr error
	WaitUntil(timeout, 200*time.Millisecond, func() bool {
		if ctx.Err() != nil {
			return true
		}
		res, err := u.Transfers.GetTransfer(ctx, &bffv1.GetTransferRequest{Id: id})
		if err != nil {
			lastErr = err
			return false
		}
		last = res.GetTransfer()
		return done(last)
	})
	if last != nil && done(last) {
		return last, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("still %v, voucher %v, SMS %v after %s",
			last.GetStatus(), last.GetVoucher().GetCollectionStatus(), last.GetSmsDelivery().GetStatus(), timeout)
	}
	var ce *connect.Error
	if errors.As(lastErr, &ce) {
		return last, fmt.Errorf("GetTransfer: %w", ce)
	}
	return last, lastErr
}

// OutboxMessage is one entry of /dev/outbox?format=json.
type OutboxMessage struct {
	ID        string `json:"id"`
	Channel   string `json:"channel"`
	Recipient string `json:"recipient"`
	Subject   string `json:"subject"`
	Body      string `json:"body"`
	Template  string `json:"template"`
	Status    string `json:"status"`
}

// DevOutbox reads /dev/outbox through the BFF, as a person and the browser tests do.
type DevOutbox struct{ BaseURL string }

// Outbox is the stack's /dev/outbox.
func (s *Stack) Outbox() *DevOutbox { return &DevOutbox{BaseURL: s.BaseURL} }

// List returns every message, oldest first.
func (o *DevOutbox) List(ctx context.Context) ([]OutboxMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.BaseURL+"/dev/outbox?format=json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /dev/outbox: %s", resp.Status)
	}
	var body struct {
		Messages []OutboxMessage `json:"messages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	return body.Messages, nil
}

// Wait returns the newest message that matches, polling until timeout; its error lists what
// the outbox held.
func (o *DevOutbox) Wait(ctx context.Context, timeout time.Duration, match func(OutboxMessage) bool) (OutboxMessage, error) {
	var found *OutboxMessage
	var last []OutboxMessage
	var lastErr error
	WaitUntil(timeout, 200*time.Millisecond, func() bool {
		if ctx.Err() != nil {
			return true
		}
		last, lastErr = o.List(ctx)
		for _, m := range slices.Backward(last) {
			if match(m) {
				found = &m
				return true
			}
		}
		return false
	})
	if found != nil {
		return *found, nil
	}
	var seen []string
	for _, m := range last {
		seen = append(seen, fmt.Sprintf("%s to %s (%s, %s)", m.Channel, m.Recipient, m.Template, m.Status))
	}
	return OutboxMessage{}, fmt.Errorf("not in /dev/outbox after %s (last error %v; it lists: %s)", timeout, lastErr, strings.Join(seen, "; "))
}

func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
