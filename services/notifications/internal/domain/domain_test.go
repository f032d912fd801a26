package domain_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// fullParams are valid params for every template.
func fullParams(t domain.Template) (params, secrets map[string]string) {
	switch t {
	case domain.TemplateSignUpCode, domain.TemplatePasswordResetCode:
		return map[string]string{"first_name": "Thandi", "ttl_minutes": "10"}, map[string]string{"code": "482913"}
	case domain.TemplateSignUpAttempt:
		return map[string]string{"first_name": "Thandi", "at": "2026-03-18T10:05:00Z"}, nil
	case domain.TemplatePasskeyAdded:
		return map[string]string{"first_name": "Thandi", "name": "Chrome on Windows", "at": "2026-03-18T10:05:00Z"}, nil
	case domain.TemplatePasswordChanged:
		return map[string]string{"first_name": "Thandi", "at": "2026-03-18T10:05:00Z", "how": "reset"}, nil
	case domain.TemplateNewSignIn:
		return map[string]string{"first_name": "Thandi", "device": "Chrome on Android", "address": "196.25.1.1",
			"at": "2026-03-18T10:05:00Z"}, nil
	case domain.TemplateVoucherIssued:
		return map[string]string{"sender_name": "Thandi Nkosi", "amount_cents": "123400", "bank": "standard_bank",
				"expires_at": "2026-03-25T11:12:00Z", "reference": "TH-7Q4K2M"},
			map[string]string{"voucher_number": "1234 5678 9012", "pin": "4821"}
	case domain.TemplateVoucherCancelled:
		return map[string]string{"sender_name": "Thandi N.", "amount_cents": "30000", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateVoucherReminder:
		return map[string]string{"sender_name": "Thandi Nkosi", "amount_cents": "123400", "bank": "capitec",
			"expires_at": "2026-03-25T11:12:00Z", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateTransferReceipt:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "recipient_phone": "+27821234567",
			"bank": "fnb", "amount_cents": "50000", "fee_cents": "1500", "total_cents": "51500", "reference": "TH-7Q4K2M",
			"created_at": "2026-03-18T10:05:00Z", "expires_at": "2026-03-25T10:05:00Z"}, nil
	case domain.TemplateCashCollected:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000",
			"bank": "absa", "location": "ABSA Sandton City", "at": "2026-03-19T08:00:00Z", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateCashNotDispensed:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000",
			"bank": "absa", "at": "2026-03-19T08:01:00Z", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateVoucherRefunded:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "total_cents": "51500",
			"reason": "expired", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateScheduledSendFailed:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000",
			"date": "2026-03-27", "reason": "This send would pass your daily limit of R5\u00a0000,00."}, nil
	case domain.TemplateVoucherLocked:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000",
			"bank": "FNB", "until": "2026-03-20T08:00:00Z", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateVoucherSMSFailed:
		return map[string]string{"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "recipient_phone": "+27821234567",
			"amount_cents": "50000", "bank": "Nedbank", "reference": "TH-7Q4K2M"}, nil
	case domain.TemplateSupportMessage:
		return map[string]string{"ticket": "THM-7Q4K2M", "kind": "feedback", "name": "Thandi", "email": "thandi@example.co.za",
			"subject": "Great app", "message": "Line one\nLine two", "details.rating": "5", "details.recommend": "yes"}, nil
	}
	return nil, nil
}

func TestEveryTemplateRenders(t *testing.T) {
	t.Parallel()
	// Exactly the contract's templates (every TEMPLATE_* but UNSPECIFIED).
	var contract []domain.Template
	for n, name := range notificationsv1.Template_name {
		if n != 0 {
			contract = append(contract, domain.Template(strings.ToLower(strings.TrimPrefix(name, "TEMPLATE_"))))
		}
	}
	slices.Sort(contract)
	if !slices.Equal(domain.Templates(), contract) {
		t.Fatalf("templates = %v, want the contract's %v", domain.Templates(), contract)
	}
	for _, tmpl := range domain.Templates() {
		t.Run(string(tmpl), func(t *testing.T) {
			t.Parallel()
			params, secrets := fullParams(tmpl)
			msg, err := domain.Render(tmpl, tmpl.Channel(), params, secrets)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Text == "" || strings.Contains(msg.Text, "<no value>") || strings.Contains(msg.HTML, "<no value>") {
				t.Fatalf("rendered %+v", msg)
			}
			for _, v := range secrets {
				if !strings.Contains(msg.Text, v) {
					t.Errorf("secret %q missing from the text: %s", v, msg.Text)
				}
				if tmpl.Channel() == domain.ChannelEmail && !strings.Contains(msg.HTML, v) {
					t.Errorf("secret %q missing from the HTML", v)
				}
			}
			switch tmpl.Channel() {
			case domain.ChannelEmail:
				if msg.Subject == "" || strings.ContainsAny(msg.Subject, "\r\n") || !strings.Contains(msg.HTML, "<html") {
					t.Errorf("e-mail parts: subject %q, html %d bytes", msg.Subject, len(msg.HTML))
				}
			case domain.ChannelSMS:
				if msg.Subject != "" || msg.HTML != "" || domain.ToGSM(msg.Text) != msg.Text {
					t.Errorf("SMS not plain GSM text: %+v", msg)
				}
				if n := domain.SMSParts(msg.Text); n > 2 {
					t.Errorf("SMS takes %d parts: %q", n, msg.Text)
				}
			}
			// Every required param is required.
			for k := range params {
				if strings.HasPrefix(k, "details.") || tmpl == domain.TemplateSupportMessage && k != "ticket" && k != "kind" {
					continue
				}
				short := map[string]string{}
				for k2, v := range params {
					if k2 != k {
						short[k2] = v
					}
				}
				_, err := domain.Render(tmpl, tmpl.Channel(), short, secrets)
				var inv *domain.InvalidRequestError
				if !errors.As(err, &inv) || !strings.Contains(inv.Reason, k) {
					t.Errorf("without %s: %v, want an invalid request naming it", k, err)
				}
			}
		})
	}
}

func TestRenderRefusesWhatCannotBeSent(t *testing.T) {
	t.Parallel()
	params, secrets := fullParams(domain.TemplateSignUpCode)
	for name, tc := range map[string]struct {
		tmpl    domain.Template
		ch      domain.Channel
		params  map[string]string
		secrets map[string]string
	}{
		"unknown template":    {"birthday", domain.ChannelEmail, params, secrets},
		"wrong channel":       {domain.TemplateSignUpCode, domain.ChannelSMS, params, secrets},
		"no code":             {domain.TemplateSignUpCode, domain.ChannelEmail, params, nil},
		"code not six digits": {domain.TemplateSignUpCode, domain.ChannelEmail, params, map[string]string{"code": "12345a"}},
		"bad ttl":             {domain.TemplateSignUpCode, domain.ChannelEmail, map[string]string{"first_name": "T", "ttl_minutes": "soon"}, secrets},
		"unknown bank": {domain.TemplateVoucherReminder, domain.ChannelSMS, map[string]string{"sender_name": "T",
			"amount_cents": "100", "bank": "Bank of Mars", "expires_at": "2026-03-25T11:12:00Z", "reference": "R"}, nil},
		"negative amount": {domain.TemplateVoucherReminder, domain.ChannelSMS, map[string]string{"sender_name": "T",
			"amount_cents": "-100", "bank": "fnb", "expires_at": "2026-03-25T11:12:00Z", "reference": "R"}, nil},
	} {
		_, err := domain.Render(tc.tmpl, tc.ch, tc.params, tc.secrets)
		var inv *domain.InvalidRequestError
		if !errors.As(err, &inv) {
			t.Errorf("%s: %v, want an invalid request", name, err)
		}
		if err != nil && (strings.Contains(err.Error(), "482913") || strings.Contains(err.Error(), "12345a")) {
			t.Errorf("%s: the error quotes a secret: %v", name, err)
		}
	}
}

func TestVoucherSMS(t *testing.T) {
	t.Parallel()
	params, secrets := fullParams(domain.TemplateVoucherIssued)
	msg, err := domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Thandi Nkosi sent you R1,234.00", "Voucher number: 1234 5678 9012", "PIN: 4821",
		"Withdraw at any Standard Bank ATM", "25 Mar 2026, 13:12", // 11:12 UTC in Johannesburg
		"Never share your PIN", "Ref TH-7Q4K2M",
	} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("SMS lacks %q: %s", want, msg.Text)
		}
	}
	for _, other := range []string{"ABSA", "FNB", "Nedbank", "Capitec"} {
		if strings.Contains(msg.Text, other) {
			t.Errorf("SMS names %s, not the transfer's bank: %s", other, msg.Text)
		}
	}

	if strings.Contains(msg.Text, "replaces") {
		t.Errorf("a first voucher's SMS says it replaces one: %s", msg.Text)
	}
	// A resent voucher's SMS says that the earlier number no longer works; the flag is "true" or
	// nothing.
	params["replaces_earlier"] = "true"
	msg, err = domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
	if err != nil || !strings.Contains(msg.Text, "sent you R1,234.00. This replaces the earlier voucher: its number no longer works. Voucher number:") {
		t.Errorf("a resent voucher's SMS: %q, %v", msg.Text, err)
	}
	params["replaces_earlier"] = "yes"
	if _, err := domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets); err == nil {
		t.Error("replaces_earlier \"yes\" was accepted")
	}
	delete(params, "replaces_earlier")

	// Without the PIN (the sender keeps it), the SMS says who will give it.
	delete(secrets, "pin")
	msg, err = domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msg.Text, "PIN:") || !strings.Contains(msg.Text, "Thandi Nkosi will give you the PIN") {
		t.Errorf("SMS without a PIN: %s", msg.Text)
	}

	// A hostile sender name: controls and bidi overrides stripped, length capped, GSM only, and
	// the SMS still fits in three parts.
	params["sender_name"] = "\u202eNkosi\u202c \x07Thandi\u200b " + strings.Repeat("Ş", 200) + "\n😀"
	params["amount_cents"] = "99999999999"
	msg, err = domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(msg.Text, "\u202e\u202c\x07\u200b\n😀Ş") || !strings.Contains(msg.Text, "Nkosi Thandi SSS") {
		t.Errorf("name not sanitised: %q", msg.Text)
	}
	if n := domain.SMSParts(msg.Text); n > domain.MaxSMSParts {
		t.Errorf("%d parts: %q", n, msg.Text)
	}
	if domain.ToGSM(msg.Text) != msg.Text {
		t.Errorf("not GSM: %q", msg.Text)
	}
}

// The recipient is told when the sender cancels: who, how much, and that it can no longer be
// withdrawn, with the reference, in GSM and one part.
func TestVoucherCancelledSMS(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateVoucherCancelled)
	msg, err := domain.Render(domain.TemplateVoucherCancelled, domain.ChannelSMS, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Thumela: Thandi N. cancelled the R300.00 voucher sent to you. It can no longer be withdrawn. Ref TH-7Q4K2M"
	if strings.TrimSpace(msg.Text) != want || domain.SMSParts(msg.Text) != 1 || domain.ToGSM(msg.Text) != msg.Text {
		t.Errorf("SMS %q, want %q in one GSM part", msg.Text, want)
	}
}

// Browser tests read the code from the text part: it must be its only run of six digits.
func TestCodeEmailsHaveOneSixDigitRun(t *testing.T) {
	t.Parallel()
	runs := regexp.MustCompile(`[0-9]+`)
	for _, tmpl := range []domain.Template{domain.TemplateSignUpCode, domain.TemplatePasswordResetCode} {
		params, secrets := fullParams(tmpl)
		msg, err := domain.Render(tmpl, domain.ChannelEmail, params, secrets)
		if err != nil {
			t.Fatal(err)
		}
		var six []string
		for _, r := range runs.FindAllString(msg.Text, -1) {
			if len(r) >= 6 {
				six = append(six, r)
			}
		}
		if len(six) != 1 || six[0] != "482913" {
			t.Errorf("%s: runs of six or more digits %v, want only the code", tmpl, six)
		}
	}
}

func TestHTMLIsEscaped(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateSupportMessage)
	params["message"] = `<script>alert("x")</script> & <b>bold</b>`
	params["name"] = `<img src=x onerror=alert(1)>`
	msg, err := domain.Render(domain.TemplateSupportMessage, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msg.HTML, "<script>") || strings.Contains(msg.HTML, "<img") || strings.Contains(msg.HTML, "<b>bold") {
		t.Errorf("markup from params reached the HTML: %s", msg.HTML)
	}
	if !strings.Contains(msg.HTML, "&lt;script&gt;") || !strings.Contains(msg.HTML, "&amp;") {
		t.Errorf("not escaped: %s", msg.HTML)
	}
	// The text part is plain text: as typed.
	if !strings.Contains(msg.Text, `<script>alert("x")</script>`) {
		t.Errorf("text part: %s", msg.Text)
	}
	if !strings.Contains(msg.Subject, "[THM-7Q4K2M] Feedback: Great app") {
		t.Errorf("subject %q", msg.Subject)
	}
	if !strings.Contains(msg.Text, "rating: 5") || !strings.Contains(msg.HTML, "recommend") {
		t.Errorf("details missing: %s", msg.Text)
	}
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{0: "R0.00", 5: "R0.05", 123400: "R1,234.00", 100000000: "R1,000,000.00", -150: "-R1.50"} {
		if got := domain.Rand(cents); got != want {
			t.Errorf("Rand(%d) = %q, want %q", cents, got, want)
		}
	}
	if got := domain.DisplayPhone("+27821234567"); got != "+27 82 123 4567" {
		t.Errorf("DisplayPhone = %q", got)
	}
	if got := domain.Sanitize(" a\u202eb\u2066c\x00d\te  f ", 0); got != "abcd e f" {
		t.Errorf("Sanitize = %q", got)
	}
	if got := domain.Sanitize(strings.Repeat("é", 50), 40); len([]rune(got)) != 40 {
		t.Errorf("Sanitize cap: %d runes", len([]rune(got)))
	}
	if got := domain.ToGSM("Zoë’s “café” – Şükrü…"); got != `Zoe's "café" - Sükrü...` {
		t.Errorf("ToGSM = %q", got)
	}
	if domain.SMSParts(strings.Repeat("a", 160)) != 1 || domain.SMSParts(strings.Repeat("a", 161)) != 2 ||
		domain.SMSParts(strings.Repeat("{", 80)) != 1 || domain.SMSParts(strings.Repeat("a", 459)) != 3 ||
		domain.SMSParts(strings.Repeat("a", 460)) != 4 || domain.SMSParts(strings.Repeat("Ş", 71)) != 2 {
		t.Error("SMSParts miscounts")
	}
}

func TestStatusesMoveForwardOnly(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 18, 10, 0, 0, 0, time.UTC)
	d := domain.NewDelivery(uuid.New(), uuid.NewString(), "ref", domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "transfers", now)

	if err := d.Claim(now, time.Minute); err != nil || d.Attempts != 1 || !d.FirstAttemptAt.Equal(now) {
		t.Fatalf("claim: %v %+v", err, d)
	}
	var claimed *domain.ClaimedError
	if err := d.Claim(now.Add(time.Second), time.Minute); !errors.As(err, &claimed) {
		t.Fatalf("second claim within the lease: %v", err)
	}
	if err := d.Claim(now.Add(2*time.Minute), time.Minute); err != nil || d.Attempts != 2 || !d.FirstAttemptAt.Equal(now) {
		t.Fatalf("claim after the lease: %v %+v", err, d)
	}
	if !d.MarkSent("m1", now) || d.Status != domain.StatusSent || d.ProviderMessageID != "m1" || !d.ClaimedUntil.IsZero() {
		t.Fatalf("sent: %+v", d)
	}
	if err := d.Claim(now, time.Minute); !errors.Is(err, domain.ErrNotPending) {
		t.Fatalf("claim after sent: %v", err)
	}
	if d.MarkSent("m2", now) || d.ProviderMessageID != "m1" {
		t.Fatalf("sent twice: %+v", d)
	}
	if !d.MarkDelivered("", now) || d.Status != domain.StatusDelivered {
		t.Fatalf("delivered: %+v", d)
	}
	if d.MarkFailed("x", now) || d.MarkSent("", now) || d.Status != domain.StatusDelivered {
		t.Fatalf("moved back from delivered: %+v", d)
	}

	q := domain.NewDelivery(uuid.New(), "u", "", domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "", now)
	if !q.Apply(domain.Report{ProviderMessageID: "m9", Outcome: domain.OutcomeDelivered}, now) || q.Status != domain.StatusDelivered || q.SentAt.IsZero() {
		t.Fatalf("a delivery report before the send was recorded: %+v", q)
	}
	f := domain.NewDelivery(uuid.New(), "u", "", domain.ChannelEmail, domain.TemplateSignUpCode, "a@b.co", "", now)
	if !f.MarkFailed(domain.ReasonMailboxRejected, now) || f.FailureReason != domain.ReasonMailboxRejected || f.MarkDelivered("", now) {
		t.Fatalf("failed: %+v", f)
	}
}

func TestSupportMessageValidation(t *testing.T) {
	t.Parallel()
	now := time.Now()
	valid := domain.SupportInput{Kind: domain.SupportQuestion, Email: "visitor@example.com", Message: "Hello",
		ClientAddress: "203.0.113.7", VisitorNeedsAnAddress: true}
	if m, err := domain.NewSupportMessage(valid, now); err != nil || m.Client.String() != "203.0.113.7/32" {
		t.Fatalf("valid: %+v %v", m, err)
	}
	v6 := valid
	v6.ClientAddress = "[2001:db8:1:2:3:4:5:6]:443"
	if m, err := domain.NewSupportMessage(v6, now); err != nil || m.Client.String() != "2001:db8:1:2::/64" {
		t.Fatalf("IPv6: %+v %v", m, err)
	}
	details := map[string]string{}
	for i := range 11 {
		details[string(rune('a'+i))] = "x"
	}
	for name, tc := range map[string]struct {
		mod   func(*domain.SupportInput)
		field string
	}{
		"no kind":         {func(in *domain.SupportInput) { in.Kind = "" }, "kind"},
		"visitor e-mail":  {func(in *domain.SupportInput) { in.Email = "" }, "email"},
		"bad e-mail":      {func(in *domain.SupportInput) { in.Email = "Thandi <t@example.com>" }, "email"},
		"no message":      {func(in *domain.SupportInput) { in.Message = "  " }, "message"},
		"long message":    {func(in *domain.SupportInput) { in.Message = strings.Repeat("a", 5001) }, "message"},
		"bidi message":    {func(in *domain.SupportInput) { in.Message = "a\u202eb" }, "message"},
		"long subject":    {func(in *domain.SupportInput) { in.Subject = strings.Repeat("a", 201) }, "subject"},
		"long name":       {func(in *domain.SupportInput) { in.Name = strings.Repeat("a", 101) }, "name"},
		"too many detail": {func(in *domain.SupportInput) { in.Details = details }, "details"},
		"bad address":     {func(in *domain.SupportInput) { in.ClientAddress = "somewhere" }, "client_address"},
		"no address":      {func(in *domain.SupportInput) { in.ClientAddress = "" }, "client_address"},
	} {
		in := valid
		tc.mod(&in)
		_, err := domain.NewSupportMessage(in, now)
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || verr.Violations[0].Field != tc.field {
			t.Errorf("%s: %v, want a violation of %s", name, err, tc.field)
		}
	}
	// A signed-in sender's e-mail comes from the account when the form leaves it out.
	user := domain.SupportInput{Kind: domain.SupportIssue, Message: "Help", UserID: "u1", UserEmail: "t@example.co.za", UserName: "Thandi Nkosi"}
	if m, err := domain.NewSupportMessage(user, now); err != nil || m.Email != "t@example.co.za" || m.Name != "Thandi Nkosi" {
		t.Fatalf("user: %+v %v", m, err)
	}
	// /feedback: details without a message.
	fb := domain.SupportInput{Kind: domain.SupportFeedback, UserID: "u1", Details: map[string]string{"rating": "5"}}
	if _, err := domain.NewSupportMessage(fb, now); err != nil {
		t.Fatalf("feedback: %v", err)
	}
}

func TestTicketsAndRateLimits(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^THM-[0-9A-HJKMNP-TV-Z]{6}$`)
	seen := map[string]bool{}
	for range 1000 {
		tk, err := domain.NewTicket()
		if err != nil || !re.MatchString(tk) {
			t.Fatalf("ticket %q: %v", tk, err)
		}
		seen[tk] = true
	}
	if len(seen) < 999 {
		t.Errorf("only %d distinct tickets in 1000", len(seen))
	}
	now := time.Now()
	l := domain.RateLimit{Window: 10 * time.Minute, Max: 2}
	times := []time.Time{now.Add(-15 * time.Minute), now.Add(-8 * time.Minute), now.Add(-time.Minute)}
	if got := l.RetryAfter(times, now); got != 2*time.Minute {
		t.Errorf("RetryAfter = %s, want 2m", got)
	}
	if got := l.RetryAfter(times[:2], now); got != 0 {
		t.Errorf("RetryAfter under the limit = %s", got)
	}
}

// TestSignUpAttemptEmail: the owner's e-mail says what happened and how to reset the password,
// and a name that slipped past an older rule (controls, ESC, a right-to-left override, markup)
// reaches neither part as it was typed.
func TestSignUpAttemptEmail(t *testing.T) {
	t.Parallel()
	params := map[string]string{"first_name": "\u202eThandi\x1b[31m\x00\a <b>x</b>", "at": "2026-03-18T10:05:00Z"}
	msg, err := domain.Render(domain.TemplateSignUpAttempt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Subject, "tried to sign up") || !strings.Contains(msg.Text, "Forgot password?") ||
		!strings.Contains(msg.Text, "18 Mar 2026, 12:05") || !strings.Contains(msg.HTML, "Forgot password?") {
		t.Fatalf("message = %+v", msg)
	}
	for _, part := range []string{msg.Subject, msg.Text, msg.HTML} {
		if strings.ContainsAny(part, "\u202e\x1b\x00\a") {
			t.Fatalf("a control or bidi character reached the e-mail: %q", part)
		}
	}
	if !strings.Contains(msg.Text, "Hi Thandi[31m <b>x</b>,") || strings.Contains(msg.HTML, "<b>x</b>") ||
		!strings.Contains(msg.HTML, "&lt;b&gt;x&lt;/b&gt;") {
		t.Fatalf("name not neutralised: text %q", msg.Text)
	}
}

// TestSignUpAttemptEmailToAnUnverifiedAccount: after a contested sign-up the account has no
// usable password, so the e-mail sends its owner to "Forgot password?" and never tells them to
// log in with their password or that nothing was changed; without the flag it does. The
// unverified account's e-mail greets no one by name ("Hi there,"); the verified one's greets
// its owner by their first name.
func TestSignUpAttemptEmailToAnUnverifiedAccount(t *testing.T) {
	t.Parallel()
	params := map[string]string{"first_name": "Thandi", "at": "2026-03-18T10:05:00Z", "unverified": "true"}
	msg, err := domain.Render(domain.TemplateSignUpAttempt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{msg.Text, msg.HTML} {
		if !strings.Contains(part, "neither of them works") || !strings.Contains(part, "Forgot password?") ||
			strings.Contains(part, "log in with your password") || strings.Contains(part, "nothing was changed") ||
			!strings.Contains(part, "Hi there,") || strings.Contains(part, "Thandi") {
			t.Fatalf("unverified account's e-mail = %q", part)
		}
	}
	delete(params, "unverified")
	msg, err = domain.Render(domain.TemplateSignUpAttempt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Text, "log in with your password") || strings.Contains(msg.Text, "neither of them works") {
		t.Fatalf("verified account's e-mail = %q", msg.Text)
	}
	for _, part := range []string{msg.Text, msg.HTML} {
		if !strings.Contains(part, "Hi Thandi,") {
			t.Fatalf("verified account's e-mail does not greet its owner: %q", part)
		}
	}
	params["unverified"] = "yes"
	if _, err := domain.Render(domain.TemplateSignUpAttempt, domain.ChannelEmail, params, nil); err == nil {
		t.Fatal("a flag other than \"true\" was accepted")
	}
}

// TestSignUpAttemptEmailToAnUnverifiedAccountLeavesOutTheName: an unverified account's first
// name was typed by whoever signed up first, who may be a stranger to the address's owner (a
// pre-hijacking attempt). Their text must not appear in an official Thumela e-mail to that
// address, in any part, even when identity sends it.
func TestSignUpAttemptEmailToAnUnverifiedAccountLeavesOutTheName(t *testing.T) {
	t.Parallel()
	const stranger = "Mallory Call-Support-Now"
	params := map[string]string{"first_name": stranger, "at": "2026-03-18T10:05:00Z", "unverified": "true"}
	msg, err := domain.Render(domain.TemplateSignUpAttempt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{msg.Subject, msg.Text, msg.HTML} {
		if strings.Contains(part, "Mallory") || strings.Contains(part, "Call-Support-Now") {
			t.Fatalf("the stranger's name reached the e-mail: %q", part)
		}
	}
	if !strings.HasPrefix(msg.Text, "Hi there,\n") || !strings.Contains(msg.HTML, "<p>Hi there,</p>") {
		t.Fatalf("greeting: text %q, html %q", msg.Text, msg.HTML)
	}
}

// TestCodeEmailsToAnUnverifiedAccountLeaveOutTheName: an unverified account's first name was
// typed by whoever signed up first, maybe a stranger pre-hijacking the address. The sign-up code
// (re-sent to the address's owner when they ask) and the reset code (how the owner takes the
// account back) reach that owner: with unverified "true" the stranger's text appears in no part,
// even when identity sends it, and the e-mail says "Hi there,". Without the flag (a verified
// account) the e-mail greets its owner by first name; an empty first_name is "Hi there," too.
func TestCodeEmailsToAnUnverifiedAccountLeaveOutTheName(t *testing.T) {
	t.Parallel()
	const stranger = "Mallory Call-Support-Now"
	for _, tmpl := range []domain.Template{domain.TemplateSignUpCode, domain.TemplatePasswordResetCode} {
		t.Run(string(tmpl), func(t *testing.T) {
			t.Parallel()
			params, secrets := fullParams(tmpl)
			params["first_name"], params["unverified"] = stranger, "true"
			msg, err := domain.Render(tmpl, domain.ChannelEmail, params, secrets)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []string{msg.Subject, msg.Text, msg.HTML} {
				if strings.Contains(part, "Mallory") || strings.Contains(part, "Call-Support-Now") {
					t.Fatalf("the stranger's name reached the e-mail: %q", part)
				}
			}
			if !strings.HasPrefix(msg.Text, "Hi there,\n") || !strings.Contains(msg.HTML, "<p>Hi there,</p>") ||
				!strings.Contains(msg.Text, "482913") || !strings.Contains(msg.HTML, "482913") {
				t.Fatalf("unverified account's e-mail: text %q, html %q", msg.Text, msg.HTML)
			}

			// What identity sends an unverified account: first_name empty as well.
			params["first_name"] = ""
			if msg, err = domain.Render(tmpl, domain.ChannelEmail, params, secrets); err != nil ||
				!strings.HasPrefix(msg.Text, "Hi there,\n") || !strings.Contains(msg.HTML, "<p>Hi there,</p>") {
				t.Fatalf("unverified, no name: %+v, %v", msg, err)
			}

			// A verified account: no flag, its own first name.
			delete(params, "unverified")
			params["first_name"] = "Thandi"
			msg, err = domain.Render(tmpl, domain.ChannelEmail, params, secrets)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(msg.Text, "Hi Thandi,\n") || !strings.Contains(msg.HTML, "<p>Hi Thandi,</p>") {
				t.Fatalf("verified account's e-mail does not greet its owner: text %q, html %q", msg.Text, msg.HTML)
			}
			// An empty first_name without the flag still greets, neutrally.
			params["first_name"] = ""
			if msg, err = domain.Render(tmpl, domain.ChannelEmail, params, secrets); err != nil ||
				!strings.HasPrefix(msg.Text, "Hi there,\n") || !strings.Contains(msg.HTML, "<p>Hi there,</p>") {
				t.Fatalf("no name: %+v, %v", msg, err)
			}

			params["unverified"] = "yes"
			if _, err := domain.Render(tmpl, domain.ChannelEmail, params, secrets); err == nil {
				t.Fatal("a flag other than \"true\" was accepted")
			}
		})
	}
}

// TestPasswordChangedEmail: the owner learns that the password changed, when, and how (in the
// account keeps this device signed in; a reset signs every device out), and what to do if it
// was not them.
func TestPasswordChangedEmail(t *testing.T) {
	t.Parallel()
	for how, want := range map[string]string{
		"changed": "every other device signed in to your account was logged out",
		"reset":   "reset with a code sent to this address, and every device",
	} {
		msg, err := domain.Render(domain.TemplatePasswordChanged, domain.ChannelEmail,
			map[string]string{"first_name": "Thandi", "at": "2026-03-18T10:05:00Z", "how": how}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{msg.Text, msg.HTML} {
			if !strings.Contains(strings.Join(strings.Fields(part), " "), want) || !strings.Contains(part, "18 Mar 2026, 12:05") ||
				!strings.Contains(part, "Forgot password?") {
				t.Fatalf("%s: %q", how, part)
			}
		}
		if msg.Subject != "Your Thumela password was changed" {
			t.Fatalf("subject %q", msg.Subject)
		}
	}
	if _, err := domain.Render(domain.TemplatePasswordChanged, domain.ChannelEmail,
		map[string]string{"first_name": "Thandi", "at": "2026-03-18T10:05:00Z", "how": "guessed"}, nil); err == nil {
		t.Fatal("an unknown how rendered")
	}
}

// TestScheduledSendFailedEmail: the sender learns which send did not go, for which day (as the
// scheduler counted it, never moved by a time zone), why, and that nothing was charged; the
// reason, written by transfers in the sender's words, is escaped in the HTML like any value.
func TestScheduledSendFailedEmail(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateScheduledSendFailed)
	msg, err := domain.Render(domain.TemplateScheduledSendFailed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject != "Your scheduled send to Sipho Dlamini did not go through" {
		t.Errorf("subject %q", msg.Subject)
	}
	for _, part := range []string{msg.Text, msg.HTML} {
		for _, want := range []string{"Hi Thandi,", "R500,00", "Sipho Dlamini", "Fri 27 Mar 2026",
			"This send would pass your daily limit of R5\u00a0000,00.", "You were not charged for this send"} {
			if !strings.Contains(part, want) {
				t.Errorf("lacks %q: %s", want, part)
			}
		}
	}
	if !strings.Contains(msg.Text, "Why: This send would pass") {
		t.Errorf("text part: %s", msg.Text)
	}

	// A date is a day, not an instant: anything else is refused rather than guessed.
	for _, bad := range []string{"2026-03-27T00:00:00Z", "27/03/2026", "2026-02-30", ""} {
		p := map[string]string{}
		for k, v := range params {
			p[k] = v
		}
		p["date"] = bad
		_, err := domain.Render(domain.TemplateScheduledSendFailed, domain.ChannelEmail, p, nil)
		var inv *domain.InvalidRequestError
		if !errors.As(err, &inv) || !strings.Contains(inv.Reason, "date") {
			t.Errorf("date %q: %v, want an invalid request naming it", bad, err)
		}
	}

	// Markup and controls in the reason or the name reach neither part as written.
	params["reason"] = "\u202e<script>alert(1)</script> declined"
	params["recipient_name"] = "<b>Sipho</b>"
	msg, err = domain.Render(domain.TemplateScheduledSendFailed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msg.HTML, "<script>") || strings.Contains(msg.HTML, "<b>Sipho") || strings.ContainsRune(msg.Text+msg.HTML+msg.Subject, '\u202e') {
		t.Errorf("reason or name not neutralised: %s", msg.HTML)
	}
	if !strings.Contains(msg.HTML, "&lt;script&gt;") {
		t.Errorf("reason not escaped: %s", msg.HTML)
	}

	// Without a reason (none was given), there is no empty "Why:" line.
	params["reason"] = ""
	msg, err = domain.Render(domain.TemplateScheduledSendFailed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msg.Text, "Why:") || strings.Contains(msg.HTML, ">Why<") {
		t.Errorf("an empty reason left its label: %s", msg.Text)
	}
}

// A refund of a transfer that spent credit says how much went back to the card and how much
// back to the sender's credit; one that spent none does not mention credit.
func TestVoucherRefundedNamesTheCreditReturned(t *testing.T) {
	params := map[string]string{"first_name": "Thandi", "recipient_name": "Sipho", "total_cents": "45000",
		"reason": "cancelled", "reference": "ab12cd34"}
	plain, err := domain.Render(domain.TemplateVoucherRefunded, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Text, "credit") || strings.Contains(plain.HTML, "credit") {
		t.Fatalf("a refund without credit mentions it:\n%s", plain.Text)
	}
	params["credit_returned_cents"] = "5000"
	m, err := domain.Render(domain.TemplateVoucherRefunded, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{m.Text, m.HTML} {
		if !strings.Contains(part, "R450,00") || !strings.Contains(part, "R50,00") || !strings.Contains(part, "Thumela credit") {
			t.Fatalf("the refund does not name both amounts:\n%s", part)
		}
	}
}

// A receipt of a transfer whose fee credit paid names the credit and what the card was charged,
// never "Total charged" for money the card did not pay (the probe of 30 Nov 2026); one without
// credit says "Total charged".
func TestTransferReceiptNamesTheCreditApplied(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateTransferReceipt)
	params["amount_cents"], params["fee_cents"], params["total_cents"] = "8000", "1024", "9024"
	delete(params, "credit_applied_cents")
	delete(params, "card_charge_cents")
	plain, err := domain.Render(domain.TemplateTransferReceipt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{plain.Text, plain.HTML} {
		if !strings.Contains(part, "Total charged") || strings.Contains(part, "credit") {
			t.Fatalf("a receipt without credit:\n%s", part)
		}
	}
	params["credit_applied_cents"], params["card_charge_cents"] = "1024", "8000"
	m, err := domain.Render(domain.TemplateTransferReceipt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{m.Text, m.HTML} {
		if strings.Contains(part, "Total charged") || !strings.Contains(part, "Paid with Thumela credit") ||
			!strings.Contains(part, "R10,24") || !strings.Contains(part, "Charged to your card") || !strings.Contains(part, "R80,00") {
			t.Fatalf("a receipt with credit does not split the total:\n%s", part)
		}
	}
}

// The voucher SMS's failure e-mail gives the provider's reason when there is one (optional).
func TestVoucherSMSFailedGivesTheReason(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateVoucherSMSFailed)
	without, err := domain.Render(domain.TemplateVoucherSMSFailed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	params["reason"] = "The number is not reachable."
	with, err := domain.Render(domain.TemplateVoucherSMSFailed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	const said = "could not be delivered to +27 82 123 4567. The number is not reachable. Without it"
	if !strings.Contains(with.Text, said) || !strings.Contains(with.HTML, "The number is not reachable.") {
		t.Errorf("with a reason:\n%s", with.Text)
	}
	if !strings.Contains(without.Text, "could not be delivered to +27 82 123 4567. Without it") {
		t.Errorf("without a reason:\n%s", without.Text)
	}
	if with.Subject != "We could not deliver Sipho Dlamini's voucher SMS" {
		t.Errorf("subject %q", with.Subject)
	}
}

// A sender's name in a script the GSM alphabet lacks is left out of the SMS (the template says
// "Someone" and "The sender"), never cut down to its punctuation (the probe of 30 Nov 2026:
// "Thumela: . sent you R20.00"); a Latin name with accents keeps its letters.
func TestSMSLeavesOutANameItCannotCarry(t *testing.T) {
	t.Parallel()
	params, secrets := fullParams(domain.TemplateVoucherIssued)
	delete(secrets, "pin") // the sender chose the PIN: the SMS names who gives it
	for name, want := range map[string]string{
		"李小龍 王.":      "Thumela: Someone sent you",
		"محمد علي":    "Thumela: Someone sent you",
		"Zoë Ntšekhe": "Thumela: Zoe Ntsekhe sent you",
		"Thandi N.":   "Thumela: Thandi N. sent you",
	} {
		params["sender_name"] = name
		msg, err := domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(msg.Text, want) {
			t.Errorf("%q: SMS %q, want it to start %q", name, msg.Text, want)
		}
		if strings.Contains(msg.Text, ": . ") || strings.Contains(msg.Text, "\n. will") {
			t.Errorf("%q: SMS kept only punctuation: %q", name, msg.Text)
		}
	}
}

// The correction of a "collected" e-mail says the voucher still stands until when, or, when its
// time was up by the reversal (no expires_at), that the money goes back to the sender.
func TestCashNotDispensedSaysWhatHappensNext(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateCashNotDispensed)
	params["expires_at"] = "2026-03-25T10:05:00Z"
	standing, err := domain.Render(domain.TemplateCashNotDispensed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	delete(params, "expires_at")
	expired, err := domain.Render(domain.TemplateCashNotDispensed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{standing.Text, standing.HTML} {
		if !strings.Contains(part, "still stands until") || !strings.Contains(part, "R500,00") || strings.Contains(part, "refund") {
			t.Errorf("a voucher that still stands:\n%s", part)
		}
	}
	for _, part := range []string{expired.Text, expired.HTML} {
		if strings.Contains(part, "still stands") || !strings.Contains(part, "refund") {
			t.Errorf("a voucher whose time was up:\n%s", part)
		}
	}
	if !strings.HasPrefix(standing.Subject, "Correction: Sipho Dlamini did not get") {
		t.Errorf("subject %q", standing.Subject)
	}
}

// randForm is an amount as the SMS writes it (R1,500.00), which no e-mail may carry.
var randForm = regexp.MustCompile(`R[0-9][0-9,]*\.[0-9]{2}`)

// TestRandEnZAIsTheWebsFormat: e-mails write money as the web (web/src/lib/money.ts's
// formatMoney, Intl.NumberFormat('en-ZA') with the prefix R): thousands grouped by U+00A0
// NO-BREAK SPACE, a decimal comma, "-R" before a negative amount. The SMS's Rand stays ASCII.
func TestRandEnZAIsTheWebsFormat(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{
		0: "R0,00", 5: "R0,05", 99999: "R999,99", 100000: "R1\u00a0000,00", 150000: "R1\u00a0500,00",
		123456789: "R1\u00a0234\u00a0567,89", 10000000000001: "R100\u00a0000\u00a0000\u00a0000,01",
		-150: "-R1,50", -150000: "-R1\u00a0500,00",
	} {
		if got := domain.RandEnZA(cents); got != want {
			t.Errorf("RandEnZA(%d) = %q, want %q", cents, got, want)
		}
	}
	if got := domain.Rand(150000); got != "R1,500.00" {
		t.Errorf("Rand(150000) = %q: the SMS's format changed", got)
	}
}

// TestEmailsWriteMoneyAsTheWeb: every e-mail's subject, text and HTML write amounts as the web
// does ("R1 500,00", the space a no-break one, kept in the subject too), the amounts in a
// scheduled send's reason (a sentence transfers writes as the web does) included; the SMS keeps
// "R1,500.00" (GSM 7-bit).
func TestEmailsWriteMoneyAsTheWeb(t *testing.T) {
	t.Parallel()
	for _, tmpl := range domain.Templates() {
		if tmpl.Channel() != domain.ChannelEmail {
			continue
		}
		params, secrets := fullParams(tmpl)
		msg, err := domain.Render(tmpl, domain.ChannelEmail, params, secrets)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{msg.Subject, msg.Text, msg.HTML} {
			if m := randForm.FindString(part); m != "" {
				t.Errorf("%s writes %q as the SMS does:\n%s", tmpl, m, part)
			}
		}
	}

	params, _ := fullParams(domain.TemplateTransferReceipt)
	params["amount_cents"], params["fee_cents"], params["total_cents"] = "150000", "1545", "151545"
	msg, err := domain.Render(domain.TemplateTransferReceipt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject != "Your Thumela receipt: R1\u00a0500,00 to Sipho Dlamini" {
		t.Errorf("subject %q", msg.Subject)
	}
	for _, part := range []string{msg.Text, msg.HTML} {
		for _, want := range []string{"R1\u00a0500,00", "R15,45", "R1\u00a0515,45"} {
			if !strings.Contains(part, want) {
				t.Errorf("receipt lacks %q:\n%s", want, part)
			}
		}
	}

	params, _ = fullParams(domain.TemplateScheduledSendFailed)
	msg, err = domain.Render(domain.TemplateScheduledSendFailed, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{msg.Text, msg.HTML} {
		if !strings.Contains(part, "daily limit of R5\u00a0000,00.") || !strings.Contains(part, "R500,00") {
			t.Errorf("scheduled send's e-mail:\n%s", part)
		}
	}

	params, secrets := fullParams(domain.TemplateVoucherIssued)
	params["amount_cents"] = "150000"
	sms, err := domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
	if err != nil || !strings.Contains(sms.Text, "sent you R1,500.00.") {
		t.Errorf("SMS %q, %v: want R1,500.00", sms.Text, err)
	}
}

// TestVoucherLockedEmailSaysATMsNotOneBank: wrong PINs or phone numbers count toward the lock at
// any bank's ATM (transfers checks them before the bank), so the e-mail says "at ATMs", naming no
// bank, in both parts.
func TestVoucherLockedEmailSaysATMsNotOneBank(t *testing.T) {
	t.Parallel()
	params, _ := fullParams(domain.TemplateVoucherLocked)
	params["bank"], params["amount_cents"] = "standard_bank", "20000"
	msg, err := domain.Render(domain.TemplateVoucherLocked, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Text, "A wrong PIN or phone number was typed 5 times at ATMs for the R200,00 voucher you sent to Sipho Dlamini") ||
		!strings.Contains(msg.HTML, "A wrong PIN or phone number was typed 5 times at ATMs for the <strong>R200,00</strong> voucher") {
		t.Errorf("locked e-mail:\n%s\n%s", msg.Text, msg.HTML)
	}
	for _, part := range []string{msg.Subject, msg.Text, msg.HTML} {
		for _, bank := range []string{"Standard Bank", "ABSA", "FNB", "Nedbank", "Capitec"} {
			if strings.Contains(part, bank) {
				t.Errorf("the locked e-mail names %s:\n%s", bank, part)
			}
		}
	}
}

// TestEmailsCarryTheWholeName: an e-mail shows a name as long as its form accepts whole (50
// characters for the name rule's names, 100 for a support message's writer), only a longer one
// is cut, with an ellipsis; the voucher SMS still cuts the sender's name at 40 characters.
// Hidden characters are removed as before.
func TestEmailsCarryTheWholeName(t *testing.T) {
	t.Parallel()
	const long = "Nomvula Precious Thandeka Mahlangu-Dlamini" // 42 characters
	fifty := strings.Repeat("Nomvula ", 6) + "Ma"             // 50
	for _, tmpl := range []domain.Template{domain.TemplateTransferReceipt, domain.TemplateCashCollected} {
		for _, name := range []string{long, fifty} {
			params, _ := fullParams(tmpl)
			params["recipient_name"] = "\u202e" + name + "\u200b"
			msg, err := domain.Render(tmpl, domain.ChannelEmail, params, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []string{msg.Subject, msg.Text, msg.HTML} {
				if !strings.Contains(part, name) || strings.ContainsAny(part, "\u202e\u200b…") {
					t.Errorf("%s: %q not whole:\n%s", tmpl, name, part)
				}
			}
		}
	}
	params, _ := fullParams(domain.TemplateTransferReceipt)
	params["first_name"] = fifty
	params["recipient_name"] = fifty + "xyz"
	msg, err := domain.Render(domain.TemplateTransferReceipt, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Text, "Hi "+fifty+",") || !strings.Contains(msg.Subject, " to "+fifty[:49]+"…") {
		t.Errorf("first name or a name over the rule's limit:\n%s\n%s", msg.Subject, msg.Text)
	}

	writer := strings.Repeat("Precious ", 11) + "Mahlang" // 106 characters
	params, _ = fullParams(domain.TemplateSupportMessage)
	params["name"] = writer[:100]
	msg, err = domain.Render(domain.TemplateSupportMessage, domain.ChannelEmail, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Text, "From: "+writer[:100]+" <") || !strings.Contains(msg.HTML, writer[:100]) {
		t.Errorf("support e-mail cuts the writer's name:\n%s", msg.Text)
	}

	params, secrets := fullParams(domain.TemplateVoucherIssued)
	params["sender_name"] = long
	sms, err := domain.Render(domain.TemplateVoucherIssued, domain.ChannelSMS, params, secrets)
	if err != nil || !strings.HasPrefix(sms.Text, "Thumela: "+long[:domain.MaxDisplayName]+" sent you") {
		t.Errorf("SMS %q, %v: want the sender's name cut at %d", sms.Text, err, domain.MaxDisplayName)
	}
}

// TestRateLimitedMessageSaysWhoseBudget: a refused support message says whether the visitor's
// connection or the signed-in sender's account spent its budget, and when to try again in whole
// minutes rounded up, as the web counts them.
func TestRateLimitedMessageSaysWhoseBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  domain.RateLimitedError
		want string
	}{
		{domain.RateLimitedError{RetryAfter: 7*time.Minute - 5*time.Second}, "Too many messages from your connection. Please try again in 7 minutes."},
		{domain.RateLimitedError{RetryAfter: 7*time.Minute - 5*time.Second, Account: true}, "Too many messages from your account. Please try again in 7 minutes."},
		{domain.RateLimitedError{RetryAfter: time.Second, Account: true}, "Too many messages from your account. Please try again in 1 minute."},
		{domain.RateLimitedError{RetryAfter: 61 * time.Second}, "Too many messages from your connection. Please try again in 2 minutes."},
		{domain.RateLimitedError{Account: true}, "Too many messages from your account. Please try again later."},
	} {
		if got := tc.err.Message(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.err, got, tc.want)
		}
	}
}

// Each template is one service's to ask for: identity's codes and account notices, transfers'
// voucher and transfer messages, notifications' own support mail; no other service may ask.
func TestEachTemplateIsOnePublishersToAskFor(t *testing.T) {
	t.Parallel()
	owners := map[domain.Template]string{
		domain.TemplateSignUpCode: domain.PublisherIdentity, domain.TemplatePasswordResetCode: domain.PublisherIdentity,
		domain.TemplateVoucherIssued: domain.PublisherTransfers, domain.TemplateTransferReceipt: domain.PublisherTransfers,
		domain.TemplateSupportMessage: domain.PublisherNotifications,
	}
	for _, tmpl := range domain.Templates() {
		n := 0
		for _, p := range []string{domain.PublisherIdentity, domain.PublisherTransfers, domain.PublisherNotifications, "bff", ""} {
			if tmpl.RequestableBy(p) {
				n++
				if want, ok := owners[tmpl]; ok && p != want {
					t.Errorf("%s is %s's, want %s's", tmpl, p, want)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s may be asked for by %d publishers, want 1", tmpl, n)
		}
	}
	if domain.TemplateUnknown.RequestableBy(domain.PublisherTransfers) {
		t.Error("an unknown template is requestable")
	}
}
