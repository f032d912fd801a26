package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/telemetry"
)

// spans receives every span of the test process, synchronously.
var spans = tracetest.NewInMemoryExporter()

func TestMain(m *testing.M) {
	shutdown, err := telemetry.Setup(context.Background(), "cashout-test", "test", telemetry.WithSpanExporter(spans))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = shutdown(context.Background())
	os.Exit(code)
}

// newEnv starts the fakes and this binary's gateway in the test's process: serve, configured
// from the variables the binary would read, with the process's telemetry as TestMain set it up.
func newEnv(t *testing.T, opts cashouttest.Options) *cashouttest.Env {
	t.Helper()
	opts.Serve = func(ctx context.Context, lookup config.LookupFunc, logs io.Writer) error {
		var cfg Config
		if err := config.LoadWith(lookup, "CASHOUT", &cfg); err != nil {
			return err
		}
		logger, err := newLogger(cfg, logs)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, logger)
	}
	return cashouttest.NewEnv(t, opts)
}

var acquirers = map[feesv1.Bank]string{
	feesv1.Bank_BANK_STANDARD_BANK: atmnet.AcquirerStandardBank,
	feesv1.Bank_BANK_ABSA:          atmnet.AcquirerABSA,
	feesv1.Bank_BANK_FNB:           atmnet.AcquirerFNB,
	feesv1.Bank_BANK_NEDBANK:       atmnet.AcquirerNedbank,
	feesv1.Bank_BANK_CAPITEC:       atmnet.AcquirerCapitec,
}

// withdrawal is what the recipient of v types at an ATM of v's bank, right: the phone in local
// notation, as people type it.
func withdrawal(v cashouttest.Voucher) atmnet.Withdrawal {
	stan, rrn := atmnet.NewReferences(time.Now())
	return atmnet.Withdrawal{
		VoucherNumber: v.Number,
		PIN:           v.PIN,
		Phone:         "0" + strings.TrimPrefix(v.Phone, "+27"),
		AmountCents:   v.AmountCents,
		AcquirerID:    acquirers[v.Bank],
		TerminalID:    "ATM00042",
		Location:      "FNB ATM Sandton City",
		STAN:          stan,
		RRN:           rrn,
	}
}

// send sends one 0200 enciphered under key and returns the answer.
func send(t *testing.T, c *atmnet.Client, key atmnet.ZoneKey, w atmnet.Withdrawal) (req, res *atmnet.Message) {
	t.Helper()
	req, err := atmnet.NewWithdrawal(w, key)
	if err != nil {
		t.Fatal(err)
	}
	return req, do(t, c, req)
}

func do(t *testing.T, c *atmnet.Client, req *atmnet.Message) *atmnet.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := c.Do(ctx, req)
	if err != nil {
		t.Fatalf("%s STAN %s: %v", req.MTI, req.STAN, err)
	}
	return res
}

func reversal(t *testing.T, c *atmnet.Client, original *atmnet.Message) *atmnet.Message {
	t.Helper()
	stan, _ := atmnet.NewReferences(time.Now())
	return do(t, c, atmnet.NewReversal(original, stan, time.Time{}))
}

func wantCode(t *testing.T, what string, res *atmnet.Message, code string) {
	t.Helper()
	if res.ResponseCode != code {
		t.Errorf("%s: response code %s (%s), want %s (%s)", what, res.ResponseCode, atmnet.ResponseText(res.ResponseCode), code, atmnet.ResponseText(code))
	}
}

func TestApproval(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
	atm := env.Gateway.Dial(t)

	w := withdrawal(v)
	req, res := send(t, atm, env.Gateway.Keys.Current(), w)
	wantCode(t, "approval", res, atmnet.RespApproved)
	if res.MTI != "0210" || res.STAN != req.STAN || res.RRN != req.RRN || res.TerminalID != req.TerminalID ||
		res.AcquirerID != req.AcquirerID || res.AmountCents != 50000 || len(res.AuthCode) != 6 {
		t.Errorf("0210 %+v does not answer %+v", res, req)
	}
	if res.VoucherNumber != "" || res.RecipientPhone != "" || res.PINBlock != nil {
		t.Errorf("0210 echoes a credential: %+v", res)
	}
	if got := env.Transfers.State(v.Number); got != cashouttest.Collected {
		t.Errorf("voucher %s, want collected", got)
	}

	// What transfers received: the deciphered PIN, the references, as the atm-gateway service.
	calls := env.Transfers.Received()
	if len(calls) != 1 || calls[0].Method != "CollectVoucher" {
		t.Fatalf("transfers received %+v", calls)
	}
	got := calls[0]
	if !got.Caller.IsService("atm-gateway") || got.Caller.Kind != auth.KindService {
		t.Errorf("caller %+v, want the atm-gateway service token", got.Caller)
	}
	c := got.Collect
	if c.GetPin() != v.PIN || c.GetVoucherNumber() != v.Number || c.GetRecipientPhone() != w.Phone ||
		c.GetAmountCents() != 50000 || c.GetBank() != feesv1.Bank_BANK_FNB ||
		c.GetSystemTraceAuditNumber() != req.STAN || c.GetRetrievalReference() != req.RRN ||
		c.GetAtmId() != "ATM00042" || c.GetAtmLocation() != "FNB ATM Sandton City" {
		t.Errorf("CollectVoucher request %v does not carry the withdrawal %+v", c, w)
	}

	// The switch repeats the request (0201, same references): the same answer, nothing twice.
	repeat := *req
	repeat.MTI = atmnet.MTIAuthorizationRequestRepeat
	res2 := do(t, atm, &repeat)
	wantCode(t, "repeated request", res2, atmnet.RespApproved)
	if res2.AuthCode != res.AuthCode {
		t.Errorf("repeat authorization code %s, want %s", res2.AuthCode, res.AuthCode)
	}

	// Echo.
	echo := do(t, atm, atmnet.NewEcho("000001", time.Time{}))
	if echo.MTI != "0810" || echo.ResponseCode != "00" || echo.NetworkCode != "301" {
		t.Errorf("echo answered %+v", echo)
	}
}

// Every refusal reaches the ATM as its own response code.
func TestDeclines(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	atm := env.Gateway.Dial(t)
	key := env.Gateway.Keys.Current()
	tr := env.Transfers

	for _, tc := range []struct {
		name  string
		setup func(v cashouttest.Voucher)
		alter func(w *atmnet.Withdrawal)
		code  string
	}{
		{name: "wrong PIN", alter: func(w *atmnet.Withdrawal) { w.PIN = otherPIN(w.PIN) }, code: atmnet.RespIncorrectPIN},
		{name: "wrong phone", alter: func(w *atmnet.Withdrawal) { w.Phone = "0719999999" }, code: atmnet.RespIncorrectPIN},
		{name: "unknown voucher number", alter: func(w *atmnet.Withdrawal) { w.VoucherNumber = "0000000001" }, code: atmnet.RespIncorrectPIN},
		{name: "not a voucher number", alter: func(w *atmnet.Withdrawal) { w.VoucherNumber = "123456789" }, code: atmnet.RespInvalidVoucher},
		{name: "expired", setup: func(v cashouttest.Voucher) { tr.SetState(v.Number, cashouttest.Expired) }, code: atmnet.RespExpired},
		{name: "cancelled", setup: func(v cashouttest.Voucher) { tr.SetState(v.Number, cashouttest.Cancelled) }, code: atmnet.RespRestricted},
		{name: "already collected", setup: func(v cashouttest.Voucher) { tr.SetState(v.Number, cashouttest.Collected) }, code: atmnet.RespInvalidTransaction},
		{name: "another bank's ATM", alter: func(w *atmnet.Withdrawal) { w.AcquirerID = atmnet.AcquirerABSA }, code: atmnet.RespNotPermitted},
		{name: "wrong amount", alter: func(w *atmnet.Withdrawal) { w.AmountCents += 1000 }, code: atmnet.RespInvalidAmount},
		{name: "unknown acquirer", alter: func(w *atmnet.Withdrawal) { w.AcquirerID = "999999" }, code: atmnet.RespBankNotSupported},
		{name: "bad STAN", alter: func(w *atmnet.Withdrawal) { w.STAN = "12345X" }, code: atmnet.RespFormatError},
		{name: "no phone", alter: func(w *atmnet.Withdrawal) { w.Phone = "" }, code: atmnet.RespFormatError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tr.Issue(t, feesv1.Bank_BANK_FNB, 20000)
			if tc.setup != nil {
				tc.setup(v)
			}
			w := withdrawal(v)
			if tc.alter != nil {
				tc.alter(&w)
			}
			_, res := send(t, atm, key, w)
			wantCode(t, tc.name, res, tc.code)
			if res.AuthCode != "" {
				t.Errorf("a decline carries an authorization code %q", res.AuthCode)
			}
		})
	}

	t.Run("message edits", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			edit func(m *atmnet.Message)
			code string
		}{
			{"another processing code", func(m *atmnet.Message) { m.ProcessingCode = "310000" }, atmnet.RespInvalidTransaction},
			{"US dollars", func(m *atmnet.Message) { m.Currency = "840" }, atmnet.RespInvalidAmount},
			{"no amount", func(m *atmnet.Message) { m.AmountCents = 0 }, atmnet.RespFormatError},
			{"no PIN block", func(m *atmnet.Message) { m.PINBlock = nil }, atmnet.RespFormatError},
			{"unknown key id", func(m *atmnet.Message) { m.PINKeyID = "zpk-1999" }, atmnet.RespPINCryptoError},
			{"retired key", nil, atmnet.RespApproved},
		} {
			v := tr.Issue(t, feesv1.Bank_BANK_FNB, 20000)
			k, link := key, atm
			if tc.edit == nil {
				// A switch still on the retired key set is served.
				retired, ok := env.Gateway.Zones.Zone("zpk-retired")
				if !ok {
					t.Fatal("no retired key set")
				}
				k, link = retired.PIN, env.Gateway.DialWith(t, retired.MAC)
			}
			req, err := atmnet.NewWithdrawal(withdrawal(v), k)
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(req)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			res, err := link.Do(ctx, req)
			cancel()
			if tc.code == atmnet.RespPINCryptoError {
				// Keys the gateway does not have: it cannot MAC its answer either.
				if !errors.Is(err, atmnet.ErrMACMissing) {
					t.Errorf("%s: %v, want an answer without a MAC", tc.name, err)
				}
			} else if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			wantCode(t, tc.name, res, tc.code)
		}
	})

	t.Run("five wrong attempts lock the voucher", func(t *testing.T) {
		v := tr.Issue(t, feesv1.Bank_BANK_FNB, 20000)
		for i := range cashouttest.MaxAttempts {
			w := withdrawal(v)
			w.PIN = otherPIN(v.PIN)
			_, res := send(t, atm, key, w)
			want := atmnet.RespIncorrectPIN
			if i+1 == cashouttest.MaxAttempts {
				want = atmnet.RespPINTriesExceeded // the attempt that locks says so
			}
			wantCode(t, fmt.Sprintf("wrong attempt %d", i+1), res, want)
		}
		_, res := send(t, atm, key, withdrawal(v))
		wantCode(t, "the right PIN after 5 wrong", res, atmnet.RespPINTriesExceeded)
	})

	t.Run("transfers unavailable", func(t *testing.T) {
		v := tr.Issue(t, feesv1.Bank_BANK_FNB, 20000)
		tr.SetUnavailable(true)
		_, res := send(t, atm, key, withdrawal(v))
		tr.SetUnavailable(false)
		wantCode(t, "transfers down", res, atmnet.RespIssuerUnavailable)
	})

	t.Run("transfers without refusal details", func(t *testing.T) {
		tr.SetLegacyErrors(true)
		defer tr.SetLegacyErrors(false)
		v := tr.Issue(t, feesv1.Bank_BANK_FNB, 20000)
		w := withdrawal(v)
		w.PIN = otherPIN(v.PIN)
		_, res := send(t, atm, key, w)
		wantCode(t, "legacy PermissionDenied", res, atmnet.RespIncorrectPIN)
		tr.SetState(v.Number, cashouttest.Expired)
		_, res = send(t, atm, key, withdrawal(v))
		wantCode(t, "legacy FailedPrecondition", res, atmnet.RespNotPermitted)
		for range cashouttest.MaxAttempts {
			w := withdrawal(v)
			w.PIN = otherPIN(v.PIN)
			send(t, atm, key, w)
		}
		_, res = send(t, atm, key, withdrawal(v))
		wantCode(t, "legacy ResourceExhausted", res, atmnet.RespPINTriesExceeded)
	})
}

func otherPIN(pin string) string {
	b := []byte(pin)
	b[0] = '0' + (b[0]-'0'+1)%10
	return string(b)
}

// A PIN block under a key the gateway does not hold is a cryptographic error, not a wrong PIN:
// it reaches transfers not at all, so it costs the recipient no attempt.
func TestPINBlockUnderAWrongKey(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_CAPITEC, 100000)
	atm := env.Gateway.Dial(t)

	// The same key id, another key: the switch and the gateway disagree on the key.
	impostor, err := atmnet.NewZoneKey(env.Gateway.Keys.Current().ID(), bytes.Repeat([]byte{0x42}, 16))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cashouttest.MaxAttempts + 2 {
		_, res := send(t, atm, impostor, withdrawal(v))
		wantCode(t, fmt.Sprintf("wrong key, attempt %d", i+1), res, atmnet.RespPINCryptoError)
	}
	if calls := env.Transfers.Received(); len(calls) != 0 {
		t.Errorf("transfers was called %d times for undecipherable PIN blocks", len(calls))
	}
	_, res := send(t, atm, env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "then the right key", res, atmnet.RespApproved)
}

// 50 ATMs present one voucher at the same moment, over several switch connections: exactly
// one approval, and every other answer says it was already collected.
func TestConcurrentWithdrawalsOfOneVoucher(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_NEDBANK, 200000)
	key := env.Gateway.Keys.Current()
	const n, conns = 50, 5
	clients := make([]*atmnet.Client, conns)
	for i := range clients {
		clients[i] = env.Gateway.Dial(t)
	}
	reqs := make([]*atmnet.Message, n)
	for i := range reqs {
		w := withdrawal(v)
		w.STAN = fmt.Sprintf("%06d", 100000+i)
		w.RRN = fmt.Sprintf("6001%08d", i)
		w.TerminalID = fmt.Sprintf("NED%05d", i)
		var err error
		if reqs[i], err = atmnet.NewWithdrawal(w, key); err != nil {
			t.Fatal(err)
		}
	}
	codes := make([]string, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			res, err := clients[i%conns].Do(t.Context(), reqs[i])
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			if res.STAN != reqs[i].STAN || res.TerminalID != reqs[i].TerminalID {
				t.Errorf("request %d answered with %+v", i, res)
			}
			codes[i] = res.ResponseCode
		})
	}
	close(start)
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[atmnet.RespApproved] != 1 || count[atmnet.RespInvalidTransaction] != n-1 {
		t.Errorf("answers %v, want one 00 and %d × 12", count, n-1)
	}
	if got := env.Transfers.State(v.Number); got != cashouttest.Collected {
		t.Errorf("voucher %s", got)
	}
}

// The ATM could not dispense: the reversal makes the voucher collectable again, once; a repeat
// of the reversal changes nothing and is acknowledged.
func TestReversal(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_STANDARD_BANK, 30000)
	atm := env.Gateway.Dial(t)
	key := env.Gateway.Keys.Current()

	first, res := send(t, atm, key, withdrawal(v))
	wantCode(t, "first withdrawal", res, atmnet.RespApproved)

	// Reversals forged from the withdrawal's references (its bank, RRN and STAN) but not its
	// ATM, amount or voucher number: answered 25, nothing reversed.
	for name, edit := range map[string]func(*atmnet.Message){
		"another ATM":            func(m *atmnet.Message) { m.TerminalID = "EVIL0001" },
		"another amount":         func(m *atmnet.Message) { m.AmountCents = 100 },
		"another voucher number": func(m *atmnet.Message) { m.VoucherNumber = "1111111111" },
	} {
		forged := atmnet.NewReversal(first, "777000", time.Time{})
		edit(forged)
		wantCode(t, "a reversal with "+name, do(t, atm, forged), atmnet.RespNoOriginal)
	}
	missing := atmnet.NewReversal(first, "777000", time.Time{})
	missing.VoucherNumber = ""
	wantCode(t, "a reversal without DE 2", do(t, atm, missing), atmnet.RespFormatError)
	if got := env.Transfers.State(v.Number); got != cashouttest.Collected {
		t.Fatalf("after forged reversals the voucher is %s, want collected", got)
	}

	rev := atmnet.NewReversal(first, "777001", time.Time{})
	ack := do(t, atm, rev)
	if ack.MTI != "0430" || ack.ResponseCode != "00" || ack.STAN != "777001" || ack.RRN != first.RRN {
		t.Errorf("reversal answered %+v", ack)
	}
	if got := env.Transfers.State(v.Number); got != cashouttest.Awaiting {
		t.Fatalf("after the reversal the voucher is %s, want awaiting collection", got)
	}
	var reverse []cashouttest.Received
	for _, c := range env.Transfers.Received() {
		if c.Method == "ReverseCollection" {
			reverse = append(reverse, c)
		}
	}
	if len(reverse) != 4 {
		t.Fatalf("ReverseCollection received %d calls, want 4 (three forged, one real)", len(reverse))
	}
	if r := reverse[3].Reverse; r.GetRetrievalReference() != first.RRN || r.GetSystemTraceAuditNumber() != first.STAN ||
		r.GetBank() != feesv1.Bank_BANK_STANDARD_BANK || r.GetAtmId() != first.TerminalID || r.GetAmountCents() != first.AmountCents ||
		r.GetVoucherNumber() != first.VoucherNumber || !reverse[3].Caller.IsService("atm-gateway") {
		t.Errorf("ReverseCollection received %+v; want the original's bank, RRN and STAN (from DE 90), ATM, amount and voucher", r)
	}

	// The duplicate (the switch repeats the advice): acknowledged, nothing changes.
	dup := *rev
	dup.MTI = atmnet.MTIReversalAdviceRepeat
	wantCode(t, "repeated reversal", do(t, atm, &dup), atmnet.RespApproved)
	wantCode(t, "the reversal once more", do(t, atm, rev), atmnet.RespApproved)

	// Collectable again, once.
	_, again := send(t, atm, key, withdrawal(v))
	wantCode(t, "withdrawal after the reversal", again, atmnet.RespApproved)
	_, third := send(t, atm, key, withdrawal(v))
	wantCode(t, "a third withdrawal", third, atmnet.RespInvalidTransaction)
	// A late repeat of the first reversal does not undo the second collection.
	wantCode(t, "old reversal after the second collection", do(t, atm, rev), atmnet.RespApproved)
	if got := env.Transfers.State(v.Number); got != cashouttest.Collected {
		t.Errorf("voucher %s after a stale reversal, want collected", got)
	}

	// A reversal of a request that collected nothing is acknowledged.
	ghost := *first
	ghost.RRN, ghost.STAN = "600199999999", "999999"
	wantCode(t, "reversal of an unknown request", reversal(t, atm, &ghost), atmnet.RespApproved)
}

// Transfers down: the advice is answered 91 so the switch repeats it, and the repeat applies.
func TestReversalWhileTransfersIsDown(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_ABSA, 40000)
	atm := env.Gateway.Dial(t)
	first, res := send(t, atm, env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "withdrawal", res, atmnet.RespApproved)

	env.Transfers.SetUnavailable(true)
	rev := atmnet.NewReversal(first, "777002", time.Time{})
	wantCode(t, "reversal while transfers is down", do(t, atm, rev), atmnet.RespIssuerUnavailable)
	env.Transfers.SetUnavailable(false)
	rev.MTI = atmnet.MTIReversalAdviceRepeat
	wantCode(t, "the repeated advice", do(t, atm, rev), atmnet.RespApproved)
	if got := env.Transfers.State(v.Number); got != cashouttest.Awaiting {
		t.Errorf("voucher %s, want awaiting collection", got)
	}
}

// Transfers collects but answers after the gateway's timeout: the ATM is told 91 and dispenses
// nothing, and the gateway reverses the collection on its own.
func TestSlowTransfersIsReversedByTheGateway(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{RequestTimeout: 200 * time.Millisecond})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 10000)
	atm := env.Gateway.Dial(t)
	env.Transfers.SetDelay(600 * time.Millisecond)
	_, res := send(t, atm, env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "slow transfers", res, atmnet.RespIssuerUnavailable)
	env.Transfers.SetDelay(0)

	deadline := time.Now().Add(10 * time.Second)
	for env.Transfers.State(v.Number) != cashouttest.Awaiting {
		if time.Now().After(deadline) {
			t.Fatalf("voucher still %s: no stand-in reversal\n%s", env.Transfers.State(v.Number), env.Gateway.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, res = send(t, atm, env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "withdrawal after the stand-in reversal", res, atmnet.RespApproved)
}

// A gateway whose service secret identity does not accept gets no token: the ATM is told 91
// and transfers is never called without the atm-gateway token.
func TestWrongServiceSecret(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{ServiceSecret: "not-the-secret", StandInWindow: 300 * time.Millisecond})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 10000)
	_, res := send(t, env.Gateway.Dial(t), env.Gateway.Keys.Current(), withdrawal(v))
	wantCode(t, "no service token", res, atmnet.RespIssuerUnavailable)
	for _, c := range env.Transfers.Received() {
		if c.Method == "CollectVoucher" {
			t.Errorf("transfers served a collection without the atm-gateway token: %+v", c.Caller)
		}
	}
}

// A message that does not unpack is answered with a format error when its MTI can be read; a
// keep-alive (empty frame) is not answered; the connection stays usable.
func TestUnreadableMessages(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	conn, err := net.Dial("tcp", env.Gateway.ISOAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, frame := range [][]byte{{}, []byte("0200ZZZZ")} {
		if err := atmnet.WriteFrame(conn, frame); err != nil {
			t.Fatal(err)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := atmnet.ReadFrame(conn)
	if err != nil {
		t.Fatal(err)
	}
	res, err := atmnet.Unpack(b)
	if err != nil || res.MTI != "0210" || res.ResponseCode != atmnet.RespFormatError {
		t.Fatalf("answer %+v, %v; want 0210 with 30", res, err)
	}
	if res.MAC != nil || res.SecondaryMAC != nil {
		t.Errorf("an answer to an unreadable message is MAC'd: %q", b)
	}
	zone := env.Gateway.Zones.Current()
	m := atmnet.NewEcho("000009", time.Time{})
	m.PINKeyID = zone.ID()
	echo, _ := atmnet.PackMAC(m, zone.MAC)
	if err := atmnet.WriteFrame(conn, echo); err != nil {
		t.Fatal(err)
	}
	if b, err = atmnet.ReadFrame(conn); err != nil {
		t.Fatal(err)
	}
	if res, _ := atmnet.Unpack(b); res == nil || res.MTI != "0810" || res.ResponseCode != atmnet.RespApproved || atmnet.VerifyMAC(b, res, zone.MAC) != nil {
		t.Errorf("echo after the bad message: %+v", res)
	}
}

// The probe's F4, end to end: a link's keys speak only for the acquirers they were issued to,
// and nobody on a link can refuse, alter or reverse a withdrawal without the link's MAC key.
// Each refusal is 63, MAC'd, and leaves the voucher as it was.
func TestMessageAuthenticationEndToEnd(t *testing.T) {
	t.Parallel()
	pinHex, macHex := strings.Repeat("1d", 16), strings.Repeat("e2", 32)
	env := newEnv(t, cashouttest.Options{
		// FNB's link and Standard Bank's, each with its own keys.
		ZonePINKeys: []string{"fnb-1:" + pinHex + ":" + atmnet.AcquirerFNB, "sbk-1:" + strings.Repeat("5c", 16) + ":" + atmnet.AcquirerStandardBank},
		ZoneMACKeys: []string{"fnb-1:" + macHex, "sbk-1:" + strings.Repeat("c5", 32)},
	})
	fnb, _ := env.Gateway.Zones.Zone("fnb-1")
	sbk, _ := env.Gateway.Zones.Zone("sbk-1")
	fnbLink, sbkLink := env.Gateway.DialWith(t, fnb.MAC), env.Gateway.DialWith(t, sbk.MAC)

	// FNB's link claims a Standard Bank ATM for a Standard Bank voucher: refused before transfers.
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_STANDARD_BANK, 20000)
	_, res := send(t, fnbLink, fnb.PIN, withdrawal(v))
	wantCode(t, "FNB's keys for Standard Bank's DE 32", res, atmnet.RespSecurityViolation)
	if n := len(env.Transfers.Received()); n != 0 {
		t.Errorf("transfers saw %d calls for a link speaking for another bank", n)
	}
	// Standard Bank's own link is served.
	_, res = send(t, sbkLink, sbk.PIN, withdrawal(v))
	wantCode(t, "Standard Bank's keys for its own DE 32", res, atmnet.RespApproved)

	// An approved FNB withdrawal; someone on the link copies it into a reversal.
	w := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 30000)
	approved, res := send(t, fnbLink, fnb.PIN, withdrawal(w))
	wantCode(t, "FNB withdrawal", res, atmnet.RespApproved)
	forged := atmnet.NewReversal(approved, "999001", time.Time{})
	impostor, err := atmnet.NewMACKey("fnb-1", bytes.Repeat([]byte{0x42}, 32))
	if err != nil {
		t.Fatal(err)
	}
	for name, frame := range map[string]func() ([]byte, error){
		"no MAC":            func() ([]byte, error) { return atmnet.Pack(forged) },
		"a guessed MAC key": func() ([]byte, error) { return atmnet.PackMAC(forged, impostor) },
		"another link's key": func() ([]byte, error) {
			m := *forged
			m.PINKeyID = "sbk-1"
			return atmnet.PackMAC(&m, sbk.MAC)
		},
	} {
		b, err := frame()
		if err != nil {
			t.Fatal(err)
		}
		raw, res := rawExchange(t, env.Gateway.ISOAddr, b)
		wantCode(t, "forged reversal, "+name, res, atmnet.RespSecurityViolation)
		if key := map[bool]atmnet.MACKey{true: sbk.MAC, false: fnb.MAC}[name == "another link's key"]; atmnet.VerifyMAC(raw, res, key) != nil {
			t.Errorf("forged reversal, %s: the refusal is not MAC'd", name)
		}
	}
	// Altered after the MAC: the amount of a genuine reversal.
	genuine, err := atmnet.PackMAC(atmnet.NewReversal(approved, "999002", time.Time{}), fnb.MAC)
	if err != nil {
		t.Fatal(err)
	}
	amount := fmt.Sprintf("%012d", approved.AmountCents)
	_, res = rawExchange(t, env.Gateway.ISOAddr, bytes.Replace(genuine, []byte(amount), []byte(fmt.Sprintf("%012d", approved.AmountCents+1000)), 1))
	wantCode(t, "a reversal altered after its MAC", res, atmnet.RespSecurityViolation)
	if got := env.Transfers.State(w.Number); got != cashouttest.Collected {
		t.Errorf("voucher %s after the forged reversals, want still collected", got)
	}
	for _, c := range env.Transfers.Received() {
		if c.Method == "ReverseCollection" {
			t.Errorf("transfers saw a forged reversal: %+v", c)
		}
	}
	logs := env.Gateway.Logs()
	if !strings.Contains(logs, `"response_code":"63"`) || strings.Contains(logs, macHex[:16]) || strings.Contains(logs, pinHex) {
		t.Errorf("the refusals' log lines: want 63 and no key:\n%s", logs)
	}
}

// rawExchange sends one frame on a fresh connection and returns the answer as it came.
func rawExchange(t *testing.T, addr string, frame []byte) ([]byte, *atmnet.Message) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if err := atmnet.WriteFrame(conn, frame); err != nil {
		t.Fatal(err)
	}
	b, err := atmnet.ReadFrame(conn)
	if err != nil {
		t.Fatal(err)
	}
	res, err := atmnet.Unpack(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, res
}

// Stopping (SIGTERM) closes the listener and answers the requests in progress before closing
// their connections.
func TestStopAnswersRequestsInProgress(t *testing.T) {
	t.Parallel()
	env := newEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 10000)
	atm := env.Gateway.Dial(t)
	env.Transfers.SetDelay(300 * time.Millisecond)
	req, err := atmnet.NewWithdrawal(withdrawal(v), env.Gateway.Keys.Current())
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan *atmnet.Message, 1)
	go func() {
		res, err := atm.Do(t.Context(), req)
		if err != nil {
			t.Errorf("request in progress at stop: %v", err)
		}
		answered <- res
	}()
	time.Sleep(100 * time.Millisecond) // the request is with transfers
	if err := env.Gateway.Stop(); err != nil {
		t.Fatal(err)
	}
	if res := <-answered; res == nil || res.ResponseCode != atmnet.RespApproved {
		t.Errorf("answer %+v", res)
	}
	if _, err := net.DialTimeout("tcp", env.Gateway.ISOAddr, time.Second); err == nil {
		t.Error("the ISO listener still accepts after the stop")
	}
}
