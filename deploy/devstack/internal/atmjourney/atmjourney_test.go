package atmjourney

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

const (
	// recipientPhone is bench.TransferRequest's recipient; typedPhone is how the recipient
	// types it at the ATM.
	recipientPhone = "+27821234567"
	typedPhone     = "082 123 4567"
	amountCents    = 50000
)

// The PIN as the voucher SMS says it: "PIN: 4821".
var pinInSMS = regexp.MustCompile(`\bPIN\b\D{0,3}(\d{4})\b`)

// The whole journey: send money, read the SMS in /dev/outbox, withdraw at /dev/atm, and watch
// the sender's transfer change.
func TestWithdrawAtTheDevATM(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelTimeout()

	st := stacktest.Start(t, stacktest.Options{Name: "atmjourney", KeepLogEnv: "ATMJOURNEY_KEEP_LOG"})
	go func() {
		<-st.Stopped()
		cancel(fmt.Errorf("the stack stopped: %v", st.Err()))
	}()
	if st.ISOAddr == "" || st.ZonePINKey == "" {
		t.Fatalf("the stack does not say where its gateway is: %+v", st.Ready)
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"%s\n%s", append(args, why(ctx), st.Tail(60))...)
	}

	client := bench.NewClient(bench.ClientConfig{BaseURL: st.BaseURL, JSON: true})
	t.Cleanup(client.Close)
	users, err := client.SetUpUsers(ctx, randomHex(4), 1, 1, true)
	if err != nil {
		fail("set up a user: %v", err)
	}
	sender := users[0]
	outbox := &devOutbox{baseURL: st.BaseURL}
	// The ATM as a person reaches it: through the BFF's dev proxy.
	atm := &devATM{url: st.BaseURL + "/dev/atm"}

	// sendMoney makes a transfer and returns it with the voucher's PIN read from the SMS.
	sendMoney := func() (*bffv1.Transfer, string) {
		t.Helper()
		req := bench.TransferRequest(sender)
		req.AmountCents = amountCents
		created, err := sender.Transfers.CreateTransfer(ctx, req)
		if err != nil {
			fail("CreateTransfer: %v", err)
		}
		tr, err := waitTransfer(ctx, sender, created.GetTransfer().GetId(), 90*time.Second, func(tr *bffv1.Transfer) bool {
			return tr.GetStatus() == bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED || tr.GetStatus() == bffv1.TransferStatus_TRANSFER_STATUS_FAILED
		})
		if err != nil || tr.GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
			fail("the transfer did not complete (the sandbox approves 4242…): %v %v", tr.GetStatus(), err)
		}
		number := tr.GetVoucher().GetNumber()
		if number == "" || tr.GetVoucher().GetCollectionStatus() != bffv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION {
			fail("the completed transfer's voucher: %v", tr.GetVoucher())
		}
		sms, err := outbox.wait(ctx, 60*time.Second, func(m outboxMessage) bool {
			return m.Channel == "sms" && m.Recipient == recipientPhone && strings.Contains(digits(m.Body), number)
		})
		if err != nil {
			fail("the voucher SMS: %v", err)
		}
		pin := pinInSMS.FindStringSubmatch(sms.Body)
		if pin == nil {
			fail("no PIN in the voucher SMS %q", sms.Body)
		}
		return tr, pin[1]
	}
	form := func(number, pin string) url.Values {
		return url.Values{
			"bank": {"fnb"}, "atm": {"FNB ATM Sandton City"}, "voucher": {number}, "pin": {pin},
			"phone": {typedPhone}, "amount": {"500"},
		}
	}
	collection := func(id string, want bffv1.CollectionStatus) {
		t.Helper()
		if _, err := waitTransfer(ctx, sender, id, 20*time.Second, func(tr *bffv1.Transfer) bool {
			return tr.GetVoucher().GetCollectionStatus() == want
		}); err != nil {
			t.Errorf("the sender never saw the voucher %v: %v", want, err)
		}
	}

	// The page is there, through the BFF.
	page := atm.get(t, ctx)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Withdraw") {
		fail("GET /dev/atm: %d", page.status)
	}

	first, pin := sendMoney()
	number := first.GetVoucher().GetNumber()
	t.Logf("voucher …%s of %s", number[len(number)-4:], first.GetId())

	t.Run("a cross-site post is refused", func(t *testing.T) {
		s := atm.post(t, ctx, form(number, pin), "Sec-Fetch-Site", "cross-site")
		if s.status != http.StatusForbidden {
			t.Errorf("a cross-site POST answered %d", s.status)
		}
	})
	t.Run("wrong PIN", func(t *testing.T) {
		wrong := string('0'+(pin[0]-'0'+1)%10) + pin[1:]
		s := atm.post(t, ctx, form(number, wrong))
		if s.alert != "Incorrect PIN, voucher number or phone number." || s.statusText != "" {
			t.Errorf("alert %q, status %q", s.alert, s.statusText)
		}
		if strings.Contains(s.body, `value="`+wrong+`"`) || strings.Contains(s.body, `value="`+pin+`"`) {
			t.Error("the PIN is echoed back into the page")
		}
	})
	t.Run("approved", func(t *testing.T) {
		s := atm.post(t, ctx, form(number, pin))
		if s.statusText != "Please take your cash: R500.00" || s.alert != "" {
			t.Fatalf("status %q, alert %q\n%s", s.statusText, s.alert, st.Tail(30))
		}
		collection(first.GetId(), bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED)
	})
	t.Run("a second withdrawal is refused", func(t *testing.T) {
		s := atm.post(t, ctx, form(number, pin))
		if s.alert != "This voucher has already been collected." || s.statusText != "" {
			t.Errorf("alert %q, status %q", s.alert, s.statusText)
		}
	})

	// Another voucher, at an ATM that cannot dispense: the gateway reverses the collection
	// (transfers' ReverseCollection), and the voucher can be collected after all.
	t.Run("fail to dispense reverses", func(t *testing.T) {
		second, pin := sendMoney()
		number := second.GetVoucher().GetNumber()
		failed := form(number, pin)
		failed.Set("fail", "1")
		s := atm.post(t, ctx, failed)
		if s.statusText != "No cash was dispensed. The withdrawal was reversed: the voucher can be collected again." || s.alert != "" {
			t.Fatalf("status %q, alert %q (transfers' ReverseCollection must answer for the reversal)\n%s", s.statusText, s.alert, st.Tail(30))
		}
		collection(second.GetId(), bffv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION)
		s = atm.post(t, ctx, form(number, pin))
		if s.statusText != "Please take your cash: R500.00" {
			t.Fatalf("after the reversal: status %q, alert %q", s.statusText, s.alert)
		}
		collection(second.GetId(), bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED)
	})
}

// screen is what the ATM page says after a request.
type screen struct {
	status     int
	body       string
	statusText string // role="status"
	alert      string // role="alert"
}

// devATM posts the page's form as a browser would.
type devATM struct{ url string }

func (a *devATM) get(t *testing.T, ctx context.Context) screen {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.do(t, req)
}

func (a *devATM) post(t *testing.T, ctx context.Context, v url.Values, header ...string) screen {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, strings.NewReader(v.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return a.do(t, req)
}

func (a *devATM) do(t *testing.T, req *http.Request) screen {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s /dev/atm: %v", req.Method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	s := screen{status: resp.StatusCode, body: string(b)}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		return s
	}
	doc, err := html.Parse(strings.NewReader(s.body))
	if err != nil {
		t.Fatalf("the page is not HTML: %v", err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		for _, at := range n.Attr {
			if at.Key == "role" && at.Val == "status" {
				s.statusText += text(n)
			}
			if at.Key == "role" && at.Val == "alert" {
				s.alert += text(n)
			}
		}
	}
	return s
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// outboxMessage is one entry of /dev/outbox?format=json.
type outboxMessage struct {
	Channel   string `json:"channel"`
	Recipient string `json:"recipient"`
	Body      string `json:"body"`
	Status    string `json:"status"`
}

// devOutbox reads /dev/outbox through the BFF.
type devOutbox struct{ baseURL string }

func (o *devOutbox) list(ctx context.Context) ([]outboxMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.baseURL+"/dev/outbox?format=json", nil)
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
		Messages []outboxMessage `json:"messages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	return body.Messages, nil
}

// wait returns the newest message that matches, polling until timeout.
func (o *devOutbox) wait(ctx context.Context, timeout time.Duration, match func(outboxMessage) bool) (outboxMessage, error) {
	var found *outboxMessage
	var lastErr error
	stacktest.WaitUntil(timeout, 200*time.Millisecond, func() bool {
		if ctx.Err() != nil {
			return true
		}
		var msgs []outboxMessage
		msgs, lastErr = o.list(ctx)
		for _, m := range slices.Backward(msgs) {
			if match(m) {
				found = &m
				return true
			}
		}
		return false
	})
	if found == nil {
		return outboxMessage{}, fmt.Errorf("not in /dev/outbox after %s (last error %v)", timeout, lastErr)
	}
	return *found, nil
}

func waitTransfer(ctx context.Context, u *bench.User, id string, timeout time.Duration, done func(*bffv1.Transfer) bool) (*bffv1.Transfer, error) {
	var last *bffv1.Transfer
	var lastErr error
	stacktest.WaitUntil(timeout, 200*time.Millisecond, func() bool {
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
		lastErr = fmt.Errorf("still %v, voucher %v after %s", last.GetStatus(), last.GetVoucher().GetCollectionStatus(), timeout)
	}
	return last, lastErr
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

// why says why ctx ended, for a failure's message.
func why(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil {
		return " (" + cause.Error() + ")"
	}
	return ""
}
