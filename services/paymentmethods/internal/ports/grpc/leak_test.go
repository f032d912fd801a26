package grpcport_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/vault"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// leakScanner looks for card data in bytes from anywhere the service writes to.
type leakScanner struct {
	numbers []string // full card numbers that were sent to the service
	cvvs    []string
}

var bytea = regexp.MustCompile(`\\{1,2}x([0-9a-fA-F]{2,})`)

// scan reports every trace of the scanner's numbers and CVVs in data, and every 13-19 digit
// Luhn-valid run (any card number at all).
func (s leakScanner) scan(where string, data []byte) []string {
	var found []string
	// bytea columns (the dump's \x… literals) are decoded and scanned as bytes: a number stored
	// as bytes would show only as hex.
	text := bytea.ReplaceAllFunc(data, func(m []byte) []byte {
		h := bytea.FindSubmatch(m)[1]
		if len(h)%2 == 0 {
			if raw, err := hex.DecodeString(string(h)); err == nil {
				found = append(found, s.scan(where+" (bytea)", raw)...)
			}
		}
		return []byte(" ")
	})
	for _, n := range s.numbers {
		forms := map[string]string{
			"the number":              n,
			"the number in groups":    n[:4] + " " + n[4:8] + " " + n[8:12] + " " + n[12:],
			"the number with dashes":  n[:4] + "-" + n[4:8] + "-" + n[8:12] + "-" + n[12:],
			"the number in hex":       hex.EncodeToString([]byte(n)),
			"the number in HEX":       strings.ToUpper(hex.EncodeToString([]byte(n))),
			"the number in base64":    base64.StdEncoding.EncodeToString([]byte(n)),
			"the number in base64url": base64.RawURLEncoding.EncodeToString([]byte(n)),
			"the number's first 12":   n[:12],
		}
		for what, form := range forms {
			if bytes.Contains(data, []byte(form)) {
				found = append(found, fmt.Sprintf("%s: %s (…%s)", where, what, n[12:]))
			}
		}
	}
	for _, c := range s.cvvs {
		inContext := regexp.MustCompile(`(?i)(cvv|cvc|csc|card.?verification|security.?code)\W{0,16}` + c + `\b`)
		if inContext.Match(data) {
			found = append(found, where+": the CVV next to its name")
		}
		// AddCardRequest.cvv (field 6) as it would be if a request were stored or published.
		if bytes.Contains(data, append([]byte{0x32, 0x03}, c...)) {
			found = append(found, where+": the CVV as a request field")
		}
	}
	for _, run := range luhnRuns(text) {
		found = append(found, fmt.Sprintf("%s: a Luhn-valid run of %d digits ending %s", where, len(run), run[len(run)-4:]))
	}
	return found
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isHex(b byte) bool { return isDigit(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }

// luhnRuns returns every maximal run of 13-19 digits that passes the Luhn check. A run inside
// a longer hexadecimal token that has letters (a trace or span id, a checksum, a hash) is a
// piece of that token, not a number, and is skipped.
func luhnRuns(data []byte) []string {
	var out []string
	for i := 0; i < len(data); {
		if !isDigit(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && isDigit(data[j]) {
			j++
		}
		if n := j - i; n >= 13 && n <= 19 && domain.Luhn(string(data[i:j])) {
			hs, he := i, j
			for hs > 0 && isHex(data[hs-1]) {
				hs--
			}
			for he < len(data) && isHex(data[he]) {
				he++
			}
			token := data[hs:he]
			if !(len(token) >= 16 && bytes.ContainsFunc(token, func(r rune) bool { return !isDigit(byte(r)) })) {
				out = append(out, string(data[i:j]))
			}
		}
		i = j
	}
	return out
}

// pgDump dumps every schema of the database at url.
func pgDump(t *testing.T, url string) []byte {
	t.Helper()
	bin := os.Getenv("PG_DUMP")
	if bin == "" {
		candidates, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
		slices.SortFunc(candidates, compareVersions) // newest major version first
		candidates = append(candidates, "/usr/bin/pg_dump")
		for _, c := range candidates {
			if _, err := os.Stat(c); err == nil {
				bin = c
				break
			}
		}
	}
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("pg_dump"); err != nil {
			t.Fatal("pg_dump not found: install the PostgreSQL client or set PG_DUMP")
		}
	}
	out, err := exec.CommandContext(t.Context(), bin, "--no-owner", "--no-privileges", "--dbname", url).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("pg_dump: %v: %s", err, ee.Stderr)
		}
		t.Fatalf("pg_dump: %v", err)
	}
	return out
}

// compareVersions orders /usr/lib/postgresql/<major>/bin paths newest first.
func compareVersions(a, b string) int {
	major := func(p string) int {
		var n int
		_, _ = fmt.Sscanf(filepath.Base(filepath.Dir(filepath.Dir(p))), "%d", &n)
		return n
	}
	return major(b) - major(a)
}

// streamMessages returns every message of every stream, headers and data.
func streamMessages(t *testing.T, js jetstream.JetStream) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	names := js.StreamNames(t.Context())
	for name := range names.Name() {
		stream, err := js.Stream(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := stream.Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for seq := info.State.FirstSeq; seq > 0 && seq <= info.State.LastSeq; seq++ {
			msg, err := stream.GetMsg(t.Context(), seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			fmt.Fprintf(&b, "%s\n%v\n", msg.Subject, msg.Header)
			b.Write(msg.Data)
			out[fmt.Sprintf("NATS %s #%d (%s)", name, seq, msg.Subject)] = b.Bytes()
		}
	}
	if err := names.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// spanText renders what a trace exporter would send of every recorded span.
func spanText() []byte {
	var b bytes.Buffer
	for _, s := range spans.GetSpans() {
		fmt.Fprintf(&b, "span %s status=%s %q\n", s.Name, s.Status.Code, s.Status.Description)
		for _, a := range s.Attributes {
			fmt.Fprintf(&b, "  %s=%s\n", a.Key, a.Value.String())
		}
		for _, ev := range s.Events {
			fmt.Fprintf(&b, "  event %s\n", ev.Name)
			for _, a := range ev.Attributes {
				fmt.Fprintf(&b, "    %s=%s\n", a.Key, a.Value.String())
			}
		}
		for _, a := range s.Resource.Attributes() {
			fmt.Fprintf(&b, "  resource %s=%s\n", a.Key, a.Value.String())
		}
	}
	return b.Bytes()
}

// After cards are added (one declined, one a duplicate, one invalid), listed, read, edited,
// charged, refunded and used by a transfer, neither a full card number nor a CVV is anywhere:
// not in a dump of the whole database, not in any log line, not in any NATS message, not in
// any API response or error, not in any trace span.
func TestCardDataNeverLeaks(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ctx := e.as(t, u.id)
	transfers := e.asService(t, "transfers")
	visa, mc := cardNumber(t, "4"), cardNumber(t, "2221")
	scanner := leakScanner{
		numbers: []string{visa, mc, sandbox.CardDeclined, sandbox.CardInsufficientFunds},
		cvvs:    []string{"739", "582", "461", "317"},
	}
	var responses []proto.Message
	var errs []error
	call := func(res proto.Message, err error) {
		t.Helper()
		if err != nil {
			errs = append(errs, err)
			return
		}
		responses = append(responses, res)
	}

	add := func(name, number, cvv string, isDefault bool) *paymentmethodsv1.PaymentMethod {
		res, err := e.client.AddCard(ctx, &paymentmethodsv1.AddCardRequest{
			Name: name, CardNumber: number[:4] + " " + number[4:8] + " " + number[8:12] + " " + number[12:],
			ExpiryMonth: 11, ExpiryYear: nextYear(), Cvv: cvv, IsDefault: isDefault,
		})
		call(res, err)
		return res.GetPaymentMethod()
	}
	m1 := add("Everyday", visa, "739", false)
	m2 := add("Travel", mc, "582", true)
	poor := add("Poor", sandbox.CardInsufficientFunds, "317", false)
	if m1 == nil || m2 == nil || poor == nil {
		t.Fatalf("adding cards failed: %v", errs)
	}
	declinedCard := add("Declined", sandbox.CardDeclined, "461", false) // saved; its charges are declined
	add("Again", visa, "739", false)                                    // already saved
	_, err := e.client.AddCard(ctx, &paymentmethodsv1.AddCardRequest{   // expired
		Name: "Old", CardNumber: mc, ExpiryMonth: 1, ExpiryYear: 20, Cvv: "582",
	})
	call(nil, err)
	if declinedCard == nil || len(errs) != 2 {
		t.Fatalf("want the declined card saved and 2 refusals, got %v", errs)
	}

	list, err := e.client.ListPaymentMethods(ctx, &paymentmethodsv1.ListPaymentMethodsRequest{})
	call(list, err)
	got, err := e.client.GetPaymentMethod(ctx, &paymentmethodsv1.GetPaymentMethodRequest{PaymentMethodId: m1.GetId()})
	call(got, err)
	upd, err := e.client.UpdatePaymentMethod(ctx, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: m1.GetId(), Name: "Daily", IsDefault: true})
	call(upd, err)
	def, err := e.client.SetDefaultPaymentMethod(ctx, &paymentmethodsv1.SetDefaultPaymentMethodRequest{PaymentMethodId: m2.GetId()})
	call(def, err)

	transferID := uuid.NewString()
	ch, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m1.GetToken(), AmountCents: 150_000, IdempotencyKey: transferID, Description: "Transfer to Sipho"})
	call(ch, err)
	ch2, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m1.GetToken(), AmountCents: 150_000, IdempotencyKey: transferID})
	call(ch2, err)
	dec, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: poor.GetToken(), AmountCents: 10_000, IdempotencyKey: uuid.NewString()})
	call(dec, err)
	dec2, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: declinedCard.GetToken(), AmountCents: 10_000, IdempotencyKey: uuid.NewString()})
	call(dec2, err)
	if dec2.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED || dec2.GetDeclineCode() != sandbox.CodeCardDeclined {
		t.Fatalf("charge of the declined card: %v", dec2)
	}
	ref, err := e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: ch.GetChargeId(), AmountCents: 150_000, IdempotencyKey: uuid.NewString()})
	call(ref, err)
	if ch.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED || dec.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED || ref == nil {
		t.Fatalf("charges: %v %v %v %v", ch, dec, ref, errs)
	}
	payload, _ := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: transferID, UserId: u.id, PaymentMethodId: m1.GetId(),
		Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING}})
	if _, err := e.js.Publish(t.Context(), "thumela.transfers."+u.id+".status", payload); err != nil {
		t.Fatal(err)
	}
	_, err = e.client.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: m1.GetId()})
	call(nil, err)
	waitFor(t, "the transfer's usage", func() bool {
		return e.count(t, "SELECT count(*) FROM payment_method_usage WHERE source = 'transfer'") == 1
	})
	waitFor(t, "the outbox to drain", func() bool { return e.count(t, "SELECT count(*) FROM outbox WHERE published_at IS NULL") == 0 })

	sources := map[string][]byte{}
	dump := pgDump(t, e.dbURL)
	for _, table := range []string{"payment_methods", "card_vault", "charges", "refunds", "payment_method_usage", "outbox"} {
		if !bytes.Contains(dump, []byte("COPY paymentmethods."+table+" ")) {
			t.Fatalf("the dump has no %s table", table)
		}
	}
	sources["pg_dump"] = dump
	logs := e.logs.Bytes()
	if !bytes.Contains(logs, []byte(`"grpc.method":"/thumela.paymentmethods.v1.PaymentMethodsService/AddCard"`)) {
		t.Fatalf("the service's logs were not captured:\n%s", logs)
	}
	for i, line := range bytes.Split(logs, []byte("\n")) {
		sources[fmt.Sprintf("log line %d", i+1)] = line
	}
	msgs := streamMessages(t, e.js)
	if len(msgs) < 6 {
		t.Fatalf("only %d NATS messages", len(msgs))
	}
	for k, v := range msgs {
		sources[k] = v
	}
	for i, r := range responses {
		j, err := protojson.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		sources[fmt.Sprintf("response %d (JSON)", i)] = j
		sources[fmt.Sprintf("response %d (text)", i)] = []byte(prototext.Format(r))
		b, _ := proto.Marshal(r)
		sources[fmt.Sprintf("response %d (wire)", i)] = b
	}
	for i, err := range errs {
		st := status.Convert(err)
		b, _ := proto.Marshal(st.Proto())
		sources[fmt.Sprintf("error %d", i)] = append([]byte(st.Message()+"\n"), b...)
	}
	sources["trace spans"] = spanText()
	if !bytes.Contains(sources["trace spans"], []byte("AddCard")) {
		t.Fatal("no spans recorded")
	}

	var leaks []string
	for where, data := range sources {
		leaks = append(leaks, scanner.scan(where, data)...)
	}
	if len(leaks) > 0 {
		slices.Sort(leaks)
		t.Fatalf("card data found:\n%s", strings.Join(leaks, "\n"))
	}

	// The scanner itself finds what it looks for.
	probe := []byte(`{"msg":"oops","card":"` + visa + `","cvv":"739","blob":"\\x` + hex.EncodeToString([]byte("x"+mc)) + `","other":"4111111111111111"}`)
	if n := len(scanner.scan("probe", probe)); n < 4 {
		t.Fatalf("the scanner found only %d of the planted leaks", n)
	}
}

// The vault's rows in a dump are useless without the key-encryption key: the stored bytes do
// not contain the number in any encoding, and decrypting them with any other key fails.
func TestDatabaseDumpWithoutTheKEKDecryptsNothing(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	number := cardNumber(t, "4")
	m := e.addCard(t, u, "Card", number, false)

	var (
		sealed      app.Sealed
		fingerprint []byte
		rowText     string
	)
	if err := e.pool.QueryRow(t.Context(), `SELECT v.kek_id, v.wrapped_key, v.ciphertext, pm.fingerprint, row_to_json(pm)::text || row_to_json(v)::text
		FROM card_vault v JOIN payment_methods pm USING (token) WHERE pm.id = $1`, m.GetId()).
		Scan(&sealed.KEKID, &sealed.WrappedKey, &sealed.Ciphertext, &fingerprint, &rowText); err != nil {
		t.Fatal(err)
	}
	if sealed.KEKID != e.keyring.CurrentID() {
		t.Fatalf("kek_id %q, want %q", sealed.KEKID, e.keyring.CurrentID())
	}

	// Nothing stored holds the number: not as text, bytes, hex, BCD, nor as an unkeyed hash.
	bcd, _ := hex.DecodeString(number)
	sum := sha256.Sum256([]byte(number))
	for what, blob := range map[string][]byte{"wrapped key": sealed.WrappedKey, "ciphertext": sealed.Ciphertext, "fingerprint": fingerprint, "rows": []byte(rowText)} {
		for _, form := range [][]byte{[]byte(number), []byte(number[:12]), []byte(number[4:]), bcd, []byte(hex.EncodeToString([]byte(number)))} {
			if bytes.Contains(blob, form) {
				t.Fatalf("%s contains the number", what)
			}
		}
		if bytes.Equal(blob, sum[:]) {
			t.Fatalf("%s is the number's plain SHA-256", what)
		}
	}

	// With the configured KEK it opens (the test is not vacuous)…
	plain, err := e.keyring.Open(m.GetToken(), sealed)
	if err != nil || string(plain) != number {
		t.Fatalf("open with the KEK: %v", err)
	}
	// …with another KEK it does not,
	if _, err := newKeyring(t).Open(m.GetToken(), sealed); !errors.Is(err, vault.ErrUnknownKEK) {
		t.Fatalf("open with another KEK: %v", err)
	}
	// and neither does an attacker who ignores the KEK id and tries keys on the wrapped data
	// key directly (format: version byte, 12-byte nonce, AES-256-GCM output; the additional
	// data is public), nor on the ciphertext.
	aad := []byte("thumela.paymentmethods.dek.v1|" + sealed.KEKID + "|" + m.GetToken())
	for _, key := range [][]byte{randomKey(t, 32), make([]byte, 32), sha256.New().Sum(nil)} {
		for _, blob := range [][]byte{sealed.WrappedKey, sealed.Ciphertext} {
			block, err := aes.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			gcm, _ := cipher.NewGCM(block)
			if _, err := gcm.Open(nil, blob[1:13], blob[13:], aad); err == nil {
				t.Fatal("a wrong key opened a vault blob")
			}
			if _, err := gcm.Open(nil, blob[1:13], blob[13:], []byte("thumela.paymentmethods.card.v1|"+m.GetToken())); err == nil {
				t.Fatal("a wrong key opened a vault blob")
			}
		}
	}
}

// KEK rotation: with the new KEK current and the old one retired, RewrapKeys moves every
// record to the new KEK; from then on the old key is not needed. Without the old key, a
// record under it cannot be charged (the charge stays pending) until it is re-wrapped.
func TestKEKRotation(t *testing.T) {
	t.Parallel()
	oldKEK, err := vault.NewKEK(randomKey(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	newKEK, err := vault.NewKEK(randomKey(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	before := start(t, options{keyring: vault.NewKeyring(oldKEK)})
	u := newUser()
	m := before.addCard(t, u, "Card", cardNumber(t, "4"), false)

	newOnly := start(t, options{keyring: vault.NewKeyring(newKEK), dbURL: before.dbURL})
	req := &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 1000, IdempotencyKey: uuid.NewString()}
	_, err = newOnly.client.Charge(newOnly.asService(t, "transfers"), req)
	wantStatus(t, err, 13 /* Internal */, "internal error")
	if newOnly.processor.charges.Load() != 0 {
		t.Fatal("charged without the card")
	}

	rotating := start(t, options{keyring: vault.NewKeyring(newKEK, oldKEK), dbURL: before.dbURL})
	n, err := rotating.svc.RewrapKeys(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("rewrap: %d %v", n, err)
	}
	if n, _ := rotating.svc.RewrapKeys(context.Background()); n != 0 {
		t.Fatalf("second rewrap changed %d records", n)
	}
	if n := rotating.count(t, "SELECT count(*) FROM card_vault WHERE kek_id = $1", newKEK.ID()); n != 1 {
		t.Fatal("the record is not under the new KEK")
	}
	res, err := newOnly.client.Charge(newOnly.asService(t, "transfers"), req)
	if err != nil || res.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED {
		t.Fatalf("charge after rewrap with the new KEK only: %v %v", res, err)
	}
}
