package domain

import (
	"crypto/rand"
	"fmt"
	"maps"
	"net/mail"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/thumela/thumela/services/platform/clientnet"
)

// Limits of a support message.
const (
	MaxSupportSubject = 200
	MaxSupportMessage = 5000
	MaxSupportName    = 100
	MaxSupportEmail   = 254
	MaxDetails        = 10
	MaxDetailKey      = 40
	MaxDetailValue    = 1000
)

// Rate limits of support messages: per account for a signed-in sender, per client address for a
// visitor (counting the visitors' messages only), counted in PostgreSQL so every replica shares
// them.
var SupportLimits = []RateLimit{
	{Window: 10 * time.Minute, Max: 5},
	{Window: 24 * time.Hour, Max: 20},
}

// RateLimit allows Max messages per Window.
type RateLimit struct {
	Window time.Duration
	Max    int
}

// SupportKind is what a support message is about.
type SupportKind string

// Kinds: the Help Center's Contact Us types, and /contact.
const (
	SupportQuestion SupportKind = "question"
	SupportIssue    SupportKind = "issue"
	SupportFeedback SupportKind = "feedback"
	SupportContact  SupportKind = "contact"
)

// Field names, as in SubmitSupportMessageRequest.
const (
	FieldKind          = "kind"
	FieldName          = "name"
	FieldEmail         = "email"
	FieldSubject       = "subject"
	FieldMessage       = "message"
	FieldDetails       = "details"
	FieldClientAddress = "client_address"
)

// Messages a person may read.
const (
	MsgKindRequired    = "Please choose what your message is about."
	MsgNameTooLong     = "Name must be at most 100 characters."
	MsgEmailRequired   = "Please enter your e-mail address."
	MsgEmailInvalid    = "Please enter a valid e-mail address."
	MsgSubjectTooLong  = "Subject must be at most 200 characters."
	MsgMessageRequired = "Please enter a message."
	MsgMessageTooLong  = "Message must be at most 5000 characters."
	MsgMessageInvalid  = "Message contains characters that cannot be sent."
	MsgTooManyDetails  = "Too many details."
	MsgDetailInvalid   = "A detail is too long or empty."
	MsgAddressInvalid  = "The client address is not an IP address."
	MsgAddressRequired = "The client address is required."
	// MsgRateLimited and MsgRateLimitedAccount are RateLimitedError.Message's sentence for a
	// visitor's address and a signed-in sender's account, with when to try again ("in 7
	// minutes"), as the web writes it.
	MsgRateLimited        = "Too many messages from your connection. Please try again %s."
	MsgRateLimitedAccount = "Too many messages from your account. Please try again %s."
)

// SupportInput is a support message as submitted.
type SupportInput struct {
	Kind                 SupportKind // "" when unspecified
	Name, Email, Subject string
	Message              string
	Details              map[string]string
	ClientAddress        string
	UserID               string // the signed-in sender's id; "" for a visitor
	UserEmail, UserName  string // the account's, used when the form leaves them out
	// VisitorNeedsAnAddress: the caller is a visitor, known (and rate-limited) by the client
	// address alone, which is then required.
	VisitorNeedsAnAddress bool
}

// SupportMessage is a validated support message.
type SupportMessage struct {
	Ticket  string
	Kind    SupportKind
	Name    string
	Email   string
	Subject string
	Message string
	Details map[string]string
	UserID  string // "" for a visitor
	// AccountEmail is the signed-in account's own (verified) address, "" for a visitor: support
	// reads it beside Email, which anyone can type, to know whom they are answering.
	AccountEmail string
	// Client is the rate limit's key: the client's address as a network (an IPv4 address, an
	// IPv6 /64, which one household or phone holds), invalid (zero) when none was given.
	Client    netip.Prefix
	CreatedAt time.Time
}

// NewSupportMessage validates in; every violation is reported at once. The ticket is left to
// the caller (NewTicket).
func NewSupportMessage(in SupportInput, now time.Time) (SupportMessage, error) {
	var vs []FieldViolation
	add := func(field, msg string) { vs = append(vs, FieldViolation{Field: field, Message: msg}) }

	switch in.Kind {
	case SupportQuestion, SupportIssue, SupportFeedback, SupportContact:
	default:
		add(FieldKind, MsgKindRequired)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = strings.TrimSpace(in.UserName)
	}
	if utf8.RuneCountInString(name) > MaxSupportName {
		add(FieldName, MsgNameTooLong)
	}
	email := strings.TrimSpace(in.Email)
	switch {
	case email != "" && (len(email) > MaxSupportEmail || !ValidEmail(email)):
		add(FieldEmail, MsgEmailInvalid)
	case email == "" && in.UserID == "":
		add(FieldEmail, MsgEmailRequired)
	case email == "":
		email = in.UserEmail
	}
	subject := strings.TrimSpace(in.Subject)
	if utf8.RuneCountInString(subject) > MaxSupportSubject {
		add(FieldSubject, MsgSubjectTooLong)
	}
	message := strings.TrimSpace(strings.ReplaceAll(in.Message, "\r\n", "\n"))
	switch n := utf8.RuneCountInString(message); {
	// /feedback's answers are its details; the form has no message of its own.
	case n == 0 && len(in.Details) == 0:
		add(FieldMessage, MsgMessageRequired)
	case n > MaxSupportMessage:
		add(FieldMessage, MsgMessageTooLong)
	case !printable(message):
		add(FieldMessage, MsgMessageInvalid)
	}
	if len(in.Details) > MaxDetails {
		add(FieldDetails, MsgTooManyDetails)
	} else {
		for _, k := range slices.Sorted(maps.Keys(in.Details)) {
			v := in.Details[k]
			if k == "" || utf8.RuneCountInString(k) > MaxDetailKey || Sanitize(k, 0) != k ||
				utf8.RuneCountInString(v) > MaxDetailValue || !printable(v) {
				add(FieldDetails, MsgDetailInvalid)
				break
			}
		}
	}
	var client netip.Prefix
	if a := strings.TrimSpace(in.ClientAddress); a != "" {
		p, ok := clientnet.Network(a)
		if !ok {
			add(FieldClientAddress, MsgAddressInvalid)
		}
		client = p
	} else if in.VisitorNeedsAnAddress {
		add(FieldClientAddress, MsgAddressRequired)
	}
	if len(vs) > 0 {
		return SupportMessage{}, &ValidationError{Violations: vs}
	}
	return SupportMessage{
		Kind: in.Kind, Name: name, Email: email, Subject: subject, Message: message,
		Details: maps.Clone(in.Details), UserID: in.UserID, Client: client, CreatedAt: now,
		AccountEmail: accountEmail(in),
	}, nil
}

// accountEmail is the signed-in caller's own address, or "" for a visitor.
func accountEmail(in SupportInput) string {
	if in.UserID == "" {
		return ""
	}
	return in.UserEmail
}

// printable reports whether s is valid UTF-8 of printable characters, spaces and line breaks:
// no control or format characters (bidi overrides) that would make it display other than it
// reads in the support team's mail.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// ValidEmail reports whether s is one bare e-mail address (no display name, no list).
func ValidEmail(s string) bool {
	if s == "" || len(s) > MaxSupportEmail || strings.ContainsAny(s, " \t\r\n<>,;\"") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && strings.Contains(domain, ".") && !strings.HasSuffix(domain, ".")
}

// crockford is Crockford's base32 alphabet: no I, L, O or U, so a ticket read aloud or typed
// from a screenshot is not mistaken.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewTicket returns a fresh ticket reference, "THM-" and six characters of Crockford base32
// from crypto/rand (30 bits; the table's unique index catches the rare repeat).
func NewTicket() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("ticket: %w", err)
	}
	out := []byte("THM-")
	for _, x := range b {
		out = append(out, crockford[x&31])
	}
	return string(out), nil
}

// RetryAfter is how long to wait until a message is allowed again, given the times of the
// messages already counted in limit's window (oldest first) and now; 0 when one is allowed now.
func (l RateLimit) RetryAfter(times []time.Time, now time.Time) time.Duration {
	var in []time.Time
	for _, t := range times {
		if now.Sub(t) < l.Window {
			in = append(in, t)
		}
	}
	if len(in) < l.Max {
		return 0
	}
	// The oldest of the last Max messages leaves the window first.
	oldest := in[len(in)-l.Max]
	return max(oldest.Add(l.Window).Sub(now), time.Second)
}
