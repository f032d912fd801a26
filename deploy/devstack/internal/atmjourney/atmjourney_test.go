package atmjourney

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

const (
	// typedPhone is how the recipient types bench.TransferRequest's recipient (+27821234567)
	// at the ATM.
	typedPhone  = "082 123 4567"
	amountCents = 50000
)

// The whole journey: send money, read the SMS in /dev/outbox, withdraw at /dev/atm, and watch
// the sender's transfer change.
func TestWithdrawAtTheDevATM(t *testing.T) {
	st := stacktest.Start(t, stacktest.Options{Name: "atmjourney", KeepLogEnv: "ATMJOURNEY_KEEP_LOG"})
	ctx := st.Context(t, 5*time.Minute)
	if st.ISOAddr == "" || st.ZonePINKey == "" || st.ZoneMACKey == "" {
		t.Fatalf("the stack does not say where its gateway is: %+v", st.Ready)
	}

	sender := st.NewUser(t, ctx)
	// The ATM as a person reaches it: through the BFF's dev proxy.
	atm := &devATM{url: st.BaseURL + "/dev/atm"}

	// sendMoney makes a transfer and returns it with the voucher's PIN read from the SMS.
	sendMoney := func(t *testing.T) (*bffv1.Transfer, string) {
		t.Helper()
		req := bench.TransferRequest(sender)
		req.AmountCents = amountCents
		sent := st.SendMoney(t, ctx, sender, req, "")
		if sent.Transfer.GetVoucher().GetCollectionStatus() != bffv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION {
			st.Fatalf(t, ctx, "the completed transfer's voucher: %v", sent.Transfer.GetVoucher())
		}
		return sent.Transfer, sent.PIN
	}
	form := func(number, pin string) url.Values {
		return url.Values{
			"bank": {"fnb"}, "atm": {"FNB ATM Sandton City"}, "voucher": {number}, "pin": {pin},
			"phone": {typedPhone}, "amount": {"500"},
		}
	}
	collection := func(id string, want bffv1.CollectionStatus) {
		t.Helper()
		if _, err := stacktest.WaitTransfer(ctx, sender, id, 20*time.Second, func(tr *bffv1.Transfer) bool {
			return tr.GetVoucher().GetCollectionStatus() == want
		}); err != nil {
			t.Errorf("the sender never saw the voucher %v: %v", want, err)
		}
	}

	// The page is there, through the BFF.
	page := atm.get(t, ctx)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Withdraw") {
		st.Fatalf(t, ctx, "GET /dev/atm: %d", page.status)
	}

	first, pin := sendMoney(t)
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
		second, pin := sendMoney(t)
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
