package devsinks

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// The stand-ins keep what they receive for /dev/outbox, and log that it came, never what it
// says: an e-mail can hold a one-time code and a voucher SMS its number and PIN.
func TestOutboxLogsNoMessageBody(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	o := NewOutbox(slog.New(slog.NewTextHandler(&log, nil)), 10)
	ctx := context.Background()
	o.addEmail(ctx, Message{Channel: "email", Recipient: "thandi@example.co.za", Subject: "Your code",
		Body: "Your code is 482913.", MessageID: "<a@thumela.co.za>"})
	o.addSMS(ctx, Message{Channel: "sms", Recipient: "+27821234567", Body: "Voucher 1234 5678 9012, PIN 4821"})

	if got := len(o.messages); got != 2 {
		t.Fatalf("outbox holds %d messages, want 2", got)
	}
	if !strings.Contains(log.String(), "thandi@example.co.za") || !strings.Contains(log.String(), "+27821234567") {
		t.Fatalf("log = %q, want both deliveries noted", log.String())
	}
	for _, secret := range []string{"482913", "4821", "1234 5678 9012"} {
		if strings.Contains(log.String(), secret) {
			t.Fatalf("the log holds %q: %s", secret, log.String())
		}
	}
}
