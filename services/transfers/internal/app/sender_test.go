package app

import (
	"testing"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// The sender's names come from the token, which identity checked by the rule of the day: an
// account named before the rule refused web addresses must not carry one into the recipient's
// SMS (next to the voucher number and PIN), nor into the sender's own e-mails.
func TestSenderKeepsWhatTheNameRuleAllows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		given, family string
		want          domain.Sender
	}{
		{" Thandi ", "Nkosi", domain.Sender{DisplayName: "Thandi N.", FirstName: "Thandi"}},
		{"J.R.R.", "Tolkien", domain.Sender{DisplayName: "J.R.R. T.", FirstName: "J.R.R."}},
		{"Visit fnb-secure.co.za", "Nkosi", domain.Sender{DisplayName: "Visit N.", FirstName: "Visit"}},
		// The SMS carries one word of the given name: a first name of many words is not a
		// message under Thumela's name.
		{"FNB Fraud Desk says your card is blocked", "Now", domain.Sender{DisplayName: "FNB N.",
			FirstName: "FNB Fraud Desk says your card is blocked"}},
		{"Mary Ann", "Mokoena", domain.Sender{DisplayName: "Mary M.", FirstName: "Mary Ann"}},
		// The initial is of the name, not of its particle.
		{"Naledi", "van der Merwe", domain.Sender{DisplayName: "Naledi M.", FirstName: "Naledi"}},
		{"Pieter", "De Villiers", domain.Sender{DisplayName: "Pieter D.", FirstName: "Pieter"}},
		{"Ama", "nkosi", domain.Sender{DisplayName: "Ama n.", FirstName: "Ama"}},
		{"Nomathembaeliziwemhlophe", "Dube", domain.Sender{DisplayName: "Nomathembaeliziwemhlophe D.", FirstName: "Nomathembaeliziwemhlophe"}},
		{"www.fnb-help.co.za", "Nkosi", domain.Sender{}},
		{"Thandi", "www.fnb-help.co.za", domain.Sender{DisplayName: "Thandi", FirstName: "Thandi"}},
		{"Thandi", "\u202eisokN", domain.Sender{DisplayName: "Thandi i.", FirstName: "Thandi"}},
	}
	for _, tt := range tests {
		if got := (Caller{GivenName: tt.given, FamilyName: tt.family}).sender(); got != tt.want {
			t.Errorf("sender of %q %q = %+v; want %+v", tt.given, tt.family, got, tt.want)
		}
	}
}
