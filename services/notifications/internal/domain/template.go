package domain

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"

	"github.com/thumela/thumela/services/platform/personname"
)

// Template is what a message says: the lower snake name of the contract's enum
// (sign_up_code, voucher_issued, …), also sent as the X-Thumela-Template e-mail header.
type Template string

// Templates.
const (
	TemplateSignUpCode        Template = "sign_up_code"
	TemplatePasswordResetCode Template = "password_reset_code"
	TemplateNewSignIn         Template = "new_sign_in"
	TemplateSignUpAttempt     Template = "sign_up_attempt"
	TemplatePasskeyAdded      Template = "passkey_added"
	TemplateVoucherIssued     Template = "voucher_issued"
	TemplateVoucherReminder   Template = "voucher_reminder"
	TemplateTransferReceipt   Template = "transfer_receipt"
	TemplateCashCollected     Template = "cash_collected"
	TemplateVoucherRefunded   Template = "voucher_refunded"
	TemplateSupportMessage    Template = "support_message"
	// TemplateScheduledSendFailed tells the sender that one occurrence of a recurring send was
	// not made (a limit, a card no longer saved) or its card declined.
	TemplateScheduledSendFailed Template = "scheduled_send_failed"
	// TemplateVoucherLocked tells the sender that wrong PINs or phone numbers at ATMs locked
	// their recipient's voucher, until when, and that a resend lets the recipient collect now.
	TemplateVoucherLocked Template = "voucher_locked"
	// TemplateVoucherSMSFailed tells the sender that their recipient's voucher SMS could not be
	// delivered, and that they may change the number or resend it.
	TemplateVoucherSMSFailed Template = "voucher_sms_failed"
	// TemplatePasswordChanged tells the owner that the account's password was changed (in the
	// account, or reset with an e-mailed code) and its other sessions signed out: if it was not
	// them, the account is taken over, and the e-mail is how they learn it.
	TemplatePasswordChanged Template = "password_changed"
	// TemplateCashNotDispensed corrects a TemplateCashCollected e-mail: the ATM reported that it
	// could not pay the cash out (a reversal), so nothing was collected, and says whether the
	// voucher still stands (expires_at) or its time was up (no expires_at: the refund follows).
	TemplateCashNotDispensed Template = "cash_not_dispensed"
	// TemplateVoucherCancelled tells the recipient by SMS that the sender cancelled the voucher:
	// without it they learnt at the ATM.
	TemplateVoucherCancelled Template = "voucher_cancelled"
	// TemplateUnknown is recorded for a request whose template the service does not know.
	TemplateUnknown Template = "unknown"
)

// Templates lists every template the service renders.
func Templates() []Template { return slices.Sorted(maps.Keys(specs)) }

// Known reports whether the service has t.
func (t Template) Known() bool { _, ok := specs[t]; return ok }

// The services that ask for messages: each one's NATS identity, which is also the publisher
// token of its requests' subjects (bus.NotificationSubject).
const (
	PublisherIdentity      = "identity"
	PublisherTransfers     = "transfers"
	PublisherNotifications = "notifications"
)

// RequestableBy reports whether publisher may ask for t. Each template is one service's
// message: a sign-up code is identity's, a voucher SMS transfers'. Without this, any service
// allowed to ask for an e-mail could have Thumela send a voucher SMS with made-up words to any
// phone, and a stolen key of the least trusted publisher would be everyone's.
func (t Template) RequestableBy(publisher string) bool {
	sp, ok := specs[t]
	return ok && sp.from == publisher
}

// Channel is the channel t is written for.
func (t Template) Channel() Channel { return specs[t].channel }

// Param names shared by several templates.
const (
	ParamFirstName      = "first_name"
	ParamTTLMinutes     = "ttl_minutes"
	ParamDevice         = "device"
	ParamAddress        = "address"
	ParamAt             = "at"
	ParamSenderName     = "sender_name"
	ParamAmountCents    = "amount_cents"
	ParamBank           = "bank"
	ParamExpiresAt      = "expires_at"
	ParamReference      = "reference"
	ParamRecipientName  = "recipient_name"
	ParamRecipientPhone = "recipient_phone"
	ParamFeeCents       = "fee_cents"
	ParamTotalCents     = "total_cents"
	// ParamCreditReturnedCents (VOUCHER_REFUNDED, optional): the Thumela credit the transfer
	// spent, put back to the sender's credit rather than the card.
	ParamCreditReturnedCents = "credit_returned_cents"
	// ParamCreditAppliedCents and ParamCardChargeCents (TRANSFER_RECEIPT, optional, together):
	// the Thumela credit that paid the transfer's fee and what the card was charged, so a
	// receipt never says the card paid what credit did.
	ParamCreditAppliedCents = "credit_applied_cents"
	ParamCardChargeCents    = "card_charge_cents"
	ParamCreatedAt          = "created_at"
	// ParamReplacesEarlier (VOUCHER_ISSUED, optional, "true"): the voucher re-issued to the same
	// phone (the sender's "Resend SMS"). The recipient has the earlier SMS too, whose number no
	// longer works: the new one says so, or it reads as a second payment, and the old number
	// typed at an ATM counts toward the lock.
	ParamReplacesEarlier = "replaces_earlier"
	ParamLocation        = "location"
	ParamReason          = "reason"
	ParamTicket          = "ticket"
	// ParamAccount (SUPPORT_MESSAGE, optional): the signed-in sender's account, as the service
	// knows it; absent for a visitor, whose address was typed and is not verified.
	ParamAccount = "account"
	ParamKind    = "kind"
	ParamName    = "name"
	ParamEmail   = "email"
	ParamSubject = "subject"
	ParamMessage = "message"
	ParamDate    = "date"
	ParamUntil   = "until"
	// ParamHow (PASSWORD_CHANGED): "changed" in the account or "reset" with an e-mailed code.
	ParamHow = "how"
	// ParamUnverified (SIGN_UP_ATTEMPT, SIGN_UP_CODE, PASSWORD_RESET_CODE, optional, "true"): the
	// account was still waiting for its address to be confirmed, so its first name is whatever
	// the first sign-up typed, maybe a stranger's: the e-mail greets no one by name ("Hi there,"),
	// whatever first_name says. In SIGN_UP_ATTEMPT it also means that the contested sign-up left
	// the account with no usable password: the owner gets in with "Forgot password?", not with a
	// password.
	ParamUnverified = "unverified"
	// ParamDetailPrefix prefixes a support message's details (/feedback's answers):
	// "details.rating" → rating.
	ParamDetailPrefix = "details."

	SecretCode          = "code"
	SecretVoucherNumber = "voucher_number"
	SecretPIN           = "pin"
)

// kind is how a value is checked and shown.
type kind int

const (
	kindName           kind = iota // a person's name (the name rule's): sanitised, ≤ MaxEmailName in an e-mail, MaxDisplayName in an SMS
	kindSupportName                // a support message's writer's name: sanitised, ≤ MaxSupportName
	kindText                       // a short text: sanitised, at most 200 characters
	kindServiceText                // kindText a service wrote for the sender: its amounts' no-break spaces kept
	kindLongText                   // a support message's body: sanitised keeping lines, ≤ MaxSupportMessage
	kindCents                      // integer cents ≥ 0, shown as R1,234.00 in an SMS and R1 234,00 in an e-mail
	kindTime                       // RFC 3339, shown in Johannesburg time
	kindMinutes                    // a positive number of minutes
	kindBank                       // a bank's key (standard_bank) or name, shown by its name
	kindPhone                      // E.164, shown spaced
	kindReference                  // a reference such as a transfer's
	kindRefund                     // "cancelled" | "expired"
	kindPasswordChange             // "changed" | "reset"
	kindKind                       // a support message's kind
	kindCode                       // a one-time code: six digits
	kindVoucher                    // a voucher number: digits, spaces or dashes
	kindPIN                        // a PIN: four to eight digits
	kindDate                       // a calendar date, YYYY-MM-DD (already Johannesburg's), shown "Fri 27 Mar 2026"
	kindFlag                       // "true" (shown as "true", for an {{if}}); anything else is refused
)

// MaxDisplayName caps a name shown in an SMS (the sender's name in the recipient's voucher
// SMS), which must stay short.
const MaxDisplayName = 40

// MaxEmailName caps a person's name shown in an e-mail: the longest the name rule accepts (the
// account's first name, a transfer's recipient), so an e-mail carries every name whole. A longer
// one, which only a caller outside the rule could send, is cut with an ellipsis.
const MaxEmailName = personname.MaxLen

type field struct {
	name     string
	kind     kind
	optional bool
}

type spec struct {
	// from is the only service that may ask for the template (RequestableBy).
	from    string
	channel Channel
	params  []field
	secrets []field
}

var specs = map[Template]spec{
	TemplateSignUpCode: {from: PublisherIdentity, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamTTLMinutes, kindMinutes, false},
			{ParamUnverified, kindFlag, true}},
		secrets: []field{{SecretCode, kindCode, false}}},
	TemplatePasswordResetCode: {from: PublisherIdentity, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamTTLMinutes, kindMinutes, false},
			{ParamUnverified, kindFlag, true}},
		secrets: []field{{SecretCode, kindCode, false}}},
	TemplateNewSignIn: {from: PublisherIdentity, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamDevice, kindText, false},
			{ParamAddress, kindText, false}, {ParamAt, kindTime, false}}},
	TemplateSignUpAttempt: {from: PublisherIdentity, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamAt, kindTime, false}, {ParamUnverified, kindFlag, true}}},
	TemplatePasskeyAdded: {from: PublisherIdentity, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamName, kindText, false}, {ParamAt, kindTime, false}}},
	TemplatePasswordChanged: {from: PublisherIdentity, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamAt, kindTime, false}, {ParamHow, kindPasswordChange, false}}},
	TemplateVoucherIssued: {from: PublisherTransfers, channel: ChannelSMS,
		params: []field{{ParamSenderName, kindName, false}, {ParamAmountCents, kindCents, false},
			{ParamBank, kindBank, false}, {ParamExpiresAt, kindTime, false}, {ParamReference, kindReference, false},
			{ParamReplacesEarlier, kindFlag, true}},
		secrets: []field{{SecretVoucherNumber, kindVoucher, false}, {SecretPIN, kindPIN, true}}},
	TemplateVoucherCancelled: {from: PublisherTransfers, channel: ChannelSMS,
		params: []field{{ParamSenderName, kindName, false}, {ParamAmountCents, kindCents, false},
			{ParamReference, kindReference, false}}},
	TemplateVoucherReminder: {from: PublisherTransfers, channel: ChannelSMS,
		params: []field{{ParamSenderName, kindName, false}, {ParamAmountCents, kindCents, false},
			{ParamBank, kindBank, false}, {ParamExpiresAt, kindTime, false}, {ParamReference, kindReference, false}}},
	TemplateTransferReceipt: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamRecipientPhone, kindPhone, false}, {ParamBank, kindBank, false},
			{ParamAmountCents, kindCents, false}, {ParamFeeCents, kindCents, false}, {ParamTotalCents, kindCents, false},
			{ParamReference, kindReference, false}, {ParamCreatedAt, kindTime, false}, {ParamExpiresAt, kindTime, false},
			{ParamCreditAppliedCents, kindCents, true}, {ParamCardChargeCents, kindCents, true}}},
	TemplateCashCollected: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamAmountCents, kindCents, false}, {ParamBank, kindBank, false}, {ParamLocation, kindText, false},
			{ParamAt, kindTime, false}, {ParamReference, kindReference, false}}},
	TemplateCashNotDispensed: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamAmountCents, kindCents, false}, {ParamBank, kindBank, false}, {ParamAt, kindTime, false},
			{ParamReference, kindReference, false}, {ParamExpiresAt, kindTime, true}}},
	TemplateVoucherRefunded: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamTotalCents, kindCents, false}, {ParamReason, kindRefund, false}, {ParamReference, kindReference, false},
			{ParamCreditReturnedCents, kindCents, true}}},
	TemplateScheduledSendFailed: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamAmountCents, kindCents, false}, {ParamDate, kindDate, false}, {ParamReason, kindServiceText, false}}},
	// The bank is the transfer's, and not shown: wrong attempts at any bank's ATM count toward
	// the lock, so the e-mail says "at ATMs".
	TemplateVoucherLocked: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamAmountCents, kindCents, false}, {ParamBank, kindBank, false}, {ParamUntil, kindTime, false},
			{ParamReference, kindReference, false}}},
	TemplateVoucherSMSFailed: {from: PublisherTransfers, channel: ChannelEmail,
		params: []field{{ParamFirstName, kindName, false}, {ParamRecipientName, kindName, false},
			{ParamRecipientPhone, kindPhone, false}, {ParamAmountCents, kindCents, false}, {ParamBank, kindBank, false},
			{ParamReference, kindReference, false}, {ParamReason, kindText, true}}},
	TemplateSupportMessage: {from: PublisherNotifications, channel: ChannelEmail,
		params: []field{{ParamTicket, kindReference, false}, {ParamKind, kindKind, false},
			{ParamName, kindSupportName, true}, {ParamEmail, kindText, true}, {ParamSubject, kindText, true},
			{ParamMessage, kindLongText, true}, {ParamAccount, kindText, true}}},
}

// Message is a rendered message: what goes to the provider and nowhere else (never to the
// database, a log, a trace or a stream).
type Message struct {
	Subject string // e-mail only
	Text    string // the e-mail's text part, or the SMS
	HTML    string // e-mail only
}

// Detail is one of a support message's details, for the template.
type Detail struct{ Key, Value string }

//go:embed templates
var templateFiles embed.FS

// compiled holds each template's parsed parts.
type compiled struct {
	text *template.Template     // e-mail: "subject" and "text"; SMS: "sms"
	html *htmltemplate.Template // e-mail: "layout" with the template's "content"
}

var templates = mustCompile()

func mustCompile() map[Template]compiled {
	out := make(map[Template]compiled, len(specs))
	for t, s := range specs {
		var c compiled
		switch s.channel {
		case ChannelEmail:
			c.text = template.Must(template.New(string(t)).Option("missingkey=error").
				ParseFS(templateFiles, "templates/email/footer.txt", "templates/email/"+string(t)+".txt"))
			c.html = htmltemplate.Must(htmltemplate.New(string(t)).Option("missingkey=error").
				ParseFS(templateFiles, "templates/email/layout.html", "templates/email/"+string(t)+".html"))
		case ChannelSMS:
			c.text = template.Must(template.New(string(t)).Option("missingkey=error").
				ParseFS(templateFiles, "templates/sms/"+string(t)+".txt"))
		}
		out[t] = c
	}
	return out
}

// MaxSMSParts is the most parts an SMS may take.
const MaxSMSParts = 3

// Render renders template t for channel ch from the request's params and its opened secrets.
// It returns an *InvalidRequestError when the template is unknown, written for another
// channel, or a required value is missing or malformed; its Reason names the field, never a
// value.
func Render(t Template, ch Channel, params, secrets map[string]string) (Message, error) {
	s, ok := specs[t]
	if !ok {
		return Message{}, invalid("unknown template %q", t)
	}
	if ch != s.channel {
		return Message{}, invalid("template %s is not sent by %s", t, ch)
	}
	view := map[string]any{}
	if err := fill(view, s.params, params, "param", ch); err != nil {
		return Message{}, err
	}
	if err := fill(view, s.secrets, secrets, "secret", ch); err != nil {
		return Message{}, err
	}
	if t == TemplateSupportMessage {
		view["details"] = details(params)
	}
	c := templates[t]
	if ch == ChannelSMS {
		text, err := execText(c.text, "sms", view)
		if err != nil {
			return Message{}, err
		}
		text = ToGSM(strings.Join(strings.Fields(text), " "))
		if n := SMSParts(text); n > MaxSMSParts {
			return Message{}, invalid("template %s renders %d SMS parts, more than %d", t, n, MaxSMSParts)
		}
		return Message{Text: text}, nil
	}
	subject, err := execText(c.text, "subject", view)
	if err != nil {
		return Message{}, err
	}
	text, err := execText(c.text, "text", view)
	if err != nil {
		return Message{}, err
	}
	var html bytes.Buffer
	if err := c.html.ExecuteTemplate(&html, "layout", view); err != nil {
		return Message{}, fmt.Errorf("render %s html: %w", t, err)
	}
	return Message{
		Subject: sanitizeKeepingAmounts(subject, 200),
		Text:    strings.TrimSpace(text) + "\n",
		HTML:    html.String(),
	}, nil
}

func execText(t *template.Template, name string, view map[string]any) (string, error) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, view); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// fill checks and formats each field of values into view.
func fill(view map[string]any, fields []field, values map[string]string, what string, ch Channel) error {
	for _, f := range fields {
		raw, ok := values[f.name]
		if !ok {
			if !f.optional {
				return invalid("%s %q is missing", what, f.name)
			}
			view[f.name] = ""
			continue
		}
		v, err := f.kind.format(raw, ch)
		if err != nil {
			return invalid("%s %q: %v", what, f.name, err)
		}
		view[f.name] = v
	}
	return nil
}

// details lists a support message's details in key order.
func details(params map[string]string) []Detail {
	var out []Detail
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if key, ok := strings.CutPrefix(k, ParamDetailPrefix); ok {
			out = append(out, Detail{Key: Sanitize(key, MaxDetailKey), Value: Sanitize(params[k], MaxDetailValue)})
		}
	}
	return out
}

var bankNames = map[string]string{
	"standard_bank": "Standard Bank",
	"absa":          "ABSA",
	"fnb":           "FNB",
	"nedbank":       "Nedbank",
	"capitec":       "Capitec",
}

// BankName is the display name of a bank given by its key (the fees service's, e.g.
// standard_bank) or by its name; ok is false for a bank outside the network.
func BankName(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if name, ok := bankNames[strings.ToLower(s)]; ok {
		return name, true
	}
	for _, name := range bankNames {
		if strings.EqualFold(name, s) {
			return name, true
		}
	}
	return "", false
}

var supportKinds = map[string]string{
	"question": "Question",
	"issue":    "Issue",
	"feedback": "Feedback",
	"contact":  "Contact",
}

// gsmName is a name as an SMS can carry it in the GSM alphabet (ToGSM), or "" when that would
// not be the name: a name in a script the alphabet lacks (Chinese, Arabic, Cyrillic) loses its
// letters, so "李小龍 王." became "." and the SMS read "Thumela: . sent you R20.00". A name
// that keeps fewer than half its letters is left out, and the templates say "Someone" and "The
// sender" instead: the recipient is told less, never something wrong.
func gsmName(name string) string {
	gsm := strings.Join(strings.Fields(ToGSM(name)), " ")
	if 2*countLetters(gsm) < countLetters(name) || countLetters(gsm) == 0 {
		return ""
	}
	return gsm
}

func countLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

func (k kind) format(raw string, ch Channel) (string, error) {
	switch k {
	case kindName:
		if ch == ChannelSMS {
			return gsmName(Sanitize(raw, MaxDisplayName)), nil
		}
		return cutName(Sanitize(raw, 0), MaxEmailName), nil
	case kindSupportName:
		return cutName(Sanitize(raw, 0), MaxSupportName), nil
	case kindText, kindServiceText:
		switch {
		case ch == ChannelSMS:
			return ToGSM(Sanitize(raw, 200)), nil
		case k == kindServiceText:
			return sanitizeKeepingAmounts(raw, 200), nil
		}
		return Sanitize(raw, 200), nil
	case kindLongText:
		return SanitizeMultiline(raw, MaxSupportMessage), nil
	case kindCents:
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil || n < 0 {
			return "", fmt.Errorf("not a non-negative number of cents")
		}
		if ch == ChannelSMS {
			return Rand(n), nil
		}
		return RandEnZA(n), nil
	case kindTime:
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(raw))
		if err != nil {
			return "", fmt.Errorf("not an RFC 3339 time")
		}
		return When(t), nil
	case kindMinutes:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || n <= 0 || n > 7*24*60 {
			return "", fmt.Errorf("not a number of minutes")
		}
		return strconv.Itoa(n), nil
	case kindBank:
		name, ok := BankName(raw)
		if !ok {
			return "", fmt.Errorf("not a bank of the network")
		}
		return name, nil
	case kindPhone:
		p := strings.TrimSpace(raw)
		if !validE164(p) {
			return "", fmt.Errorf("not an E.164 number")
		}
		return DisplayPhone(p), nil
	case kindReference:
		ref := Sanitize(raw, 64)
		if ref == "" {
			return "", fmt.Errorf("empty")
		}
		return ToGSM(ref), nil
	case kindFlag:
		if strings.TrimSpace(raw) != "true" {
			return "", fmt.Errorf(`not "true"`)
		}
		return "true", nil
	case kindRefund:
		switch r := strings.TrimSpace(raw); r {
		case "cancelled", "expired":
			return r, nil
		}
		return "", fmt.Errorf(`not "cancelled" or "expired"`)
	case kindPasswordChange:
		switch h := strings.TrimSpace(raw); h {
		case "changed", "reset":
			return h, nil
		}
		return "", fmt.Errorf(`not "changed" or "reset"`)
	case kindKind:
		label, ok := supportKinds[strings.TrimSpace(raw)]
		if !ok {
			return "", fmt.Errorf("not a support message kind")
		}
		return label, nil
	case kindCode:
		c := strings.TrimSpace(raw)
		if len(c) != 6 || !allDigits(c) {
			return "", fmt.Errorf("not six digits")
		}
		return c, nil
	case kindVoucher:
		v := strings.TrimSpace(raw)
		if len(v) < 4 || len(v) > 32 || strings.ContainsFunc(v, func(r rune) bool {
			return !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r == ' ' || r == '-')
		}) {
			return "", fmt.Errorf("not a voucher number")
		}
		return v, nil
	case kindPIN:
		p := strings.TrimSpace(raw)
		if len(p) < 4 || len(p) > 8 || !allDigits(p) {
			return "", fmt.Errorf("not a PIN")
		}
		return p, nil
	case kindDate:
		// A date, not an instant: the occurrence's day in Johannesburg as the scheduler counted
		// it, shown as it is (converting it through a time zone could move it a day).
		d, err := time.Parse(time.DateOnly, strings.TrimSpace(raw))
		if err != nil {
			return "", fmt.Errorf("not a YYYY-MM-DD date")
		}
		return Day(d), nil
	}
	return "", fmt.Errorf("unknown kind %d", k)
}

// cutName is name, or when it is longer than limit characters its first limit-1 and an
// ellipsis: a reader sees that the name goes on.
func cutName(name string, limit int) string {
	r := []rune(name)
	if len(r) <= limit {
		return name
	}
	return strings.TrimSpace(string(r[:limit-1])) + "…"
}

// validE164 reports whether s looks like an E.164 number: + and 8 to 15 digits.
func validE164(s string) bool {
	return len(s) >= 9 && len(s) <= 16 && s[0] == '+' && s[1] != '0' && allDigits(s[1:])
}

// ValidRecipient reports whether recipient can be sent to on ch: a bare e-mail address, or an
// E.164 number.
func ValidRecipient(ch Channel, recipient string) bool {
	switch ch {
	case ChannelEmail:
		return ValidEmail(recipient)
	case ChannelSMS:
		return validE164(recipient)
	}
	return false
}
