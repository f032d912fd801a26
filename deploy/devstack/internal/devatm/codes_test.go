package devatm

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

// Every response code atmnet defines has its sentence on the ATM's screen: the test reads the
// constants from atmnet's source, so a code added there fails here until it is worded.
func TestEveryResponseCodeHasASentence(t *testing.T) {
	t.Parallel()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "..", "services", "cashout", "atmnet")
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	codes := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatalf("read atmnet's source: %v", err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Resp") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						codes[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	if len(codes) < 10 {
		t.Fatalf("found only %d response codes in %s: %v", len(codes), dir, codes)
	}
	for name, code := range codes {
		if code == atmnet.RespApproved {
			continue
		}
		s, ok := declines[code]
		if !ok {
			t.Errorf("atmnet.%s (%s) has no sentence on the ATM's screen", name, code)
			continue
		}
		if !strings.HasSuffix(s, ".") || strings.Contains(s, code) {
			t.Errorf("atmnet.%s: %q is not a sentence in words", name, s)
		}
	}
	for code := range declines {
		found := false
		for _, c := range codes {
			found = found || c == code
		}
		if !found {
			t.Errorf("a sentence for %s, which atmnet does not define", code)
		}
	}
}

// The sentences the issue and the browser tests rely on.
func TestDeclineSentences(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]string{
		atmnet.RespIncorrectPIN:      "Incorrect PIN, voucher number or phone number.",
		atmnet.RespPINTriesExceeded:  "Too many incorrect attempts: this voucher is locked for 24 hours.",
		atmnet.RespExpired:           "This voucher has expired.",
		atmnet.RespInvalidAmount:     "The amount must be the voucher's full amount.",
		atmnet.RespIssuerUnavailable: "The bank cannot be reached right now. Try again.",
	} {
		if got := declineText(code); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
	if got := declineText("99"); !strings.Contains(got, "99") {
		t.Errorf("an unknown code reads %q", got)
	}
}
