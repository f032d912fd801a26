package cashouttest

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"math/big"
	"testing"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/auth"
)

// Vouchers is what the gateway's scenarios need from transfers besides its address: a voucher
// to collect, a way to cancel or expire it, and its state afterwards. FakeTransfers implements
// it; against the real transfers, a harness implements it by sending money through the real
// services, so the same scenarios run unchanged.
type Vouchers interface {
	// Issue returns a voucher awaiting collection at an ATM of bank, for amountCents.
	Issue(t testing.TB, bank feesv1.Bank, amountCents int64) Voucher
	// SetState cancels or expires the voucher.
	SetState(number string, s VoucherState)
	// State is the voucher's collection state.
	State(number string) VoucherState
}

var _ Vouchers = (*FakeTransfers)(nil)

// Issue adds a fresh voucher (random number, PIN and phone) awaiting collection.
func (f *FakeTransfers) Issue(t testing.TB, bank feesv1.Bank, amountCents int64) Voucher {
	t.Helper()
	return f.AddVoucher(Voucher{
		Number:      randomDigits(t, 10),
		PIN:         randomDigits(t, 4),
		Phone:       "+2782" + randomDigits(t, 7),
		Bank:        bank,
		AmountCents: amountCents,
	})
}

// Env is a gateway in front of FakeTransfers, with FakeIdentity issuing the atm-gateway
// tokens that FakeTransfers checks.
type Env struct {
	Signer        auth.Signer
	IdentityAddr  string
	ServiceSecret string
	Transfers     *FakeTransfers
	Gateway       *Gateway
}

// NewEnv starts the fakes and a gateway; opts' addresses and secret are filled in.
func NewEnv(t testing.TB, opts Options) *Env {
	t.Helper()
	e := &Env{Signer: NewSigner(t), ServiceSecret: randomDigits(t, 32)}
	e.IdentityAddr = FakeIdentity(t, e.Signer, map[string]string{"atm-gateway": e.ServiceSecret})
	e.Transfers = NewFakeTransfers(t, e.Signer)
	opts.TransfersAddr, opts.IdentityAddr = e.Transfers.Addr(), e.IdentityAddr
	if opts.ServiceSecret == "" {
		opts.ServiceSecret = e.ServiceSecret
	}
	e.Gateway = Start(t, opts)
	return e
}

// NewSigner returns an access-token signer with a fresh key (identity's role).
func NewSigner(t testing.TB) auth.Signer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Signer{KeyID: "cashouttest", Key: key}
}

func randomDigits(t testing.TB, n int) string {
	t.Helper()
	s := ""
	for range n {
		d, err := rand.Int(rand.Reader, big.NewInt(10))
		if err != nil {
			t.Fatal(err)
		}
		s += fmt.Sprint(d)
	}
	return s
}
