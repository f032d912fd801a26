package bus_test

import (
	"errors"
	"testing"

	"github.com/thumela/thumela/services/platform/bus"
)

func TestSubject(t *testing.T) {
	t.Parallel()
	const user = "0199a7b2-5c1e-7d2a-9f3b-2c4d5e6f7a8b"
	tests := []struct {
		name                string
		domain, user, event string
		want                string
		wantErr             bool
	}{
		{"transfer status", bus.DomainTransfers, user, "status", "thumela.transfers." + user + ".status", false},
		{"underscores and dashes", bus.DomainPaymentMethods, "u-1", "payment_method", "thumela.paymentmethods.u-1.payment_method", false},
		{"empty domain", "", user, "status", "", true},
		{"empty user", bus.DomainTransfers, "", "status", "", true},
		{"empty event", bus.DomainTransfers, user, "", "", true},
		{"dot in user", bus.DomainTransfers, "a.b", "status", "", true},
		{"dot in event", bus.DomainTransfers, user, "status.changed", "", true},
		{"star", bus.DomainTransfers, "*", "status", "", true},
		{"gt", bus.DomainTransfers, user, ">", "", true},
		{"embedded wildcard", "trans*fers", user, "status", "", true},
		{"space", bus.DomainTransfers, "a b", "status", "", true},
		{"tab", bus.DomainTransfers, user, "sta\ttus", "", true},
		{"newline", bus.DomainTransfers, user, "status\n", "", true},
		{"nbsp", bus.DomainTransfers, "a\u00a0b", "status", "", true},
		{"control", bus.DomainTransfers, "a\x00b", "status", "", true},
		{"invalid utf-8", bus.DomainTransfers, "a\xffb", "status", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := bus.Subject(tt.domain, tt.user, tt.event)
			if tt.wantErr {
				if !errors.Is(err, bus.ErrInvalidSubject) {
					t.Fatalf("Subject(%q, %q, %q) = %q, %v; want ErrInvalidSubject", tt.domain, tt.user, tt.event, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Subject = %q, %v; want %q", got, err, tt.want)
			}
			if err := bus.ValidateSubject(got); err != nil {
				t.Fatalf("ValidateSubject(Subject(...)) = %v", err)
			}
		})
	}
}

func TestValidateSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		subject string
		ok      bool
	}{
		{"thumela.transfers.u1.status", true},
		{"a", true},
		{"", false},
		{".a", false},
		{"a.", false},
		{"a..b", false},
		{"thumela.>", false},
		{"thumela.*.u1.status", false},
		{"thumela.transfers.u 1.status", false},
	}
	for _, tt := range tests {
		t.Run(tt.subject, func(t *testing.T) {
			t.Parallel()
			err := bus.ValidateSubject(tt.subject)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateSubject(%q) = %v, want ok=%v", tt.subject, err, tt.ok)
			}
			if err != nil && !errors.Is(err, bus.ErrInvalidSubject) {
				t.Fatalf("error %v is not ErrInvalidSubject", err)
			}
		})
	}
}

// A notification request's subject names its publisher, and reads back as built; no other
// shape parses, and a token that would add structure is refused.
func TestNotificationSubject(t *testing.T) {
	t.Parallel()
	s, err := bus.NotificationSubject("transfers", "0b8f0c3e-4c1a-4c55-9d55-5b0b2b8d1a10", "sms")
	if err != nil || s != "thumela.notifications.transfers.0b8f0c3e-4c1a-4c55-9d55-5b0b2b8d1a10.sms" {
		t.Fatalf("NotificationSubject = %q, %v", s, err)
	}
	if p, u, c, ok := bus.ParseNotificationSubject(s); !ok || p != "transfers" || u != "0b8f0c3e-4c1a-4c55-9d55-5b0b2b8d1a10" || c != "sms" {
		t.Errorf("ParseNotificationSubject = %q %q %q %v", p, u, c, ok)
	}
	for _, other := range []string{"thumela.notifications.u1.sms", "thumela.transfers.a.b.c", "x.notifications.a.b.c", "thumela.notifications.a.b.c.d"} {
		if _, _, _, ok := bus.ParseNotificationSubject(other); ok {
			t.Errorf("%q parsed as a notification subject", other)
		}
	}
	for _, bad := range [][3]string{{"identity.x", "u", "sms"}, {"*", "u", "sms"}, {"identity", ">", "sms"}, {"identity", "u", ""}} {
		if _, err := bus.NotificationSubject(bad[0], bad[1], bad[2]); !errors.Is(err, bus.ErrInvalidSubject) {
			t.Errorf("NotificationSubject%q: %v, want ErrInvalidSubject", bad, err)
		}
	}
	if got := bus.NotificationsFrom("identity"); got != "thumela.notifications.identity.>" {
		t.Errorf("NotificationsFrom = %q", got)
	}
}
