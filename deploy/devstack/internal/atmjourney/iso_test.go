package atmjourney

import (
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
)

// The gateway's ISO 8583 round trips against the real gateway and the real transfers service
// (through the stack's switch address, as an ATM switch would connect): the refusals transfers
// decides, a PIN block under a key the gateway does not share, 50 concurrent withdrawals of
// one voucher, reversals and their repeats, and a cancelled voucher.
func TestISOAgainstRealTransfers(t *testing.T) {
	st := stacktest.Start(t, stacktest.Options{Name: "atmiso", KeepLogEnv: "ATMJOURNEY_KEEP_LOG"})
	ctx := st.Context(t, 5*time.Minute)
	keys, err := atmnet.ParseZoneKeys([]string{st.ZonePINKey})
	if err != nil {
		t.Fatalf("the stack's zone PIN key: %v", err)
	}
	macKeys, err := atmnet.ParseMACKeys([]string{st.ZoneMACKey})
	if err != nil {
		t.Fatalf("the stack's zone MAC key: %v", err)
	}
	key, macKey := keys.Current(), macKeys[0]
	sender := st.NewUser(t, ctx)
	send := func(t *testing.T) (*bffv1.Transfer, string) {
		t.Helper()
		req := bench.TransferRequest(sender)
		req.AmountCents = amountCents
		sent := st.SendMoney(t, ctx, sender, req, "")
		return sent.Transfer, sent.PIN
	}
	withdrawal := func(number, pin string) atmnet.Withdrawal {
		stan, rrn := atmnet.NewReferences(time.Now())
		return atmnet.Withdrawal{
			VoucherNumber: number, PIN: pin, Phone: typedPhone, AmountCents: amountCents,
			AcquirerID: atmnet.AcquirerFNB, TerminalID: "FNBTEST1", Location: "FNB ATM Sandton City",
			STAN: stan, RRN: rrn,
		}
	}
	do := func(t *testing.T, req *atmnet.Message) string {
		t.Helper()
		c, err := atmnet.Dial(ctx, st.ISOAddr, macKey)
		if err != nil {
			t.Fatalf("dial the gateway: %v", err)
		}
		defer c.Close()
		res, err := c.Do(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", req.MTI, err)
		}
		return res.ResponseCode
	}
	withdraw := func(t *testing.T, w atmnet.Withdrawal, k atmnet.ZoneKey) (*atmnet.Message, string) {
		t.Helper()
		req, err := atmnet.NewWithdrawal(w, k)
		if err != nil {
			t.Fatal(err)
		}
		return req, do(t, req)
	}
	reverse := func(t *testing.T, original *atmnet.Message) string {
		t.Helper()
		stan, _ := atmnet.NewReferences(time.Now())
		return do(t, atmnet.NewReversal(original, stan, time.Time{}))
	}
	collection := func(t *testing.T, id string, want bffv1.CollectionStatus) {
		t.Helper()
		if _, err := stacktest.WaitTransfer(ctx, sender, id, 20*time.Second, func(tr *bffv1.Transfer) bool {
			return tr.GetVoucher().GetCollectionStatus() == want
		}); err != nil {
			t.Errorf("the voucher never became %v: %v", want, err)
		}
	}

	tr, pin := send(t)
	number := tr.GetVoucher().GetNumber()

	t.Run("refusals", func(t *testing.T) {
		wrongAmount := withdrawal(number, pin)
		wrongAmount.AmountCents = amountCents - 1000
		wrongBank := withdrawal(number, pin)
		wrongBank.AcquirerID = atmnet.AcquirerABSA
		notAVoucher := withdrawal("12345", pin)
		for name, c := range map[string]struct {
			w    atmnet.Withdrawal
			want string
		}{
			"wrong amount":         {wrongAmount, atmnet.RespInvalidAmount},
			"another bank's ATM":   {wrongBank, atmnet.RespNotPermitted},
			"not a voucher number": {notAVoucher, atmnet.RespInvalidVoucher},
		} {
			if _, got := withdraw(t, c.w, key); got != c.want {
				t.Errorf("%s: response %s, want %s", name, got, c.want)
			}
		}
		// The gateway and this ATM share no key: the block does not decipher, and the recipient
		// loses no attempt (the right PIN still works below).
		raw := make([]byte, 32)
		_, _ = rand.Read(raw)
		other, err := atmnet.NewZoneKey(key.ID(), raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := withdraw(t, withdrawal(number, pin), other); got != atmnet.RespPINCryptoError {
			t.Errorf("a PIN block under another key: response %s, want %s", got, atmnet.RespPINCryptoError)
		}
	})

	var approved *atmnet.Message
	t.Run("50 concurrent withdrawals, one approval", func(t *testing.T) {
		var mu sync.Mutex
		codes := map[string]int{}
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				req, code := withdraw(t, withdrawal(number, pin), key)
				mu.Lock()
				defer mu.Unlock()
				codes[code]++
				if code == atmnet.RespApproved {
					approved = req
				}
			})
		}
		wg.Wait()
		if codes[atmnet.RespApproved] != 1 || codes[atmnet.RespInvalidTransaction] != 49 {
			t.Fatalf("responses %v, want one 00 and 49 × 12", codes)
		}
		collection(t, tr.GetId(), bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED)
	})
	if approved == nil {
		t.FailNow()
	}

	t.Run("a reversal copied from the approval without the link's MAC key", func(t *testing.T) {
		// Someone on the link read the approved 0200 and builds its reversal; the MAC key is
		// the one thing they lack. The gateway refuses it (63) under its own MAC, which this
		// impostor cannot check: the answer comes with an error, and nothing is reversed.
		raw := make([]byte, 32)
		_, _ = rand.Read(raw)
		guessed, err := atmnet.NewMACKey(macKey.ID(), raw)
		if err != nil {
			t.Fatal(err)
		}
		c, err := atmnet.Dial(ctx, st.ISOAddr, guessed)
		if err != nil {
			t.Fatalf("dial the gateway: %v", err)
		}
		defer c.Close()
		stan, _ := atmnet.NewReferences(time.Now())
		res, err := c.Do(ctx, atmnet.NewReversal(approved, stan, time.Time{}))
		if !errors.Is(err, atmnet.ErrMACInvalid) || res == nil || res.ResponseCode != atmnet.RespSecurityViolation {
			t.Fatalf("forged reversal: %+v, %v; want 63 under a MAC the impostor cannot check", res, err)
		}
		collection(t, tr.GetId(), bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED)
	})

	t.Run("a reversal, its repeat, and the reversed request repeated", func(t *testing.T) {
		if got := reverse(t, approved); got != atmnet.RespApproved {
			t.Fatalf("reversal: response %s", got)
		}
		collection(t, tr.GetId(), bffv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION)
		if got := reverse(t, approved); got != atmnet.RespApproved {
			t.Errorf("a repeated reversal is acknowledged: response %s", got)
		}
		if got := do(t, approved); got != atmnet.RespDuplicate {
			t.Errorf("the reversed request repeated: response %s, want %s (never paid out twice)", got, atmnet.RespDuplicate)
		}
		// Collectable again, exactly once.
		if _, got := withdraw(t, withdrawal(number, pin), key); got != atmnet.RespApproved {
			t.Errorf("after the reversal: response %s", got)
		}
		if _, got := withdraw(t, withdrawal(number, pin), key); got != atmnet.RespInvalidTransaction {
			t.Errorf("a second withdrawal after the reversal: response %s", got)
		}
	})

	t.Run("a cancelled voucher", func(t *testing.T) {
		cancelled, pin := send(t)
		if _, err := sender.Transfers.CancelTransfer(ctx, &bffv1.CancelTransferRequest{Id: cancelled.GetId()}); err != nil {
			t.Fatalf("CancelTransfer: %v", err)
		}
		if _, got := withdraw(t, withdrawal(cancelled.GetVoucher().GetNumber(), pin), key); got != atmnet.RespRestricted {
			t.Errorf("response %s, want %s", got, atmnet.RespRestricted)
		}
	})
}
