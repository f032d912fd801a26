package devatm

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
)

func testKey(t *testing.T) atmnet.ZoneKey {
	t.Helper()
	return testZone(t).PIN
}

// testZone is a fresh key set "test-atm" (a PIN key and a MAC key) that no gateway shares.
func testZone(t *testing.T) atmnet.Zone {
	t.Helper()
	pin, mac := make([]byte, 32), make([]byte, 32)
	_, _ = rand.Read(pin)
	_, _ = rand.Read(mac)
	k, err := atmnet.NewZoneKey("test-atm", pin)
	if err != nil {
		t.Fatal(err)
	}
	m, err := atmnet.NewMACKey("test-atm", mac)
	if err != nil {
		t.Fatal(err)
	}
	return atmnet.Zone{PIN: k, MAC: m}
}

// logBuffer keeps what the page logs, for the check that no secret is in it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// atmFor serves the page in front of the gateway at isoAddr, enciphering and MACing with zone's
// keys.
func atmFor(t *testing.T, isoAddr string, zone atmnet.Zone, timeout time.Duration) (string, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	srv := httptest.NewServer(New(Config{ISOAddr: isoAddr, Key: zone.PIN, MACKey: zone.MAC, Timeout: timeout, Logger: slog.New(slog.NewJSONHandler(logs, nil))}))
	t.Cleanup(srv.Close)
	return srv.URL + Path, logs
}

// typed is the form as the recipient fills it in at an FNB ATM.
func typed(v cashouttest.Voucher) url.Values {
	return url.Values{
		"bank":    {"fnb"},
		"atm":     {"FNB ATM Sandton City"},
		"voucher": {v.Number},
		"pin":     {v.PIN},
		"phone":   {"0" + strings.TrimPrefix(v.Phone, "+27")},
		"amount":  {"500"},
	}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

func wrongPIN(pin string) string {
	return string('0'+(pin[0]-'0'+1)%10) + pin[1:]
}

// The page against the real gateway (in front of a transfers fake that keeps the contract):
// every outcome reads as the issue says, and what reached transfers is what the ATM typed.
func TestWithdrawThroughTheGateway(t *testing.T) {
	t.Parallel()
	env := cashouttest.NewEnv(t, cashouttest.Options{})
	atm, logs := atmFor(t, env.Gateway.ISOAddr, env.Gateway.Zones.Current(), 0)
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)

	expectAlert := func(t *testing.T, s screen, want string) {
		t.Helper()
		if s.status != http.StatusOK || s.alertText != want || s.statusText != "" {
			t.Errorf("%d, alert %q, status %q; want the alert %q", s.status, s.alertText, s.statusText, want)
		}
	}
	pinNotEchoed := func(t *testing.T, s screen) {
		t.Helper()
		if hasAttr(s.control(t, "PIN"), "value") {
			t.Error("the PIN is echoed back into the page")
		}
	}

	t.Run("wrong PIN", func(t *testing.T) {
		s := post(t, atm, with(typed(v), "pin", wrongPIN(v.PIN)))
		expectAlert(t, s, "Incorrect PIN, voucher number or phone number.")
		pinNotEchoed(t, s)
		if !strings.Contains(s.body, "Response code 55") {
			t.Error("the details do not give the response code")
		}
	})
	t.Run("wrong amount", func(t *testing.T) {
		expectAlert(t, post(t, atm, with(typed(v), "amount", "400")), "The amount must be the voucher's full amount.")
	})
	t.Run("another bank's ATM", func(t *testing.T) {
		expectAlert(t, post(t, atm, with(typed(v), "bank", "absa", "atm", "ABSA ATM Carlton Centre")),
			"This voucher can only be collected at an ATM of the bank the sender chose.")
	})
	t.Run("fail to dispense reverses", func(t *testing.T) {
		s := post(t, atm, with(typed(v), "fail", "1"))
		if s.statusText != "No cash was dispensed. The withdrawal was reversed: the voucher can be collected again." || s.alertText != "" {
			t.Fatalf("status %q, alert %q", s.statusText, s.alertText)
		}
		if st := env.Transfers.State(v.Number); st != cashouttest.Awaiting {
			t.Errorf("after the reversal the voucher is %v", st)
		}
		// The reversal named the withdrawal it undoes.
		var collect, reverse int
		var rrn, stan string
		for _, r := range env.Transfers.Received() {
			switch r.Method {
			case "CollectVoucher":
				collect++
				rrn, stan = r.Collect.GetRetrievalReference(), r.Collect.GetSystemTraceAuditNumber()
			case "ReverseCollection":
				reverse++
				if r.Reverse.GetRetrievalReference() != rrn || r.Reverse.GetSystemTraceAuditNumber() != stan || r.Reverse.GetBank() != feesv1.Bank_BANK_FNB {
					t.Errorf("the reversal names %v, the withdrawal was RRN %s STAN %s", r.Reverse, rrn, stan)
				}
			}
		}
		if reverse != 1 {
			t.Errorf("%d reversals reached transfers, want 1", reverse)
		}
	})
	t.Run("approved", func(t *testing.T) {
		s := post(t, atm, typed(v))
		if s.statusText != "Please take your cash: R500.00" || s.alertText != "" {
			t.Fatalf("status %q, alert %q", s.statusText, s.alertText)
		}
		pinNotEchoed(t, s)
		if st := env.Transfers.State(v.Number); st != cashouttest.Collected {
			t.Errorf("the voucher is %v", st)
		}
		rec := env.Transfers.Received()
		last := rec[len(rec)-1].Collect
		fnb, _ := bankBySlug("fnb")
		if last.GetAtmLocation() != "FNB ATM Sandton City" || last.GetAtmId() != TerminalID(fnb, "FNB ATM Sandton City") ||
			last.GetAmountCents() != 50000 || last.GetPin() != v.PIN || last.GetVoucherNumber() != v.Number ||
			len(last.GetSystemTraceAuditNumber()) != 6 || len(last.GetRetrievalReference()) != 12 {
			t.Errorf("transfers received ATM %q at %q, %d cents, STAN %q, RRN %q", last.GetAtmId(), last.GetAtmLocation(),
				last.GetAmountCents(), last.GetSystemTraceAuditNumber(), last.GetRetrievalReference())
		}
	})
	t.Run("a second withdrawal is refused", func(t *testing.T) {
		expectAlert(t, post(t, atm, typed(v)), "This voucher has already been collected.")
	})
	t.Run("fresh references every time", func(t *testing.T) {
		seen := map[string]bool{}
		for _, r := range env.Transfers.Received() {
			if r.Method != "CollectVoucher" {
				continue
			}
			if seen[r.Collect.GetRetrievalReference()] {
				t.Errorf("RRN %s used twice", r.Collect.GetRetrievalReference())
			}
			seen[r.Collect.GetRetrievalReference()] = true
		}
	})
	t.Run("expired, cancelled, not a voucher", func(t *testing.T) {
		expired := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
		env.Transfers.SetState(expired.Number, cashouttest.Expired)
		expectAlert(t, post(t, atm, typed(expired)), "This voucher has expired.")
		cancelled := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
		env.Transfers.SetState(cancelled.Number, cashouttest.Cancelled)
		expectAlert(t, post(t, atm, typed(cancelled)), "The sender cancelled this voucher.")
		expectAlert(t, post(t, atm, with(typed(cancelled), "voucher", "123456789")), "This is not a valid voucher number.")
	})
	t.Run("locked after too many wrong PINs", func(t *testing.T) {
		locked := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
		for range cashouttest.MaxAttempts {
			post(t, atm, with(typed(locked), "pin", wrongPIN(locked.PIN)))
		}
		expectAlert(t, post(t, atm, typed(locked)), "Too many incorrect attempts: this voucher is locked for 24 hours.")
	})
	t.Run("transfers down", func(t *testing.T) {
		other := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
		env.Transfers.SetUnavailable(true)
		defer env.Transfers.SetUnavailable(false)
		expectAlert(t, post(t, atm, typed(other)), "The bank cannot be reached right now. Try again.")
	})

	// Nothing the recipient typed is in the page's log.
	for what, secret := range map[string]string{"voucher number": v.Number, "phone number": v.Phone[3:]} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the %s is in the log:\n%s", what, logs.String())
		}
	}
	if strings.Contains(strings.ToLower(logs.String()), `"pin"`) {
		t.Errorf("a PIN field in the log:\n%s", logs.String())
	}
}

// An ATM whose zone PIN key the gateway does not know gets 81, in words.
func TestWrongZoneKey(t *testing.T) {
	t.Parallel()
	env := cashouttest.NewEnv(t, cashouttest.Options{})
	other, err := atmnet.NewZoneKey(env.Gateway.Keys.Current().ID(), mustHex(t, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"))
	if err != nil {
		t.Fatal(err)
	}
	atm, _ := atmFor(t, env.Gateway.ISOAddr, atmnet.Zone{PIN: other, MAC: env.Gateway.Zones.Current().MAC}, 0)
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
	s := post(t, atm, typed(v))
	if s.alertText != "This ATM could not send the PIN securely: the ATM and the bank do not share a PIN key." {
		t.Errorf("alert %q, status %q", s.alertText, s.statusText)
	}
}

// An ATM whose zone MAC key the gateway does not share is refused (63) before anything is
// looked at, and cannot trust that refusal either (it is MAC'd under the gateway's key): it
// treats it as no answer and reverses, which is refused alike. The voucher is untouched.
func TestWrongMACKey(t *testing.T) {
	t.Parallel()
	env := cashouttest.NewEnv(t, cashouttest.Options{})
	current := env.Gateway.Zones.Current()
	other, err := atmnet.NewMACKey(current.ID(), mustHex(t, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"))
	if err != nil {
		t.Fatal(err)
	}
	atm, logs := atmFor(t, env.Gateway.ISOAddr, atmnet.Zone{PIN: current.PIN, MAC: other}, 0)
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
	s := post(t, atm, typed(v))
	if s.alertText != "The bank's answer could not be authenticated, so no cash was dispensed and the ATM sent a reversal, which the bank did not confirm." {
		t.Errorf("alert %q, status %q", s.alertText, s.statusText)
	}
	if st := env.Transfers.State(v.Number); st != cashouttest.Awaiting {
		t.Errorf("voucher %s, want awaiting collection", st)
	}
	if n := len(env.Transfers.Received()); n != 0 {
		t.Errorf("transfers saw %d calls from an ATM without the MAC key", n)
	}
	if !strings.Contains(env.Gateway.Logs(), `"response_code":"63"`) || !strings.Contains(logs.String(), "not authenticated") {
		t.Errorf("no 63 in the gateway's logs, or no warning in the ATM's:\n%s\n%s", env.Gateway.Logs(), logs.String())
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// No gateway listening: the page says the bank cannot be reached.
func TestGatewayNotReachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	atm, _ := atmFor(t, addr, testZone(t), 0)
	s := post(t, atm, url.Values{"bank": {"fnb"}, "voucher": {"1234567890"}, "pin": {"4821"}, "phone": {"0821234567"}, "amount": {"500"}})
	if s.status != http.StatusOK || s.alertText != "The bank cannot be reached right now. Try again." {
		t.Errorf("%d, alert %q", s.status, s.alertText)
	}
}

// A gateway that never answers the withdrawal: after its timeout the ATM reverses it, as a real
// one does, and says so.
func TestNoAnswerSendsAReversal(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	var got []*atmnet.Message
	zone := testZone(t)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				for {
					frame, err := atmnet.ReadFrame(conn)
					if err != nil {
						return
					}
					m, err := atmnet.Unpack(frame)
					if err != nil {
						return
					}
					if err := atmnet.VerifyMAC(frame, m, zone.MAC); err != nil {
						t.Errorf("%s from the ATM: %v", m.MTI, err)
					}
					mu.Lock()
					got = append(got, m)
					mu.Unlock()
					if m.MTI == atmnet.MTIReversalAdvice {
						b, _ := atmnet.PackMAC(m.Response(atmnet.RespApproved), zone.MAC)
						_ = atmnet.WriteFrame(conn, b)
					} // the withdrawal gets no answer
				}
			}()
		}
	}()
	atm, _ := atmFor(t, l.Addr().String(), zone, 300*time.Millisecond)
	s := post(t, atm, url.Values{"bank": {"nedbank"}, "atm": {""}, "voucher": {"1234567890"}, "pin": {"4821"}, "phone": {"0821234567"}, "amount": {"R1 000"}})
	if s.alertText != "The bank did not answer in time, so no cash was dispensed and the ATM sent a reversal, which the bank accepted." {
		t.Errorf("alert %q, status %q", s.alertText, s.statusText)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].MTI != atmnet.MTIAuthorizationRequest || got[1].MTI != atmnet.MTIReversalAdvice {
		t.Fatalf("the gateway received %d messages", len(got))
	}
	w, r := got[0], got[1]
	orig, err := atmnet.ParseOriginalData(r.OriginalData)
	if err != nil || orig.STAN != w.STAN || orig.MTI != w.MTI || r.RRN != w.RRN || r.STAN == w.STAN || r.AcquirerID != atmnet.AcquirerNedbank {
		t.Errorf("the reversal %+v does not name the withdrawal %+v (%v)", r, w, err)
	}
	// An empty 'ATM' is the bank's own named ATM; the amount as typed.
	if strings.TrimSpace(w.Location) != "Nedbank ATM Menlyn Park" || w.AmountCents != 100000 || w.Currency != atmnet.CurrencyZAR {
		t.Errorf("the withdrawal: location %q, %d cents, currency %q", w.Location, w.AmountCents, w.Currency)
	}
	if len(w.PINBlock) != atmnet.PINBlockSize || w.PINKeyID != "test-atm" || r.PINKeyID != "test-atm" {
		t.Errorf("PIN block of %d bytes under key %q; reversal under %q", len(w.PINBlock), w.PINKeyID, r.PINKeyID)
	}
}
