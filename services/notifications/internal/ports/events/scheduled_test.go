package events_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
)

// A recurring send's failed occurrence, as transfers writes it to its outbox (no secrets, the
// schedule's occurrence as the reference), reaches the sender's mailbox with its subject, day
// and reason.
func TestScheduledSendFailedIsMailed(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	req := &notificationsv1.NotificationRequest{
		Id: uuid.NewString(), Channel: notificationsv1.Channel_CHANNEL_EMAIL, Recipient: "thandi@example.co.za",
		Template: notificationsv1.Template_TEMPLATE_SCHEDULED_SEND_FAILED,
		Params: map[string]string{
			domain.ParamFirstName: "Thandi", domain.ParamRecipientName: "Sipho Dlamini", domain.ParamAmountCents: "50000",
			domain.ParamDate: "2026-03-27", domain.ParamReason: "Your card ending 4242 was declined.",
		},
		UserId: user, Reference: "schedule:sc-1:2026-03-27", SourceService: "transfers", CreatedAt: timestamppb.Now(),
	}
	m := mailOnlyOnce(t, e, req)
	if m.Template != "scheduled_send_failed" || m.Subject != "Your scheduled send to Sipho Dlamini did not go through" {
		t.Errorf("mail template %q, subject %q", m.Template, m.Subject)
	}
	for _, want := range []string{"R500,00", "Fri 27 Mar 2026", "Your card ending 4242 was declined."} {
		if !strings.Contains(m.Text, want) || !strings.Contains(m.HTML, want) {
			t.Errorf("mail lacks %q: %s", want, m.Text)
		}
	}
}

// A receipt reaches the mailbox with its amounts as the web writes them, the no-break space of
// "R1 500,00" whole through SMTP in the subject (an encoded word), the text and the HTML.
func TestReceiptAmountsReachTheMailboxAsTheWebWritesThem(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	req := &notificationsv1.NotificationRequest{
		Id: uuid.NewString(), Channel: notificationsv1.Channel_CHANNEL_EMAIL, Recipient: "thandi@example.co.za",
		Template: notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT,
		Params: map[string]string{
			domain.ParamFirstName: "Thandi", domain.ParamRecipientName: "Nomvula Precious Thandeka Mahlangu-Dlamini",
			domain.ParamRecipientPhone: "+27821234567", domain.ParamBank: "fnb", domain.ParamAmountCents: "150000",
			domain.ParamFeeCents: "1545", domain.ParamTotalCents: "151545", domain.ParamReference: "TH-7Q4K2M",
			domain.ParamCreatedAt: "2026-03-18T10:05:00Z", domain.ParamExpiresAt: "2026-03-25T10:05:00Z",
		},
		UserId: uuid.NewString(), Reference: "TH-7Q4K2M", SourceService: "transfers", CreatedAt: timestamppb.Now(),
	}
	m := mailOnlyOnce(t, e, req)
	if m.Subject != "Your Thumela receipt: R1\u00a0500,00 to Nomvula Precious Thandeka Mahlangu-Dlamini" {
		t.Errorf("subject %q", m.Subject)
	}
	for _, want := range []string{"R1\u00a0500,00", "R15,45", "R1\u00a0515,45", "Nomvula Precious Thandeka Mahlangu-Dlamini"} {
		if !strings.Contains(m.Text, want) || !strings.Contains(m.HTML, want) {
			t.Errorf("mail lacks %q: %s", want, m.Text)
		}
	}
}

// mailOnlyOnce publishes req, waits until it is sent and returns the one e-mail the mailbox of
// its recipient kept.
func mailOnlyOnce(t *testing.T, e *testkit.Env, req *notificationsv1.NotificationRequest) testkit.Mail {
	t.Helper()
	e.Publish(t, req)
	e.WaitStatus(t, req.GetId(), domain.StatusSent, wait)
	kept := e.SMTP.Kept(req.GetRecipient())
	if len(kept) != 1 {
		t.Fatalf("%d e-mails kept, want 1", len(kept))
	}
	return kept[0]
}
