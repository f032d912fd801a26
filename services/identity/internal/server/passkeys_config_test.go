package server

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/identity/internal/app"
)

func TestCheckPasskeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		p       app.PasskeyConfig
		dev     bool
		wantErr string
	}{
		{name: "off", p: app.PasskeyConfig{}},
		{name: "production", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://app.thumela.co.za", "https://thumela.co.za"}}},
		{name: "development on localhost", dev: true, p: app.PasskeyConfig{RPID: "localhost", Origins: []string{"http://localhost:8080", "http://127.0.0.1:8080"}}},
		{name: "origins without an RP id", p: app.PasskeyConfig{Origins: []string{"https://thumela.co.za"}}, wantErr: "without IDENTITY_WEBAUTHN_RP_ID"},
		{name: "an RP id without origins", p: app.PasskeyConfig{RPID: "thumela.co.za"}, wantErr: "at least one origin"},
		{name: "plain http in production", p: app.PasskeyConfig{RPID: "localhost", Origins: []string{"http://localhost:8080"}}, wantErr: "must be https"},
		{name: "another site", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://thumela.co.za.evil.example"}}, wantErr: "is not on"},
		{name: "a suffix that is not a subdomain", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://notthumela.co.za"}}, wantErr: "is not on"},
		{name: "a path is not an origin", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://thumela.co.za/login"}}, wantErr: "not an origin"},
		{name: "127.0.0.1 only in development", p: app.PasskeyConfig{RPID: "localhost", Origins: []string{"https://127.0.0.1:8443"}}, wantErr: "is not on"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkPasskeys(tt.p, tt.dev)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("checkPasskeys = %v, want %q", err, tt.wantErr)
			}
			if err == nil {
				if _, err := app.NewRelyingParty(tt.p); err != nil {
					t.Fatalf("the library refuses what the check let through: %v", err)
				}
			}
		})
	}
}
