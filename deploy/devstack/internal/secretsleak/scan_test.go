package secretsleak

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The search must find a secret wherever a careless service could put it, and must not take a
// timestamp, a hash or an amount for one: a false alarm would teach people to ignore the test.
func TestSearchFindsTheCodeOnlyAsAWholeNumber(t *testing.T) {
	t.Parallel()
	code := CodeNeedles("the code", "123456")
	for _, clean := range []string{
		"2026-03-25 11:12:00.123456+00",            // microseconds
		"\\x0a10ab123456cdef",                      // hex of bytea
		"0196d0a1-1234-7123-a123-4561234567ab",     // a UUID
		"1234567\t7123456",                         // longer numbers
		"$argon2id$v=19$m=65536,t=3,p=4$abc123456", // a hash
	} {
		if f := Search("dump", []byte(clean), false, code); len(f) > 0 {
			t.Errorf("found %v in %q", f, clean)
		}
	}
	for _, leak := range []string{
		"Your verification code is 123456. It expires",
		`{"code": "123456"}`,
		"u1\tsign_up\t123456\t2026-01-01",
		"\\x0a06313233343536", // the code inside a bytea (a clear proto)
	} {
		if f := Search("dump", []byte(leak), false, code); len(f) == 0 {
			t.Errorf("missed the code in %q", leak)
		}
	}
	// In a protobuf message a string field's neighbour is a tag byte, which may be a digit
	// ('2' is field 6, length-delimited): the field is searched on its own.
	msg := protowire.AppendTag(nil, 5, protowire.BytesType)
	msg = protowire.AppendString(msg, "123456")
	msg = protowire.AppendTag(msg, 6, protowire.BytesType)
	msg = protowire.AppendString(msg, "x")
	outer := protowire.AppendTag(nil, 1, protowire.BytesType)
	outer = protowire.AppendBytes(outer, msg)
	if f := Search("stream", outer, false, code); len(f) != 0 && !strings.Contains(f[0].What, "hex") {
		t.Logf("found without nesting: %v", f)
	}
	if f := Search("stream", outer, true, code); len(f) == 0 {
		t.Error("missed the code in a nested protobuf field")
	}
}

func TestSearchFindsThePINOnlyInContext(t *testing.T) {
	t.Parallel()
	pin := PINNeedles("4821")
	for _, clean := range []string{"R4,821.00", "amount_cents 4821", "2026-01-01 04:48:21", "Ref THM-4821", "PIN_HASH 9f4821"} {
		if f := Search("dump", []byte(clean), true, pin); len(f) > 0 {
			t.Errorf("found %v in %q", f, clean)
		}
	}
	entry := protowire.AppendTag(nil, 1, protowire.BytesType)
	entry = protowire.AppendString(entry, "pin")
	entry = protowire.AppendTag(entry, 2, protowire.BytesType)
	entry = protowire.AppendString(entry, "4821")
	params := protowire.AppendTag(nil, 5, protowire.BytesType)
	params = protowire.AppendBytes(params, entry)
	for _, leak := range [][]byte{
		[]byte("Voucher number 1234567890, PIN 4821. Withdraw"),
		[]byte("pin: 4821"),
		[]byte(`{"voucher_number": "1234567890", "pin": "4821"}`),
		[]byte("PIN=4821"),
		params,
		[]byte("\\x2a0b0a0370696e1204" + "34383231"), // that map entry in a bytea
	} {
		if f := Search("dump", leak, true, pin); len(f) == 0 {
			t.Errorf("missed the PIN in %q", leak)
		}
	}
}

func TestTextNeedlesAreTheBodyAndItsSecretSentences(t *testing.T) {
	t.Parallel()
	body := "Thumela: Thabo sent you R150.00. Voucher number 1234567890, PIN 4821. Withdraw at any ATM. Never share your PIN."
	needles := TextNeedles("the SMS", body, "4821")
	var got []string
	for _, n := range needles {
		got = append(got, string(n.Value))
	}
	want := []string{body, "Voucher number 1234567890, PIN 4821"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("needles %q, want %q", got, want)
	}
	if f := Search("dump", []byte("x\tVoucher number 1234567890, PIN 4821\ty"), false, needles); len(f) == 0 {
		t.Error("missed a sentence of the SMS")
	}
	if f := Search("dump", []byte("Never share your PIN."), false, needles); len(f) != 0 {
		t.Errorf("a sentence without a secret counted: %v", f)
	}
}
