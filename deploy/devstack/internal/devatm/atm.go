// Package devatm is the development stack's ATM: the page at /dev/atm, where a person (or a
// browser test) withdraws a voucher as the recipient would at a bank's ATM. The page is a real
// ISO 8583 client of the cash-out gateway over TCP, speaking what the ATM switches speak
// (package atmnet): a 0200 withdrawal with the PIN in a format 4 PIN block enciphered under the
// zone PIN key, every message MAC'd under the zone MAC key (and every answer's MAC checked),
// fresh references (STAN, RRN) for every press of the button, and a 0420 reversal when the ATM
// cannot dispense ('Fail to dispense') or gets no answer it can trust in time.
//
// It exists in development only: the stack mounts it among its dev tools, which the BFF
// proxies in development mode alone. The PIN is used to build the PIN block and nothing else:
// it is never shown again, logged or kept, and neither are the voucher and phone numbers.
package devatm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

// Path is where the page is served.
const Path = "/dev/atm"

// DefaultTimeout is how long the ATM waits for the gateway's answer before it gives up and
// reverses: longer than the gateway's own timeout towards transfers (CASHOUT_REQUEST_TIMEOUT,
// 10 s), so that a slow transfers service shows as the gateway's 91 rather than as silence.
const DefaultTimeout = 15 * time.Second

// dialTimeout bounds the connection to the gateway: it is on loopback.
const dialTimeout = 5 * time.Second

// Config is where the gateway is and the keys the ATM shares with it.
type Config struct {
	// ISOAddr is the gateway's ISO 8583 listener (CASHOUT_ISO_ADDR).
	ISOAddr string
	// Key enciphers the PIN blocks: the gateway's current zone PIN key (the first of
	// CASHOUT_ZONE_PIN_KEYS).
	Key atmnet.ZoneKey
	// MACKey authenticates every message both ways: the zone MAC key of Key's id (from
	// CASHOUT_ZONE_MAC_KEYS).
	MACKey atmnet.MACKey
	// Timeout is how long the ATM waits for each answer; zero means DefaultTimeout.
	Timeout time.Duration
	Logger  *slog.Logger
	// Now is the clock of the messages' dates and references; nil means time.Now.
	Now func() time.Time
}

// Bank is one bank whose ATMs pay out vouchers, as the page offers it.
type Bank struct {
	// Slug is the form's value (the gateway's CASHOUT_BANK_CODES names).
	Slug string
	// Name is what the 'Bank' select shows.
	Name string
	// AcquirerID is DE 32: the gateway's default code of the bank.
	AcquirerID string
	// prefix starts the terminal ids (DE 41) of the bank's ATMs.
	prefix string
	// ATM is a named ATM of the bank: the 'ATM' field's default when the bank is chosen.
	ATM string
}

// Banks are the five banks in the order the wizard lists them.
var Banks = []Bank{
	{Slug: "standard_bank", Name: "Standard Bank", AcquirerID: atmnet.AcquirerStandardBank, prefix: "SBK", ATM: "Standard Bank ATM Rosebank Mall"},
	{Slug: "absa", Name: "ABSA", AcquirerID: atmnet.AcquirerABSA, prefix: "ABS", ATM: "ABSA ATM Carlton Centre"},
	{Slug: "fnb", Name: "FNB", AcquirerID: atmnet.AcquirerFNB, prefix: "FNB", ATM: "FNB ATM Sandton City"},
	{Slug: "nedbank", Name: "Nedbank", AcquirerID: atmnet.AcquirerNedbank, prefix: "NED", ATM: "Nedbank ATM Menlyn Park"},
	{Slug: "capitec", Name: "Capitec", AcquirerID: atmnet.AcquirerCapitec, prefix: "CAP", ATM: "Capitec ATM Maponya Mall"},
}

// defaultBank is FNB, the bank of the product's own examples ("Collected at FNB ATM Sandton
// City").
const defaultBank = "fnb"

func bankBySlug(slug string) (Bank, bool) {
	for _, b := range Banks {
		if b.Slug == slug {
			return b, true
		}
	}
	return Bank{}, false
}

// TerminalID is DE 41 of the ATM at location: the bank's 3-letter prefix and 5 hex digits of
// the location's hash, so the same 'ATM' text is always the same terminal, and the terminal id
// fits DE 41's 8 characters while the location (DE 43, up to 40) is what the sender sees.
func TerminalID(b Bank, location string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(location), " "))))
	return b.prefix + strings.ToUpper(hex.EncodeToString(sum[:])[:5])
}

// New returns the page's handler: GET shows the ATM, POST withdraws. ?bank=<slug> on GET
// chooses the bank (and its ATM) in advance.
func New(cfg Config) http.Handler {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &handler{cfg: cfg}
}

type handler struct{ cfg Config }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		f := form{Bank: defaultBank}
		if b, ok := bankBySlug(r.URL.Query().Get("bank")); ok {
			f.Bank = b.Slug
		}
		b, _ := bankBySlug(f.Bank)
		f.ATM = b.ATM
		h.render(w, http.StatusOK, page{Form: f})
	case http.MethodPost:
		h.withdraw(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// form is what was typed, as the page shows it again: never the PIN.
type form struct {
	Bank, ATM, Voucher, Phone, Amount string
}

// withdrawal is a form that checked out.
type withdrawal struct {
	bank        Bank
	location    string
	voucher     string
	pin         string
	phone       string
	amountCents int64
	fail        bool
}

var (
	amountPlain   = regexp.MustCompile(`^(\d+)(?:[.,](\d{1,2}))?$`)
	amountGrouped = regexp.MustCompile(`^(\d{1,3}(?:,\d{3})+)(?:\.(\d{1,2}))?$`)
)

// maxAmountCents is DE 4's 12 digits.
const maxAmountCents = 999_999_999_999

// parseAmount reads rand as people type them: 500, 500.00, 500,50, R500, R 1 000, 1,000.00.
func parseAmount(s string) (int64, bool) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\u00a0', '\u202f':
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "R"), "r")
	var whole, fraction string
	if m := amountPlain.FindStringSubmatch(s); m != nil {
		whole, fraction = m[1], m[2]
	} else if m := amountGrouped.FindStringSubmatch(s); m != nil {
		whole, fraction = strings.ReplaceAll(m[1], ",", ""), m[2]
	} else {
		return 0, false
	}
	if len(whole) > 10 {
		return 0, false
	}
	rands, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	cents := int64(0)
	if fraction != "" {
		c, _ := strconv.Atoi((fraction + "0")[:2])
		cents = int64(c)
	}
	total := rands*100 + cents
	return total, total > 0 && total <= maxAmountCents
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// printableASCII: DE 43 and DE 48 are ASCII fields.
func printableASCII(s string) bool {
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return false
		}
	}
	return true
}

// read checks the form; errs names each field that is wrong and why.
func read(r *http.Request) (form, withdrawal, map[string]string) {
	v := r.PostForm
	f := form{
		Bank:    v.Get("bank"),
		ATM:     strings.Join(strings.Fields(v.Get("atm")), " "),
		Voucher: strings.TrimSpace(v.Get("voucher")),
		Phone:   strings.TrimSpace(v.Get("phone")),
		Amount:  strings.TrimSpace(v.Get("amount")),
	}
	errs := map[string]string{}
	var w withdrawal
	b, ok := bankBySlug(f.Bank)
	if !ok {
		errs["bank"] = "Choose the ATM's bank."
		b, _ = bankBySlug(defaultBank)
		f.Bank = b.Slug
	}
	w.bank = b
	w.location = f.ATM
	switch {
	case f.ATM == "":
		w.location = b.ATM
	case len(f.ATM) > 40 || !printableASCII(f.ATM):
		errs["atm"] = "Name the ATM in at most 40 letters, digits and spaces (no accents)."
	}
	w.voucher = strings.NewReplacer(" ", "", "-", "").Replace(f.Voucher)
	switch {
	case f.Voucher == "":
		errs["voucher"] = "Enter the voucher number from the SMS."
	case !isDigits(w.voucher) || len(w.voucher) > 19:
		errs["voucher"] = "A voucher number is digits only."
	}
	w.pin = v.Get("pin")
	if !isDigits(w.pin) || len(w.pin) < 4 || len(w.pin) > 12 {
		errs["pin"] = "Enter the PIN: 4 digits."
	}
	w.phone = f.Phone
	switch {
	case f.Phone == "":
		errs["phone"] = "Enter the recipient's phone number."
	case len(f.Phone) > 20 || !printableASCII(f.Phone):
		errs["phone"] = "Enter a phone number such as 082 123 4567."
	}
	var okAmount bool
	if w.amountCents, okAmount = parseAmount(f.Amount); !okAmount {
		errs["amount"] = "Enter the amount in rand, for example 500."
	}
	w.fail = v.Get("fail") != ""
	return f, w, errs
}

func (h *handler) withdraw(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "unreadable form", http.StatusBadRequest)
		return
	}
	f, wd, errs := read(r)
	if len(errs) > 0 {
		h.render(w, http.StatusUnprocessableEntity, page{Form: f, Errors: errs})
		return
	}
	// The ATM finishes its exchange (a reversal included) even if the browser goes away.
	ctx := context.WithoutCancel(r.Context())
	res, err := h.exchange(ctx, wd)
	if errors.Is(err, atmnet.ErrInvalidPIN) {
		h.render(w, http.StatusUnprocessableEntity, page{Form: f, Errors: map[string]string{"pin": "Enter the PIN: 4 digits."}})
		return
	}
	h.cfg.Logger.InfoContext(ctx, "dev ATM withdrawal", "bank", wd.bank.Slug, "terminal_id", res.TerminalID,
		"stan", res.STAN, "rrn", res.RRN, "response_code", res.Code, "fail_to_dispense", wd.fail,
		"reversal_stan", res.ReversalSTAN, "reversal_code", res.ReversalCode, "outcome", res.Kind)
	h.render(w, http.StatusOK, page{Form: f, Result: &res})
}

// Outcomes of a press of 'Withdraw'.
const (
	KindApproved = "approved" // cash dispensed
	KindReversed = "reversed" // approved, nothing dispensed, reversal acknowledged
	KindDeclined = "declined" // the gateway said no
	KindFailed   = "failed"   // no answer, no connection, or a reversal not acknowledged
)

// result is what the ATM's screen says, and the references a developer looks up in the logs.
type result struct {
	Kind    string
	Message string
	// Code is the 0200's DE 39 ("" when there was no answer).
	Code                            string
	TerminalID, STAN, RRN, AuthCode string
	// ReversalSTAN and ReversalCode are the 0420's, when one was sent.
	ReversalSTAN, ReversalCode string
}

// Alert: a decline or a failure is announced at once; an approval politely.
func (r *result) Alert() bool { return r.Kind == KindDeclined || r.Kind == KindFailed }

// exchange plays one withdrawal at the ATM: 0200, then a 0420 when the ATM cannot dispense or
// heard nothing.
func (h *handler) exchange(ctx context.Context, wd withdrawal) (result, error) {
	now := h.cfg.Now()
	stan, rrn := atmnet.NewReferences(now)
	res := result{TerminalID: TerminalID(wd.bank, wd.location), STAN: stan, RRN: rrn}
	req, err := atmnet.NewWithdrawal(atmnet.Withdrawal{
		VoucherNumber: wd.voucher,
		PIN:           wd.pin,
		Phone:         wd.phone,
		AmountCents:   wd.amountCents,
		AcquirerID:    wd.bank.AcquirerID,
		TerminalID:    res.TerminalID,
		Location:      wd.location,
		STAN:          stan,
		RRN:           rrn,
		At:            now,
	}, h.cfg.Key)
	if err != nil {
		if errors.Is(err, atmnet.ErrInvalidPIN) {
			return res, err
		}
		res.Kind, res.Message = KindFailed, "The ATM could not build the request: "+err.Error()
		return res, nil
	}

	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	client, err := atmnet.Dial(dctx, h.cfg.ISOAddr, h.cfg.MACKey)
	cancel()
	if err != nil {
		h.cfg.Logger.WarnContext(ctx, "dev ATM: the gateway is not reachable", "addr", h.cfg.ISOAddr, "err", err)
		res.Kind, res.Message = KindFailed, msgUnreachable
		return res, nil
	}
	defer client.Close() //nolint:errcheck // the answer is in hand; nothing to do on error

	answer, err := h.do(ctx, client, req)
	switch {
	case err != nil:
		// No answer it can trust: the gateway may have collected the voucher all the same, so
		// the ATM reverses, as a real one does after its timeout.
		h.reverse(ctx, req, &res)
		res.Kind = KindFailed
		res.Message = "The bank did not answer in time, so no cash was dispensed and the ATM sent a reversal"
		if errors.Is(err, atmnet.ErrMACMissing) || errors.Is(err, atmnet.ErrMACInvalid) {
			h.cfg.Logger.WarnContext(ctx, "dev ATM: the gateway's answer is not authenticated", "rrn", req.RRN, "err", err)
			res.Message = "The bank's answer could not be authenticated, so no cash was dispensed and the ATM sent a reversal"
		}
		if res.ReversalCode == atmnet.RespApproved {
			res.Message += ", which the bank accepted."
		} else {
			res.Message += ", which the bank did not confirm."
		}
		return res, nil
	case answer.ResponseCode != atmnet.RespApproved:
		res.Code = answer.ResponseCode
		res.Kind, res.Message = KindDeclined, declineText(answer.ResponseCode)
		return res, nil
	}
	res.Code, res.AuthCode = answer.ResponseCode, answer.AuthCode
	if wd.fail {
		h.reverse(ctx, req, &res)
		if res.ReversalCode == atmnet.RespApproved {
			res.Kind = KindReversed
			res.Message = "No cash was dispensed. The withdrawal was reversed: the voucher can be collected again."
		} else {
			res.Kind = KindFailed
			res.Message = "No cash was dispensed, but the bank did not confirm the reversal"
			if res.ReversalCode != "" {
				res.Message += " (" + declineText(res.ReversalCode) + ")"
			}
			res.Message += ": the voucher may still show as collected."
		}
		return res, nil
	}
	amount := answer.AmountCents
	if amount <= 0 {
		amount = wd.amountCents
	}
	res.Kind, res.Message = KindApproved, "Please take your cash: "+randText(amount)
	return res, nil
}

func (h *handler) do(ctx context.Context, c *atmnet.Client, req *atmnet.Message) (*atmnet.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	return c.Do(ctx, req)
}

// reverse sends the 0420 of withdrawal req, on c when it is still open, else on a new
// connection, and records its STAN and answer in res.
func (h *handler) reverse(ctx context.Context, req *atmnet.Message, res *result) {
	stan := req.STAN
	for stan == req.STAN {
		stan, _ = atmnet.NewReferences(h.cfg.Now())
	}
	res.ReversalSTAN = stan
	rev := atmnet.NewReversal(req, stan, h.cfg.Now())
	// A fresh connection: the one that timed out may be half broken, and the switch matches
	// a reversal by its references, not by its connection.
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	c, err := atmnet.Dial(dctx, h.cfg.ISOAddr, h.cfg.MACKey)
	cancel()
	if err != nil {
		h.cfg.Logger.WarnContext(ctx, "dev ATM: could not send the reversal", "rrn", req.RRN, "err", err)
		return
	}
	defer c.Close() //nolint:errcheck // the answer is in hand; nothing to do on error
	answer, err := h.do(ctx, c, rev)
	if err != nil {
		h.cfg.Logger.WarnContext(ctx, "dev ATM: no answer to the reversal", "rrn", req.RRN, "err", err)
		return
	}
	res.ReversalCode = answer.ResponseCode
}

// page is what the template renders.
type page struct {
	Form   form
	Errors map[string]string
	Result *result
}

func (p page) Banks() []Bank { return Banks }

func (h *handler) render(w http.ResponseWriter, status int, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The page holds what was typed (never the PIN): no cache keeps it.
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := tmpl.Execute(w, p); err != nil {
		h.cfg.Logger.Warn("dev ATM: render", "err", err)
	}
}

var tmpl = template.Must(template.New("atm").Funcs(template.FuncMap{
	"describedBy": func(errs map[string]string, field string, hint bool) template.HTMLAttr {
		var ids []string
		if hint {
			ids = append(ids, "atm-"+field+"-hint")
		}
		if errs[field] != "" {
			ids = append(ids, "atm-"+field+"-error")
		}
		if len(ids) == 0 {
			return ""
		}
		attr := `aria-describedby="` + strings.Join(ids, " ") + `"`
		if errs[field] != "" {
			attr += ` aria-invalid="true"`
		}
		return template.HTMLAttr(attr) //nolint:gosec // G203: built from fixed element ids only
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thumela dev ATM</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px system-ui,sans-serif;margin:2rem;color:#111;max-width:42rem}
form{display:grid;gap:1rem;margin:1rem 0}
.field{display:flex;flex-direction:column;gap:.25rem}
label{font-weight:600}
.check{display:flex;align-items:center;gap:.5rem}
input,select,button{font:inherit;padding:.4rem .5rem}
button{justify-self:start;padding:.5rem 1.5rem;font-weight:600}
.hint{font-weight:400;color:#444;font-size:.9em;margin:0}
.error{color:#a00;font-weight:600;margin:0}
.screen{border:2px solid #333;border-radius:.5rem;padding:1rem;font-size:1.2em;margin:1rem 0}
.approved,.reversed{background:#eef6ee;border-color:#383}
.declined,.failed{background:#fbeeee;border-color:#a33}
.details{font:13px ui-monospace,monospace;color:#333}
</style>
</head><body>
<main>
<h1>Dev ATM</h1>
<p>A pretend bank ATM for the development stack. It speaks ISO 8583 over TCP to the cash-out
gateway, as an ATM switch does: the PIN travels in a PIN block under the zone PIN key, and every
message carries a MAC under the zone MAC key.
Read the voucher number and PIN in the <a href="/dev/outbox">dev outbox</a>.</p>
{{with .Result}}
<div class="screen {{.Kind}}" {{if .Alert}}role="alert"{{else}}role="status"{{end}}><p>{{.Message}}</p></div>
<p class="details">{{with .Code}}Response code {{.}} · {{end}}ATM {{.TerminalID}} · STAN {{.STAN}} · RRN {{.RRN}}{{with .AuthCode}} · authorization {{.}}{{end}}{{with .ReversalSTAN}} · reversal STAN {{.}}{{end}}{{with .ReversalCode}}, response code {{.}}{{end}}</p>
{{end}}
{{if .Errors}}<div role="alert"><p>Check the highlighted fields: nothing was sent to the bank.</p></div>{{end}}
<form method="post" action="/dev/atm" autocomplete="off" novalidate>
<div class="field">
<label for="atm-bank">Bank</label>
<select id="atm-bank" name="bank" {{describedBy .Errors "bank" false}}>
{{range .Banks}}<option value="{{.Slug}}"{{if eq .Slug $.Form.Bank}} selected{{end}}>{{.Name}}</option>
{{end}}</select>
{{with .Errors.bank}}<p class="error" id="atm-bank-error">{{.}}</p>{{end}}
</div>

<div class="field">
<label for="atm-location">ATM</label>
<input id="atm-location" name="atm" type="text" maxlength="40" list="atm-named" value="{{.Form.ATM}}" {{describedBy .Errors "atm" true}}>
<p class="hint" id="atm-atm-hint">Where the ATM is, as the sender will see it; its terminal id is made from it. Left empty, it is the chosen bank's ATM among the suggestions.</p>
<datalist id="atm-named">{{range .Banks}}<option value="{{.ATM}}"></option>{{end}}</datalist>
{{with .Errors.atm}}<p class="error" id="atm-atm-error">{{.}}</p>{{end}}
</div>

<div class="field">
<label for="atm-voucher">Voucher number</label>
<input id="atm-voucher" name="voucher" type="text" inputmode="numeric" maxlength="24" required value="{{.Form.Voucher}}" {{describedBy .Errors "voucher" false}}>
{{with .Errors.voucher}}<p class="error" id="atm-voucher-error">{{.}}</p>{{end}}
</div>

<div class="field">
<label for="atm-pin">PIN</label>
<input id="atm-pin" name="pin" type="password" inputmode="numeric" maxlength="12" required autocomplete="off" {{describedBy .Errors "pin" false}}>
{{with .Errors.pin}}<p class="error" id="atm-pin-error">{{.}}</p>{{end}}
</div>

<div class="field">
<label for="atm-phone">Phone number</label>
<input id="atm-phone" name="phone" type="tel" maxlength="20" required value="{{.Form.Phone}}" {{describedBy .Errors "phone" true}}>
<p class="hint" id="atm-phone-hint">The recipient's number, which the SMS came to.</p>
{{with .Errors.phone}}<p class="error" id="atm-phone-error">{{.}}</p>{{end}}
</div>

<div class="field">
<label for="atm-amount">Amount</label>
<input id="atm-amount" name="amount" type="text" inputmode="decimal" maxlength="20" required value="{{.Form.Amount}}" {{describedBy .Errors "amount" true}}>
<p class="hint" id="atm-amount-hint">In rand: the voucher's full amount, for example 500.</p>
{{with .Errors.amount}}<p class="error" id="atm-amount-error">{{.}}</p>{{end}}
</div>

<div class="field">
<div class="check"><input id="atm-fail" name="fail" type="checkbox" value="1" aria-describedby="atm-fail-hint"><label for="atm-fail">Fail to dispense</label></div>
<p class="hint" id="atm-fail-hint">The ATM gets the approval but cannot pay out, so it sends a reversal instead of dispensing.</p>
</div>

<button type="submit">Withdraw</button>
</form>
</main>
</body></html>`))
