package atmnet_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// text is printable ASCII without leading or trailing spaces (fixed fields are space-padded
// on the right, and the padding is not part of the value).
func text(r *rand.Rand, n int) string {
	if n == 0 {
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(' ' + r.IntN(95))
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "x"
	}
	return s
}

func randomMessage(r *rand.Rand) *atmnet.Message {
	m := &atmnet.Message{MTI: []string{"0200", "0210", "0420", "0430", "0800", "0810"}[r.IntN(6)]}
	maybe := func() bool { return r.IntN(3) > 0 }
	if maybe() {
		m.VoucherNumber = digits(r, 1+r.IntN(19))
	}
	if maybe() {
		m.ProcessingCode = digits(r, 6)
	}
	if maybe() {
		m.AmountCents = 1 + r.Int64N(999_999_999_999)
	}
	if maybe() {
		m.TransmissionTime = digits(r, 10)
	}
	if maybe() {
		m.STAN = digits(r, 6)
	}
	if maybe() {
		m.LocalTime, m.LocalDate = digits(r, 6), digits(r, 4)
	}
	if maybe() {
		m.AcquirerID = digits(r, 1+r.IntN(11))
	}
	if maybe() {
		m.RRN = text(r, 12)
		for len(m.RRN) != 12 {
			m.RRN = digits(r, 12)
		}
	}
	if maybe() {
		m.AuthCode = strings.ToUpper(fmt.Sprintf("%06x", r.IntN(1<<24)))
	}
	if maybe() {
		m.ResponseCode = digits(r, 2)
	}
	if maybe() {
		m.TerminalID = text(r, 1+r.IntN(8))
	}
	if maybe() {
		m.AcceptorID = text(r, 1+r.IntN(15))
	}
	if maybe() {
		m.Location = text(r, 1+r.IntN(40))
	}
	if maybe() {
		m.RecipientPhone = text(r, 1+r.IntN(20))
	}
	if maybe() {
		m.Currency = digits(r, 3)
	}
	if maybe() {
		m.PINBlock = make([]byte, atmnet.PINBlockSize)
		for i := range m.PINBlock {
			m.PINBlock[i] = byte(r.IntN(256))
		}
	}
	if maybe() {
		m.PINKeyID = fmt.Sprintf("zpk-%d", r.IntN(1000))
	}
	if maybe() {
		m.NetworkCode = digits(r, 3)
	}
	if maybe() {
		m.OriginalData = digits(r, 42)
	}
	// The MAC fields, each on its own: the round trip of Pack and Unpack is the format's, not
	// the MAC's (mac_test.go checks where PackMAC puts it).
	if r.IntN(4) == 0 {
		m.MAC = randomBytes(r, atmnet.MACSize)
	}
	if r.IntN(4) == 0 {
		m.SecondaryMAC = randomBytes(r, atmnet.MACSize)
	}
	return m
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// Property: every message the spec allows unpacks to what was packed.
func TestPackUnpackRoundTrip(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range 2000 {
		want := randomMessage(r)
		b, err := atmnet.Pack(want)
		if err != nil {
			t.Fatalf("seed %d, #%d: pack %+v: %v", seed, i, want, err)
		}
		got, err := atmnet.Unpack(b)
		if err != nil {
			t.Fatalf("seed %d, #%d: unpack %q: %v", seed, i, b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d, #%d: round trip\n got %+v\nwant %+v", seed, i, got, want)
		}
	}
}

func TestPackRefusesWhatTheSpecDoesNot(t *testing.T) {
	t.Parallel()
	for name, m := range map[string]*atmnet.Message{
		"STAN of 5 digits":     {MTI: "0200", STAN: "12345"},
		"voucher of 20 digits": {MTI: "0200", VoucherNumber: strings.Repeat("1", 20)},
		"terminal of 9":        {MTI: "0200", TerminalID: "ATM123456"},
		"PIN block of 8 bytes": {MTI: "0200", PINBlock: make([]byte, 8)},
	} {
		if _, err := atmnet.Pack(m); !errors.Is(err, atmnet.ErrFormat) {
			t.Errorf("%s: Pack = %v, want ErrFormat", name, err)
		}
	}
	if _, err := atmnet.Unpack([]byte("0200")); !errors.Is(err, atmnet.ErrFormat) {
		t.Errorf("Unpack of a truncated message = %v, want ErrFormat", err)
	}
}

func TestResponse(t *testing.T) {
	t.Parallel()
	for req, want := range map[string]string{"0200": "0210", "0201": "0210", "0420": "0430", "0421": "0430", "0800": "0810"} {
		if got, ok := atmnet.ResponseMTI(req); !ok || got != want {
			t.Errorf("ResponseMTI(%s) = %s, %v; want %s", req, got, ok, want)
		}
	}
	for _, notRequest := range []string{"0210", "0430", "0810", "0202", "02", ""} {
		if got, ok := atmnet.ResponseMTI(notRequest); ok {
			t.Errorf("ResponseMTI(%s) = %s, want none", notRequest, got)
		}
	}

	req := &atmnet.Message{
		MTI: "0200", VoucherNumber: "1234567890", ProcessingCode: "010000", AmountCents: 50000,
		STAN: "000123", RRN: "512345000123", AcquirerID: "250655", TerminalID: "ATM00001",
		RecipientPhone: "0821234567", PINBlock: make([]byte, 16), PINKeyID: "zpk1", Currency: "710",
	}
	res := req.Response(atmnet.RespApproved)
	if res.MTI != "0210" || res.ResponseCode != "00" || res.STAN != req.STAN || res.RRN != req.RRN ||
		res.TerminalID != req.TerminalID || res.AmountCents != req.AmountCents || res.AcquirerID != req.AcquirerID {
		t.Errorf("response %+v does not echo the request's references", res)
	}
	if res.VoucherNumber != "" || res.RecipientPhone != "" || res.PINBlock != nil || res.PINKeyID != "" {
		t.Errorf("response %+v echoes a credential", res)
	}
}

func TestOriginalData(t *testing.T) {
	t.Parallel()
	o := atmnet.OriginalData{MTI: "0200", STAN: "123", TransmissionTime: "1201131500", AcquirerID: "051001"}
	s := o.String()
	if len(s) != 42 || s != "0200000123120113150000000051001"+"00000000000" {
		t.Fatalf("DE 90 = %q", s)
	}
	got, err := atmnet.ParseOriginalData(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.MTI != "0200" || got.STAN != "000123" || got.TransmissionTime != "1201131500" || got.AcquirerID != "00000051001" {
		t.Errorf("parsed %+v", got)
	}
	if _, err := atmnet.ParseOriginalData("12"); !errors.Is(err, atmnet.ErrFormat) {
		t.Errorf("short DE 90: %v", err)
	}
}

func TestFrames(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	payloads := [][]byte{[]byte("0800"), {}, bytes.Repeat([]byte{7}, atmnet.MaxFrameSize)}
	for _, p := range payloads {
		if err := atmnet.WriteFrame(&buf, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := buf.Bytes()[:2]; !bytes.Equal(got, []byte{0, 4}) {
		t.Fatalf("length prefix %x, want 0004 (2 bytes, big-endian)", got)
	}
	for _, want := range payloads {
		got, err := atmnet.ReadFrame(&buf)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("ReadFrame = %d bytes, %v; want %d bytes", len(got), err, len(want))
		}
	}
	if _, err := atmnet.ReadFrame(&buf); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	if _, err := atmnet.ReadFrame(bytes.NewReader([]byte{0, 10, 1, 2})); err != io.ErrUnexpectedEOF {
		t.Errorf("cut inside a frame: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := atmnet.ReadFrame(bytes.NewReader([]byte{0})); err != io.ErrUnexpectedEOF {
		t.Errorf("cut inside the prefix: %v, want io.ErrUnexpectedEOF", err)
	}
	if err := atmnet.WriteFrame(io.Discard, make([]byte, atmnet.MaxFrameSize+1)); !errors.Is(err, atmnet.ErrFrameTooLarge) {
		t.Errorf("oversized frame: %v", err)
	}
}

func TestNewReferences(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 13, 15, 0, 0, time.UTC)
	stan, rrn := atmnet.NewReferences(at)
	if len(stan) != 6 || len(rrn) != 12 || !strings.HasPrefix(rrn, "633513") || !strings.HasSuffix(rrn, stan) {
		t.Errorf("NewReferences = %q, %q", stan, rrn)
	}
}
