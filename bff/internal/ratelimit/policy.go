package ratelimit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
)

// Kind is what a rule counts calls by.
type Kind string

const (
	// ByAddress counts per client address (an IPv6 client's /64). Generous: many South
	// African mobile users share one carrier-NAT address.
	ByAddress Kind = "address"
	// ByAccount counts per account: the signed-in user, or the e-mail in the request. Where
	// anyone may type the e-mail (sign-in, codes) it is only a high ceiling, so a stranger
	// cannot use it to lock the owner out; the tight limit is ByPair.
	ByAccount Kind = "account"
	// ByPair counts per (account, address): the tight limit on guessing one account's secrets
	// from one place, which the owner elsewhere never shares.
	ByPair Kind = "pair"
)

// AccountSource says where a policy finds the account.
type AccountSource int

const (
	// NoAccount: the call names no account (rules other than ByAddress are skipped).
	NoAccount AccountSource = iota
	// FromEmail: the e-mail field of the request, as typed (normalised), known or not.
	FromEmail
	// FromSession: the signed-in user (a call without a session is counted by address only,
	// and refused by its handler anyway).
	FromSession
	// FromSessionOrEmail: the signed-in user, else the request's e-mail (contact forms).
	FromSessionOrEmail
)

// Rule allows Rate calls per Per, after an instant Burst (the GCRA's quota).
type Rule struct {
	Kind  Kind
	Rate  int
	Per   time.Duration
	Burst int
}

// Policy is the rate limit of one RPC.
type Policy struct {
	// Name is the policy's part of the stored keys and of BFF_RATE_LIMITS ("signup").
	Name    string
	Account AccountSource
	Rules   []Rule
}

// tolerance is how far ahead of now a key's state can reach: the GCRA's delay variation
// tolerance, (burst+1) emission intervals. State older than that is the same as no state,
// which is what sizes the bucket's TTL.
func (r Rule) tolerance() time.Duration {
	return r.Per / time.Duration(r.Rate) * time.Duration(r.Burst+1)
}

func r(kind Kind, rate int, per time.Duration, burst int) Rule {
	return Rule{Kind: kind, Rate: rate, Per: per, Burst: burst}
}

// DefaultPolicies is the policy table by Connect procedure (docs/security-ratelimits.md
// explains each number). The shape: a person never meets a limit; the browser test suite, one
// sign-up every few seconds from 127.0.0.1, stays under the sustained rates; a burst (60
// sign-ups in 2 s, hundreds of Track calls in a second) is refused after the burst allowance.
func DefaultPolicies() map[string]Policy {
	const (
		minute = time.Minute
		hour   = time.Hour
	)
	return map[string]Policy{
		bffv1connect.AuthServiceSignUpProcedure: {Name: "signup", Account: FromEmail, Rules: []Rule{
			r(ByAddress, 30, minute, 10),
			// Each sign-up e-mails the address: a stranger's inbox gets a few, not a flood.
			r(ByAccount, 5, hour, 2),
		}},
		bffv1connect.AuthServiceSignInProcedure: {Name: "signin", Account: FromEmail, Rules: []Rule{
			r(ByAddress, 60, minute, 30),
			r(ByPair, 10, minute, 10),
			r(ByAccount, 60, minute, 30),
		}},
		bffv1connect.AuthServiceVerifyEmailProcedure: {Name: "verify", Account: FromEmail, Rules: []Rule{
			r(ByAddress, 30, minute, 10),
			r(ByPair, 10, minute, 5),
			r(ByAccount, 30, minute, 10),
		}},
		bffv1connect.AuthServiceResendCodeProcedure: {Name: "resend", Account: FromEmail, Rules: []Rule{
			r(ByAddress, 20, minute, 10),
			r(ByAccount, 6, hour, 3),
		}},
		bffv1connect.AuthServiceRequestPasswordResetProcedure: {Name: "reset_request", Account: FromEmail, Rules: []Rule{
			r(ByAddress, 20, minute, 10),
			r(ByAccount, 6, hour, 3),
		}},
		bffv1connect.AuthServiceResetPasswordProcedure: {Name: "reset", Account: FromEmail, Rules: []Rule{
			r(ByAddress, 30, minute, 10),
			r(ByPair, 10, minute, 5),
			r(ByAccount, 30, minute, 10),
		}},
		bffv1connect.AuthServiceBeginPasskeySignInProcedure: {Name: "passkey_begin", Rules: []Rule{
			r(ByAddress, 60, minute, 30),
		}},
		bffv1connect.AuthServiceFinishPasskeySignInProcedure: {Name: "passkey_finish", Rules: []Rule{
			r(ByAddress, 60, minute, 30),
		}},
		bffv1connect.AnalyticsServiceTrackProcedure: {Name: "track", Account: FromSession, Rules: []Rule{
			r(ByAddress, 300, minute, 100),
			r(ByAccount, 120, minute, 60),
		}},
		// Public and answered from the BFF's cache: each public page asks once; only a
		// scraper hammering it from one address meets this.
		bffv1connect.TransfersServiceGetLimitPolicyProcedure: {Name: "limit_policy", Rules: []Rule{
			r(ByAddress, 120, minute, 60),
		}},
		bffv1connect.SystemServiceCheckConnectionProcedure: {Name: "check", Rules: []Rule{
			r(ByAddress, 60, minute, 20),
		}},
		bffv1connect.SupportServiceSubmitSupportMessageProcedure: {Name: "support", Account: FromSessionOrEmail, Rules: []Rule{
			r(ByAddress, 30, hour, 10),
			r(ByAccount, 10, hour, 5),
		}},
		bffv1connect.TransfersServiceCreateTransferProcedure: {Name: "transfer", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 20, minute, 10),
		}},
		// Each re-issue sends a voucher SMS to a phone the sender names, and a cancel gives the
		// whole total back: together with a create they were a free SMS flood of any number
		// (create, three resends, cancel, again). A person re-sends or cancels a few a day: the
		// account's rule is tight; the address's is a create's (a carrier NAT is many people).
		bffv1connect.TransfersServiceResendVoucherProcedure: {Name: "resend_voucher", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 10, hour, 5),
		}},
		bffv1connect.TransfersServiceChangeRecipientPhoneProcedure: {Name: "change_phone", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 10, hour, 5),
		}},
		bffv1connect.TransfersServiceCancelTransferProcedure: {Name: "cancel", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 20, hour, 10),
		}},
		bffv1connect.PaymentMethodsServiceAddCardProcedure: {Name: "addcard", Account: FromSession, Rules: []Rule{
			// Card testing (trying stolen numbers) is the abuse: a few cards an hour per
			// account; the address allows a busy shared address and the test suite.
			r(ByAddress, 60, hour, 20),
			r(ByAccount, 10, hour, 5),
		}},
		// The file endpoints (statements, proofs of payment): each answer reads up to a year of
		// transfers and renders a PDF, so they are counted like the costly RPCs.
		StatementEndpoint: {Name: "statement", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 20, minute, 10),
		}},
		ProofOfPaymentEndpoint: {Name: "proof", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 30, minute, 15),
		}},
		// Freezing cancels every voucher in one call, a transaction and its e-mails per voucher: a
		// frightened sender presses it a few times, a script does not get to press it hundreds.
		bffv1connect.TransfersServiceFreezeVouchersProcedure: {Name: "freeze", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 10, minute, 5),
		}},
		// A schedule is a transfer a week or a month for as long as it runs: created as rarely
		// as a person sets up a debit order, checked like a transfer (card, limits, step-up).
		bffv1connect.SchedulesServiceCreateScheduleProcedure: {Name: "schedule", Account: FromSession, Rules: []Rule{
			r(ByAddress, 60, minute, 20),
			r(ByAccount, 10, minute, 5),
		}},
		// Pause, resume and delete are a transaction and a live event each: a sender clicks a
		// few of them in a row on /recipients, a script does not get to flip one hundreds of
		// times (each flip reaches every open tab of the user).
		bffv1connect.SchedulesServicePauseScheduleProcedure: {Name: "schedule_pause", Account: FromSession, Rules: []Rule{
			r(ByAddress, 120, minute, 40),
			r(ByAccount, 30, minute, 15),
		}},
		bffv1connect.SchedulesServiceResumeScheduleProcedure: {Name: "schedule_resume", Account: FromSession, Rules: []Rule{
			r(ByAddress, 120, minute, 40),
			r(ByAccount, 30, minute, 15),
		}},
		bffv1connect.SchedulesServiceDeleteScheduleProcedure: {Name: "schedule_delete", Account: FromSession, Rules: []Rule{
			r(ByAddress, 120, minute, 40),
			r(ByAccount, 30, minute, 15),
		}},
		// A read, asked again by /refer-friend and the wizard after every credit_changed; the
		// first call of a user also writes the user's referral code. Generous: only a loop
		// meets it.
		bffv1connect.CreditServiceGetCreditProcedure: {Name: "credit", Account: FromSession, Rules: []Rule{
			r(ByAddress, 300, minute, 100),
			r(ByAccount, 60, minute, 30),
		}},
		bffv1connect.SecurityServiceFinishStepUpProcedure: {Name: "stepup", Account: FromSession, Rules: []Rule{
			r(ByAddress, 30, minute, 10),
			r(ByAccount, 10, 10*minute, 5),
		}},
	}
}

var overrideItem = regexp.MustCompile(`^([a-z_]+)\.(address|account|pair)=(\d+)/(\d*[a-z]+)\+(\d+)$`)

// ApplyOverrides changes rules of policies from a BFF_RATE_LIMITS value: comma-separated
// items "<policy>.<kind>=<rate>/<period>+<burst>", e.g. "signup.address=60/1m+20"; rate 0
// turns the rule off. A period is a Go duration ("1m", "10m", "1h"); a bare unit means one.
func ApplyOverrides(policies map[string]Policy, spec string) error {
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		m := overrideItem.FindStringSubmatch(item)
		if m == nil {
			return fmt.Errorf("BFF_RATE_LIMITS item %q is not <policy>.<address|account|pair>=<rate>/<period>+<burst>", item)
		}
		rate, err1 := strconv.Atoi(m[3])
		burst, err2 := strconv.Atoi(m[5])
		period := m[4]
		if period[0] < '0' || period[0] > '9' {
			period = "1" + period
		}
		per, err3 := time.ParseDuration(period)
		if err1 != nil || err2 != nil || err3 != nil || per <= 0 || (rate > 0 && per/time.Duration(rate) <= 0) {
			return fmt.Errorf("BFF_RATE_LIMITS item %q has an invalid number or period", item)
		}
		if err := override(policies, m[1], Kind(m[2]), Rule{Kind: Kind(m[2]), Rate: rate, Per: per, Burst: burst}); err != nil {
			return err
		}
	}
	return nil
}

func override(policies map[string]Policy, name string, kind Kind, rule Rule) error {
	for proc, p := range policies {
		if p.Name != name {
			continue
		}
		rules := make([]Rule, 0, len(p.Rules)+1)
		for _, old := range p.Rules {
			if old.Kind != kind {
				rules = append(rules, old)
			}
		}
		if rule.Rate > 0 {
			if kind != ByAddress && p.Account == NoAccount {
				return fmt.Errorf("BFF_RATE_LIMITS: policy %q names no account, so only its address rule can be set", name)
			}
			rules = append(rules, rule)
		}
		p.Rules = rules
		policies[proc] = p
		return nil
	}
	return fmt.Errorf("BFF_RATE_LIMITS: no rate-limit policy is called %q", name)
}
