package iso

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
	"github.com/thumela/thumela/services/platform/logging"
)

// The zone keys of the tests: FNB's link ("fnb-link", bound to FNB's acquirer id) and Standard
// Bank's ("sbk-link"). The hex strings are what a test looks for in the logs.
const (
	fnbPINHex = "0f0e0d0c0b0a09080706050403020100"
	fnbMACHex = "a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0"
	sbkPINHex = "1f1e1d1c1b1a19181716151413121110"
	sbkMACHex = "c1c2c3c4c5c6c7c8c9cacbcccdcecfd0"
)

var (
	zones    = mustZones()
	linkZone = mustZone("fnb-link") // the link the tests speak on
	sbkZone  = mustZone("sbk-link")
)

func mustZones() *atmnet.Zones {
	pin, err := atmnet.ParseZoneKeys([]string{
		"fnb-link:" + fnbPINHex + ":" + atmnet.AcquirerFNB,
		"sbk-link:" + sbkPINHex + ":" + atmnet.AcquirerStandardBank,
	})
	if err != nil {
		panic(err)
	}
	mac, err := atmnet.ParseMACKeys([]string{"fnb-link:" + fnbMACHex, "sbk-link:" + sbkMACHex})
	if err != nil {
		panic(err)
	}
	z, err := atmnet.NewZones(pin, mac)
	if err != nil {
		panic(err)
	}
	return z
}

func mustZone(id string) atmnet.Zone {
	z, ok := zones.Zone(id)
	if !ok {
		panic(id)
	}
	return z
}

func testZones(testing.TB) *atmnet.Zones { return zones }

// zoneEcho is an 0800 on the test link.
func zoneEcho(stan string) *atmnet.Message {
	m := atmnet.NewEcho(stan, time.Time{})
	m.PINKeyID = linkZone.ID()
	return m
}

func echoFrame(t testing.TB, stan string) ([]byte, error) {
	t.Helper()
	return atmnet.PackMAC(zoneEcho(stan), linkZone.MAC)
}

// recordingApp approves every withdrawal and applies every reversal, and counts them: a
// refused message must reach neither.
type recordingApp struct {
	mu          sync.Mutex
	withdrawals int
	reversals   int
}

func (a *recordingApp) Withdraw(_ context.Context, w domain.Withdrawal) (domain.Collection, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.withdrawals++
	return domain.Collection{TransferID: "0190f6a4-0000-7000-8000-000000000001", Amount: w.Amount}, nil
}

func (a *recordingApp) Reverse(context.Context, domain.Reversal) (domain.ReversalResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reversals++
	return domain.ReversalResult{Reversed: true, TransferID: "0190f6a4-0000-7000-8000-000000000001"}, nil
}

func (a *recordingApp) calls() (withdrawals, reversals int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.withdrawals, a.reversals
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startAuthServer(t *testing.T) (*recordingApp, string, *syncBuffer) {
	t.Helper()
	app := &recordingApp{}
	banks, err := domain.ParseBankCodes([]string{atmnet.AcquirerFNB + "=fnb", atmnet.AcquirerStandardBank + "=standard_bank"})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	s, err := NewServer(app, zones, banks, Config{}, logging.New("test", logs, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	return app, serveUntilCleanup(t, s), logs
}

// exchange sends frame on a fresh connection and returns the answer as it came and unpacked.
func exchange(t *testing.T, addr string, frame []byte) ([]byte, *atmnet.Message) {
	t.Helper()
	c := dial(t, addr)
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := atmnet.WriteFrame(c, frame); err != nil {
		t.Fatal(err)
	}
	b, err := atmnet.ReadFrame(c)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	res, err := atmnet.Unpack(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, res
}

// withdrawalOn is a 0200 of FNB's ATM (DE 32 acquirer) under zone's PIN key.
func withdrawalOn(t *testing.T, zone atmnet.Zone, acquirer string) *atmnet.Message {
	t.Helper()
	stan, rrn := atmnet.NewReferences(time.Now())
	m, err := atmnet.NewWithdrawal(atmnet.Withdrawal{
		VoucherNumber: "1234567890", PIN: "4821", Phone: "082 123 4567", AmountCents: 50000,
		AcquirerID: acquirer, TerminalID: "ATM00042", Location: "FNB ATM Sandton City", STAN: stan, RRN: rrn,
	}, zone.PIN)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func macd(t *testing.T, m *atmnet.Message, key atmnet.MACKey) []byte {
	t.Helper()
	b, err := atmnet.PackMAC(m, key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every request is authenticated before anything else: a MAC missing, wrong, or not covering
// what arrived, or zone keys that were not issued to DE 32's acquirer, is answered 63 (MAC'd, so
// that the switch can trust the refusal) and reaches neither transfers nor the PIN.
func TestMessageAuthentication(t *testing.T) {
	t.Parallel()
	wrongKey, err := atmnet.NewMACKey(linkZone.ID(), bytes.Repeat([]byte{0x77}, 32))
	if err != nil {
		t.Fatal(err)
	}
	tamper := func(frame []byte, from, to string) []byte {
		t.Helper()
		if !bytes.Contains(frame, []byte(from)) {
			t.Fatalf("%q is not in the frame", from)
		}
		return bytes.Replace(bytes.Clone(frame), []byte(from), []byte(to), 1)
	}
	approved := withdrawalOn(t, linkZone, atmnet.AcquirerFNB)
	// A reversal built from an approved request's fields by someone on the link, who has no key.
	forgedReversal := atmnet.NewReversal(approved, "999999", time.Time{})

	for _, tc := range []struct {
		name  string
		frame func() []byte
		code  string
		// macUnder is the key the answer's MAC verifies under; nil: the answer has no MAC.
		macUnder *atmnet.MACKey
		// withdrawals and reversals reach the app.
		withdrawals, reversals int
		reason                 string
	}{
		{name: "happy path: a withdrawal", frame: func() []byte { return macd(t, withdrawalOn(t, linkZone, atmnet.AcquirerFNB), linkZone.MAC) },
			code: atmnet.RespApproved, macUnder: &linkZone.MAC, withdrawals: 1},
		{name: "happy path: a reversal", frame: func() []byte { return macd(t, atmnet.NewReversal(approved, "000777", time.Time{}), linkZone.MAC) },
			code: atmnet.RespApproved, macUnder: &linkZone.MAC, reversals: 1},
		{name: "happy path: an echo", frame: func() []byte { return macd(t, zoneEcho("000001"), linkZone.MAC) },
			code: atmnet.RespApproved, macUnder: &linkZone.MAC},
		{name: "happy path: another link's keys for its own bank", frame: func() []byte {
			return macd(t, withdrawalOn(t, sbkZone, atmnet.AcquirerStandardBank), sbkZone.MAC)
		}, code: atmnet.RespApproved, macUnder: &sbkZone.MAC, withdrawals: 1},

		{name: "wrong key binding: FNB's link claims Standard Bank's ATM", frame: func() []byte {
			return macd(t, withdrawalOn(t, linkZone, atmnet.AcquirerStandardBank), linkZone.MAC)
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "not issued to"},
		{name: "wrong key binding: a reversal of Standard Bank's under FNB's keys", frame: func() []byte {
			return macd(t, atmnet.NewReversal(withdrawalOn(t, linkZone, atmnet.AcquirerStandardBank), "000778", time.Time{}), linkZone.MAC)
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "not issued to"},

		{name: "missing MAC: a withdrawal", frame: func() []byte {
			b, err := atmnet.Pack(withdrawalOn(t, linkZone, atmnet.AcquirerFNB))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "no MAC"},
		{name: "missing MAC: the forged reversal", frame: func() []byte {
			b, err := atmnet.Pack(forgedReversal)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "no MAC"},
		{name: "missing MAC: an echo", frame: func() []byte {
			b, err := atmnet.Pack(zoneEcho("000002"))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "no MAC"},

		{name: "wrong MAC: the forged reversal under a key of the link's id", frame: func() []byte { return macd(t, forgedReversal, wrongKey) },
			code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "does not verify"},
		{name: "wrong MAC: under Standard Bank's link's key", frame: func() []byte {
			return macd(t, withdrawalOn(t, linkZone, atmnet.AcquirerFNB), sbkZone.MAC)
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "does not verify"},

		{name: "tampered after the MAC: the amount", frame: func() []byte {
			return tamper(macd(t, withdrawalOn(t, linkZone, atmnet.AcquirerFNB), linkZone.MAC), "000000050000", "000000090000")
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "does not verify"},
		{name: "tampered after the MAC: DE 32", frame: func() []byte {
			return tamper(macd(t, withdrawalOn(t, sbkZone, atmnet.AcquirerStandardBank), sbkZone.MAC), "06"+atmnet.AcquirerStandardBank, "06"+atmnet.AcquirerFNB)
		}, code: atmnet.RespSecurityViolation, macUnder: &sbkZone.MAC, reason: "does not verify"},
		{name: "tampered after the MAC: a 0200 turned into a 0420", frame: func() []byte {
			return tamper(macd(t, atmnet.NewReversal(approved, "000779", time.Time{}), linkZone.MAC), "0420", "0421")
		}, code: atmnet.RespSecurityViolation, macUnder: &linkZone.MAC, reason: "does not verify"},

		{name: "unknown zone keys: answered 81 without a MAC", frame: func() []byte {
			m := withdrawalOn(t, linkZone, atmnet.AcquirerFNB)
			m.PINKeyID = "zone-1999"
			return macd(t, m, linkZone.MAC)
		}, code: atmnet.RespPINCryptoError},
		{name: "no zone keys named: answered 30 without a MAC", frame: func() []byte {
			m := withdrawalOn(t, linkZone, atmnet.AcquirerFNB)
			m.PINKeyID = ""
			return macd(t, m, linkZone.MAC)
		}, code: atmnet.RespFormatError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			app, addr, logs := startAuthServer(t)
			frame, res := exchange(t, addr, tc.frame())
			if res.ResponseCode != tc.code {
				t.Errorf("response code %s (%s), want %s", res.ResponseCode, atmnet.ResponseText(res.ResponseCode), tc.code)
			}
			if tc.macUnder != nil {
				if err := atmnet.VerifyMAC(frame, res, *tc.macUnder); err != nil {
					t.Errorf("the answer's MAC under %s: %v", tc.macUnder.ID(), err)
				}
			} else if res.MAC != nil || res.SecondaryMAC != nil {
				t.Errorf("an answer MAC'd under keys the request did not name: %q", frame)
			}
			if w, r := app.calls(); w != tc.withdrawals || r != tc.reversals {
				t.Errorf("%d withdrawals and %d reversals reached transfers, want %d and %d", w, r, tc.withdrawals, tc.reversals)
			}
			if tc.reason != "" && !strings.Contains(logs.String(), tc.reason) {
				t.Errorf("the log line does not say why (%q):\n%s", tc.reason, logs.String())
			}
			for _, secret := range []string{fnbPINHex, fnbMACHex, sbkPINHex, sbkMACHex} {
				if strings.Contains(strings.ToLower(logs.String()), secret[:16]) {
					t.Fatalf("a key is in the logs:\n%s", logs.String())
				}
			}
		})
	}
}

// Without zone keys the port does not start: no link may go unauthenticated.
func TestNoZoneKeysNoServer(t *testing.T) {
	t.Parallel()
	if _, err := NewServer(noApp{}, nil, nil, Config{}, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("NewServer without zone keys")
	}
}
