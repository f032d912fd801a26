package domain_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// Credentials never print: not with fmt's verbs, not in slog, not inside a struct.
func TestCredentialsNeverPrint(t *testing.T) {
	t.Parallel()
	pin, err := domain.NewPIN("4821")
	if err != nil {
		t.Fatal(err)
	}
	voucher, err := domain.NewVoucherNumber("9876543210")
	if err != nil {
		t.Fatal(err)
	}
	phone, err := domain.NewPhone("082 123 4567")
	if err != nil {
		t.Fatal(err)
	}
	w := domain.Withdrawal{Voucher: voucher, PIN: pin, Phone: phone, Bank: domain.BankFNB, RRN: "632908604337"}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("w", "pin", pin, "voucher", voucher, "phone", phone, "withdrawal", w)
	out := fmt.Sprintf("%v %+v %#v %s %v", w, w, w, pin, voucher) + logs.String()
	for _, secret := range []string{"4821", "9876543210", "987654", "123 4567"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q printed in %s", secret, out)
		}
	}
	if !strings.Contains(logs.String(), "…3210") {
		t.Errorf("the voucher's last 4 digits are not in the log: %s", logs.String())
	}
	if pin.Reveal() != "4821" || voucher.Reveal() != "9876543210" || phone.Reveal() != "082 123 4567" {
		t.Error("Reveal")
	}
	for _, bad := range []string{"", "123", "1234567890123", "12a4"} {
		if _, err := domain.NewPIN(bad); err == nil {
			t.Errorf("PIN %q accepted", bad)
		}
	}
	for _, bad := range []string{"", "12345678901234567890", "12 45"} {
		if _, err := domain.NewVoucherNumber(bad); err == nil {
			t.Errorf("voucher number %q accepted", bad)
		}
	}
}

func TestBankCodes(t *testing.T) {
	t.Parallel()
	codes, err := domain.ParseBankCodes([]string{"051001=standard_bank", " 250655 = FNB "})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := codes.Bank("051001"); err != nil || b != domain.BankStandardBank {
		t.Errorf("051001: %v, %v", b, err)
	}
	if b, err := codes.Bank("250655"); err != nil || b != domain.BankFNB {
		t.Errorf("250655: %v, %v", b, err)
	}
	if _, err := codes.Bank("51001"); err != domain.ErrUnknownAcquirer {
		t.Errorf("51001 (leading zero dropped): %v, want ErrUnknownAcquirer", err)
	}
	for _, bad := range [][]string{nil, {"051001"}, {"05100X=absa"}, {"051001=bank of nowhere"}, {"1=absa", "1=fnb"}, {"123456789012=absa"}} {
		if _, err := domain.ParseBankCodes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
