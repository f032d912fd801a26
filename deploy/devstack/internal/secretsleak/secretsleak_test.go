package secretsleak

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
)

// Streams every one of which the search reads (and any other the server has).
var streams = []string{"THUMELA_EVENTS", "THUMELA_NOTIFICATIONS", "THUMELA_NOTIFICATIONS_DEAD", "THUMELA_ANALYTICS"}

const (
	templateResetCode     = "password_reset_code"
	notificationsSubjects = "thumela.notifications.%"
)

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

// TestNoSecretRestsInTheDatabaseOrOnTheBus: after a sign-up, a password reset and a transfer
// whose voucher SMS was delivered, neither code, nor the PIN, nor the rendered SMS or e-mails
// are in the database or in any stream, or were on the bus at any moment of the test; the
// notification requests have left the outboxes and the work queue.
func TestNoSecretRestsInTheDatabaseOrOnTheBus(t *testing.T) {
	st := stacktest.Start(t, stacktest.Options{Name: "secretsleak", KeepLogEnv: "SECRETSLEAK_KEEP_LOG"})
	ctx := st.Context(t, 5*time.Minute)
	nc, err := stack.ConnectNATS(st.NatsURL, st.NatsObserverSeedFile, "secretsleak-test")
	if err != nil {
		t.Fatalf("connect to the stack's NATS: %v", err)
	}
	t.Cleanup(nc.Close)
	// Requests leave the work queue once delivered; the tap keeps what passed on the bus.
	tap := tapBus(t, nc)
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		t.Fatalf("connect to the stack's database: %v", err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	outbox := st.Outbox()
	fail := func(format string, args ...any) {
		t.Helper()
		st.Fatalf(t, ctx, format, args...)
	}

	// A signed-up, verified user with the sandbox's approving card; the code came by e-mail.
	user := st.NewUser(t, ctx)
	signUpMail, err := outbox.Wait(ctx, 30*time.Second, func(m stacktest.OutboxMessage) bool {
		return m.Channel == "email" && m.Recipient == user.Email && m.Template == bench.TemplateSignUpCode
	})
	if err != nil {
		fail("the sign-up e-mail: %v", err)
	}
	signUpCode := codeIn(t, signUpMail)

	// A password reset code too.
	if _, err := user.Auth.RequestPasswordReset(ctx, &bffv1.RequestPasswordResetRequest{Email: user.Email}); err != nil {
		fail("RequestPasswordReset: %v", err)
	}
	resetMail, err := outbox.Wait(ctx, 30*time.Second, func(m stacktest.OutboxMessage) bool {
		return m.Channel == "email" && m.Recipient == user.Email && m.Template == templateResetCode
	})
	if err != nil {
		fail("the password reset e-mail: %v", err)
	}
	resetCode := codeIn(t, resetMail)

	// Money sent; the voucher SMS delivered by the provider's stand-in.
	sent := st.SendMoney(t, ctx, user, bench.TransferRequest(user), "delivered")
	transfer, sms, pin := sent.Transfer, sent.SMS, sent.PIN
	voucherNumber := transfer.GetVoucher().GetNumber()
	t.Logf("sign-up code, reset code and PIN read from the sinks' copies; voucher %s", voucherNumber)

	// The sender sees the SMS delivered (the notifications service recorded the report).
	if _, err := stacktest.WaitTransfer(ctx, user, transfer.GetId(), 30*time.Second, func(tr *bffv1.Transfer) bool {
		return tr.GetSmsDelivery().GetStatus() == bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_DELIVERED
	}); err != nil {
		t.Errorf("GetTransfer never showed the SMS delivered: %v", err)
	}

	// Requests leave each service's outbox once published...
	var left map[string]int64
	if !stacktest.WaitUntil(30*time.Second, 200*time.Millisecond, func() bool {
		left, err = notificationRowsInOutboxes(ctx, db)
		return err == nil && len(left) == 0
	}) {
		t.Errorf("notification requests still in the outboxes after 30 s (schema: rows): %v %v", left, err)
	}
	// ...and the work queue once delivered.
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	var queued uint64
	if !stacktest.WaitUntil(60*time.Second, 200*time.Millisecond, func() bool {
		s, err := js.Stream(ctx, "THUMELA_NOTIFICATIONS")
		if err != nil {
			return false
		}
		info, err := s.Info(ctx)
		if err != nil {
			return false
		}
		queued = info.State.Msgs
		return queued == 0
	}) {
		t.Errorf("THUMELA_NOTIFICATIONS still holds %d requests after every message was delivered (a work queue keeps only what is undelivered)", queued)
	}

	// The requests that went over the bus kept the PIN sealed.
	checkVoucherRequest(t, tap)

	// The search.
	var needles []Needle
	needles = append(needles, CodeNeedles("the sign-up code", signUpCode)...)
	needles = append(needles, CodeNeedles("the password reset code", resetCode)...)
	needles = append(needles, PINNeedles(pin)...)
	needles = append(needles, TextNeedles("the voucher SMS", sms.Body, pin, voucherNumber)...)
	needles = append(needles, TextNeedles("the sign-up e-mail", signUpMail.Body, signUpCode)...)
	needles = append(needles, TextNeedles("the reset e-mail", resetMail.Body, resetCode)...)

	var findings []Finding
	dump := dumpDatabase(t, ctx, st.DatabaseURL)
	findings = append(findings, searchDump(t, dump, needles)...)
	findings = append(findings, searchStreams(t, ctx, js, needles)...)
	findings = append(findings, tap.search(t, needles)...)
	if len(findings) > 0 {
		var lines []string
		for _, f := range findings {
			lines = append(lines, f.String())
		}
		t.Errorf("secrets at rest or in transit in clear:\n  - %s", strings.Join(lines, "\n  - "))
	}
}

func codeIn(t *testing.T, m stacktest.OutboxMessage) string {
	t.Helper()
	all := sixDigits.FindAllString(m.Body, -1)
	if len(all) != 1 {
		t.Fatalf("the %s e-mail should hold its code as its only six digits: %q", m.Template, m.Body)
	}
	return all[0]
}

// notificationRowsInOutboxes counts, per schema, the outbox rows of notification requests.
func notificationRowsInOutboxes(ctx context.Context, db *pgx.Conn) (map[string]int64, error) {
	rows, err := db.Query(ctx, `SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox'`)
	if err != nil {
		return nil, err
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	left := map[string]int64{}
	for _, schema := range schemas {
		var n int64
		q := `SELECT count(*) FROM ` + pgx.Identifier{schema, "outbox"}.Sanitize() + ` WHERE subject LIKE $1`
		if err := db.QueryRow(ctx, q, notificationsSubjects).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s.outbox: %w", schema, err)
		}
		if n > 0 {
			left[schema] = n
		}
	}
	return left, nil
}

// pgDump finds pg_dump: on the PATH, or among Debian's server binaries.
func pgDump(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("pg_dump"); err == nil {
		return p
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	if len(matches) == 0 {
		t.Fatal("pg_dump not found (Debian: apt-get install postgresql-client)")
	}
	slices.Sort(matches)
	return matches[len(matches)-1]
}

// dumpDatabase is every row of the stack's database, as pg_dump writes it (text COPY format,
// bytea as hex).
func dumpDatabase(t *testing.T, ctx context.Context, databaseURL string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, pgDump(t), "--data-only", "--no-privileges", "--dbname="+databaseURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pg_dump: %v: %s", err, stderr.String())
	}
	return out
}

// searchDump searches the dump row by row, naming each row's table.
func searchDump(t *testing.T, dump []byte, needles []Needle) []Finding {
	t.Helper()
	var out []Finding
	table, rows := "", 0
	tables := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(dump))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("COPY ")):
			table = string(bytes.Fields(line)[1])
			continue
		case bytes.Equal(line, []byte(`\.`)):
			table = ""
			continue
		case table != "":
			rows++
			tables[table]++
		}
		where := "the database dump"
		if table != "" {
			where = "table " + table
		}
		out = append(out, Search(where, line, false, needles)...)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read the dump: %v", err)
	}
	// The dump must hold what the scenario wrote, or the search proves nothing.
	for _, want := range []string{"identity.users", "transfers.transfers", "notifications.deliveries"} {
		if tables[want] == 0 {
			t.Errorf("the dump has no rows of %s (tables: %v)", want, tables)
		}
	}
	t.Logf("searched %d rows of %d tables", rows, len(tables))
	return out
}

// searchStreams reads every message of every stream by sequence (a work queue admits no second
// consumer; a direct get reads it all the same).
func searchStreams(t *testing.T, ctx context.Context, js jetstream.JetStream, needles []Needle) []Finding {
	t.Helper()
	names := js.StreamNames(ctx)
	var all []string
	for n := range names.Name() {
		all = append(all, n)
	}
	if err := names.Err(); err != nil {
		t.Fatalf("list streams: %v", err)
	}
	for _, want := range streams {
		if !slices.Contains(all, want) {
			t.Errorf("no stream %s (streams: %v)", want, all)
		}
	}
	var out []Finding
	counts := map[string]int{}
	for _, name := range all {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		if info.State.Msgs == 0 {
			counts[name] = 0
			continue
		}
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
			m, err := s.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				t.Fatalf("stream %s message %d: %v", name, seq, err)
			}
			counts[name]++
			out = append(out, searchMsg(fmt.Sprintf("stream %s #%d (%s)", name, seq, m.Subject), m.Subject, m.Header, m.Data, needles)...)
		}
		if name == "THUMELA_NOTIFICATIONS_DEAD" && counts[name] > 0 {
			t.Errorf("%d notification requests were dead-lettered in a scenario where every one can be sent", counts[name])
		}
	}
	if counts["THUMELA_EVENTS"] == 0 {
		t.Error("THUMELA_EVENTS is empty: the scenario's events are missing, the search proves nothing")
	}
	t.Logf("searched the streams' messages: %v", counts)
	return out
}

func searchMsg(where, subject string, h nats.Header, data []byte, needles []Needle) []Finding {
	var head bytes.Buffer
	head.WriteString(subject + "\n")
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			fmt.Fprintf(&head, "%s: %s\n", k, v)
		}
	}
	out := Search(where+" headers", head.Bytes(), false, needles)
	return append(out, Search(where, data, true, needles)...)
}

// busTap keeps every message published under thumela.> while the test runs.
type busTap struct {
	mu   sync.Mutex
	msgs []*nats.Msg
}

func tapBus(t *testing.T, nc *nats.Conn) *busTap {
	t.Helper()
	tap := &busTap{}
	sub, err := nc.Subscribe("thumela.>", func(m *nats.Msg) {
		tap.mu.Lock()
		tap.msgs = append(tap.msgs, m)
		tap.mu.Unlock()
	})
	if err != nil {
		t.Fatalf("tap NATS: %v", err)
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatalf("tap NATS: %v", err)
	}
	return tap
}

func (tap *busTap) messages() []*nats.Msg {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	return slices.Clone(tap.msgs)
}

func (tap *busTap) search(t *testing.T, needles []Needle) []Finding {
	t.Helper()
	var out []Finding
	msgs := tap.messages()
	requests := 0
	for i, m := range msgs {
		if strings.HasPrefix(m.Subject, "thumela.notifications.") {
			requests++
		}
		out = append(out, searchMsg(fmt.Sprintf("the bus, message %d (%s)", i, m.Subject), m.Subject, m.Header, m.Data, needles)...)
	}
	if requests == 0 {
		t.Error("no notification request passed on the bus while the test ran: the tap proves nothing")
	}
	t.Logf("searched %d messages seen on the bus, %d of them notification requests", len(msgs), requests)
	return out
}

// checkVoucherRequest finds the voucher SMS request on the bus: it names its template, carries
// sealed secrets, and no PIN or voucher number among its plain params.
func checkVoucherRequest(t *testing.T, tap *busTap) {
	t.Helper()
	for _, m := range tap.messages() {
		if !strings.HasPrefix(m.Subject, "thumela.notifications.") || !strings.HasSuffix(m.Subject, ".sms") {
			continue
		}
		var req notificationsv1.NotificationRequest
		if err := proto.Unmarshal(m.Data, &req); err != nil || req.GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED {
			continue
		}
		if req.GetSecrets().GetKeyId() == "" || len(req.GetSecrets().GetBox()) == 0 {
			t.Errorf("the voucher SMS request carries no sealed secrets: %v", &req)
		}
		for k := range req.GetParams() {
			if k == "pin" || k == "voucher_number" {
				t.Errorf("the voucher SMS request has %q among its plain params", k)
			}
		}
		return
	}
	t.Error("no VOUCHER_ISSUED request was seen on thumela.notifications.*.sms")
}
