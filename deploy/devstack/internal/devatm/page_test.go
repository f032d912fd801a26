package devatm

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// screen is what a person (or a browser test) reads of the page after a press of 'Withdraw'.
type screen struct {
	status     int
	body       string
	statusText string // the role="status" region's text
	alertText  string // the role="alert" region's text
	doc        *html.Node
}

func parseScreen(t *testing.T, status int, body string) screen {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the page is not HTML: %v", err)
	}
	s := screen{status: status, body: body, doc: doc}
	for n := range doc.Descendants() {
		switch attr(n, "role") {
		case "status":
			s.statusText += text(n)
		case "alert":
			s.alertText += text(n)
		}
	}
	return s
}

func attr(n *html.Node, key string) string {
	if n.Type != html.ElementNode {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// text is n's text content, white space collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func byID(doc *html.Node, id string) *html.Node {
	for n := range doc.Descendants() {
		if attr(n, "id") == id {
			return n
		}
	}
	return nil
}

// control is the form control labelled name: a <label> whose own text is name, by its for=.
func (s screen) control(t *testing.T, name string) *html.Node {
	t.Helper()
	for n := range s.doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "label" && text(n) == name {
			c := byID(s.doc, attr(n, "for"))
			if c == nil {
				t.Fatalf("the label %q points at no control", name)
			}
			return c
		}
	}
	t.Fatalf("no control labelled %q", name)
	return nil
}

func get(t *testing.T, u string) screen {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return parseScreen(t, resp.StatusCode, string(b))
}

func post(t *testing.T, u string, v url.Values) screen {
	t.Helper()
	resp, err := http.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	return parseScreen(t, resp.StatusCode, string(b))
}

// The page has the fields the issue names, each with its label, and a 'Withdraw' button.
func TestPageHasTheLabelledFields(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(New(Config{ISOAddr: "127.0.0.1:1", Key: testKey(t)}))
	t.Cleanup(srv.Close)
	s := get(t, srv.URL+Path)
	if s.status != http.StatusOK {
		t.Fatalf("GET %s: %d", Path, s.status)
	}
	bank := s.control(t, "Bank")
	if bank.Data != "select" {
		t.Errorf("'Bank' is a <%s>, want a select", bank.Data)
	}
	var names []string
	selected := ""
	for o := range bank.Descendants() {
		if o.Type == html.ElementNode && o.Data == "option" {
			names = append(names, text(o))
			if hasAttr(o, "selected") {
				selected = text(o)
			}
		}
	}
	if strings.Join(names, ", ") != "Standard Bank, ABSA, FNB, Nedbank, Capitec" || selected != "FNB" {
		t.Errorf("'Bank' offers %v with %q selected", names, selected)
	}
	if atm := s.control(t, "ATM"); attr(atm, "type") != "text" || attr(atm, "value") != "FNB ATM Sandton City" {
		t.Errorf("'ATM': type %q, value %q", attr(atm, "type"), attr(atm, "value"))
	}
	if v := s.control(t, "Voucher number"); attr(v, "inputmode") != "numeric" {
		t.Errorf("'Voucher number' has inputmode %q", attr(v, "inputmode"))
	}
	if pin := s.control(t, "PIN"); attr(pin, "type") != "password" || attr(pin, "inputmode") != "numeric" || hasAttr(pin, "value") {
		t.Errorf("'PIN' is %v, want a password field with a numeric keypad and no value", pin.Attr)
	}
	if p := s.control(t, "Phone number"); attr(p, "type") != "tel" {
		t.Errorf("'Phone number' has type %q", attr(p, "type"))
	}
	s.control(t, "Amount")
	if f := s.control(t, "Fail to dispense"); attr(f, "type") != "checkbox" || hasAttr(f, "checked") {
		t.Errorf("'Fail to dispense' is %v, want an unticked checkbox", f.Attr)
	}
	var buttons []string
	for n := range s.doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "button" {
			buttons = append(buttons, text(n))
		}
	}
	if len(buttons) != 1 || buttons[0] != "Withdraw" {
		t.Errorf("buttons %v, want one 'Withdraw'", buttons)
	}
	if s.statusText != "" || s.alertText != "" {
		t.Errorf("a fresh page shows %q / %q", s.statusText, s.alertText)
	}

	// ?bank= chooses the bank and its ATM in advance.
	s = get(t, srv.URL+Path+"?bank=capitec")
	for o := range s.control(t, "Bank").Descendants() {
		if o.Type == html.ElementNode && o.Data == "option" && hasAttr(o, "selected") && text(o) != "Capitec" {
			t.Errorf("?bank=capitec selected %q", text(o))
		}
	}
	if v := attr(s.control(t, "ATM"), "value"); v != "Capitec ATM Maponya Mall" {
		t.Errorf("?bank=capitec: ATM %q", v)
	}
}

// A form that does not check out is sent nowhere and says which field is wrong.
func TestInvalidFormIsNotSent(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(New(Config{ISOAddr: "127.0.0.1:1", Key: testKey(t)}))
	t.Cleanup(srv.Close)
	s := post(t, srv.URL+Path, url.Values{"bank": {"fnb"}, "voucher": {"12ab"}, "pin": {"12"}, "phone": {""}, "amount": {"lots"}})
	if s.status != http.StatusUnprocessableEntity || !strings.Contains(s.alertText, "nothing was sent") {
		t.Fatalf("%d, alert %q", s.status, s.alertText)
	}
	for _, f := range []string{"Voucher number", "PIN", "Phone number", "Amount"} {
		c := s.control(t, f)
		if attr(c, "aria-invalid") != "true" {
			t.Errorf("%s is not marked invalid", f)
		}
		described := false
		for id := range strings.FieldsSeq(attr(c, "aria-describedby")) {
			if e := byID(s.doc, id); e != nil && strings.Contains(attr(e, "class"), "error") && text(e) != "" {
				described = true
			}
		}
		if !described {
			t.Errorf("%s's error is not tied to it (aria-describedby %q)", f, attr(c, "aria-describedby"))
		}
	}
	if v := attr(s.control(t, "Voucher number"), "value"); v != "12ab" {
		t.Errorf("the voucher number typed is not kept: %q", v)
	}
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"500": 50000, "500.00": 50000, "500,5": 50050, "R500": 50000, "R 1 000": 100000, "1,000.00": 100000,
		"1\u00a0000,00": 100000, " 10 ": 1000, "0.01": 1,
	} {
		if got, ok := parseAmount(in); !ok || got != want {
			t.Errorf("parseAmount(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "abc", "1.234", "1e3", "R", "12345678901"} {
		if got, ok := parseAmount(in); ok {
			t.Errorf("parseAmount(%q) = %d, want refused", in, got)
		}
	}
}

func TestRandText(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{50000: "R500.00", 1000: "R10.00", 123456: "R1,234.56", 100000000: "R1,000,000.00", 5: "R0.05"} {
		if got := randText(cents); got != want {
			t.Errorf("randText(%d) = %q, want %q", cents, got, want)
		}
	}
}

// The terminal id fits DE 41 and is the same for the same ATM.
func TestTerminalID(t *testing.T) {
	t.Parallel()
	fnb, _ := bankBySlug("fnb")
	a, b := TerminalID(fnb, "FNB ATM Sandton City"), TerminalID(fnb, " fnb  atm sandton city")
	if len(a) != 8 || !strings.HasPrefix(a, "FNB") || a != b {
		t.Errorf("terminal ids %q, %q", a, b)
	}
	if TerminalID(fnb, "FNB ATM Rosebank") == a {
		t.Error("two ATMs share a terminal id")
	}
}
