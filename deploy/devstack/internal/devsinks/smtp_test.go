package devsinks

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	testSMTPUser = "thumela-dev"
	testSMTPPass = "s3cret-dev-password"
)

func startTestSMTP(t *testing.T) (*SMTPSink, *Outbox, SelfSigned) {
	t.Helper()
	cert, err := NewSelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	outbox := NewOutbox(nil, 10)
	sink, err := StartSMTP(SMTPConfig{
		Addr: "127.0.0.1:0", TLS: cert.ServerTLS(), Username: testSMTPUser, Password: testSMTPPass, Outbox: outbox,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close(t.Context()) })
	return sink, outbox, cert
}

// dial connects, says hello and upgrades with STARTTLS, verifying the sink's certificate as
// notifications does: against the pool it was told to trust, for the name it dialled.
func dial(t *testing.T, addr, serverName string, pool *x509.CertPool) *smtp.Client {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	// By the name verified, as net/smtp's PlainAuth checks the server it talks to.
	c, err := smtp.Dial(net.JoinHostPort(serverName, port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Hello("notifications.test"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		t.Fatal("the sink does not offer STARTTLS")
	}
	if err := c.StartTLS(&tls.Config{ServerName: serverName, RootCAs: pool, MinVersion: tls.VersionTLS12}); err != nil {
		t.Fatalf("STARTTLS verifying %s: %v", serverName, err)
	}
	return c
}

// send delivers raw to rcpts over an authenticated client.
func send(t *testing.T, c *smtp.Client, raw string, rcpts ...string) {
	t.Helper()
	if err := c.Mail("no-reply@thumela.co.za"); err != nil {
		t.Fatal(err)
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r); err != nil {
			t.Fatal(err)
		}
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(strings.ReplaceAll(raw, "\n", "\r\n"))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// multipartEmail is shaped like go-mail's output: multipart/alternative, quoted-printable text.
func multipartEmail(messageID, to, code string) string {
	return fmt.Sprintf(`From: Thumela <no-reply@thumela.co.za>
To: <%s>
Subject: =?UTF-8?q?Your_Thumela_verification_code_=E2=80=94_welcome?=
Message-ID: <%s>
X-Thumela-Template: sign_up_code
MIME-Version: 1.0
Date: Mon, 02 Jan 2026 10:00:00 +0200
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

Hi Lerato,

Your verification code is %s. It expires in 15 minutes. A long line that go-mail wraps w=
ith a soft break =E2=80=94 and an em dash.
--b1
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

<p>Your verification code is <strong>%s</strong>.</p>
--b1--
`, to, messageID, code, code)
}

func TestSMTPSinkKeepsTheTextPartOverSTARTTLSAndAuth(t *testing.T) {
	t.Parallel()
	sink, outbox, cert := startTestSMTP(t)
	for _, name := range []string{"127.0.0.1", "localhost"} {
		c := dial(t, sink.Addr(), name, cert.Pool())
		if err := c.Auth(smtp.PlainAuth("", testSMTPUser, testSMTPPass, name)); err != nil {
			t.Fatalf("AUTH PLAIN: %v", err)
		}
		id := "req-" + name + "@thumela.co.za"
		send(t, c, multipartEmail(id, "Lerato@Example.co.za", "123456"), "Lerato@Example.co.za")
		if err := c.Quit(); err != nil {
			t.Fatal(err)
		}
	}
	msgs := outbox.Messages()
	if len(msgs) != 2 {
		t.Fatalf("kept %d messages, want 2: %+v", len(msgs), msgs)
	}
	m := msgs[0]
	if m.Channel != ChannelEmail || m.Recipient != "lerato@example.co.za" || m.Template != "sign_up_code" ||
		m.Subject != "Your Thumela verification code — welcome" || m.MessageID != "req-127.0.0.1@thumela.co.za" || m.Status != "" {
		t.Errorf("kept %+v", m)
	}
	wantBody := "Hi Lerato,\n\nYour verification code is 123456. It expires in 15 minutes. A long line that go-mail wraps with a soft break — and an em dash."
	if m.Body != wantBody {
		t.Errorf("body = %q, want the decoded text part %q", m.Body, wantBody)
	}
	if strings.Contains(m.Body, "<p>") {
		t.Error("the HTML part was kept instead of the text part")
	}
}

func TestSMTPSinkCertificateFromPEMFile(t *testing.T) {
	t.Parallel()
	sink, _, cert := startTestSMTP(t)
	path := filepath.Join(t.TempDir(), CAFileName)
	if err := cert.WritePEM(path); err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("the PEM file holds no certificate")
	}
	dial(t, sink.Addr(), "127.0.0.1", pool)

	// A client that trusts only the system's roots refuses the sink, as it should.
	c, err := smtp.Dial(sink.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.StartTLS(&tls.Config{ServerName: "127.0.0.1", RootCAs: x509.NewCertPool()}); err == nil {
		t.Error("STARTTLS succeeded without trusting the sink's certificate")
	}
}

func TestSMTPSinkRefusesWithoutAuth(t *testing.T) {
	t.Parallel()
	sink, outbox, cert := startTestSMTP(t)

	t.Run("no AUTH before STARTTLS", func(t *testing.T) {
		c, err := smtp.Dial(sink.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Hello("notifications.test"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := c.Extension("AUTH"); ok {
			t.Error("AUTH is offered on a clear connection")
		}
		// net/smtp's PlainAuth would send the password in clear to 127.0.0.1; the sink refuses.
		if err := c.Auth(smtp.PlainAuth("", testSMTPUser, testSMTPPass, "127.0.0.1")); err == nil {
			t.Error("AUTH succeeded without TLS")
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		c := dial(t, sink.Addr(), "127.0.0.1", cert.Pool())
		err := c.Auth(smtp.PlainAuth("", testSMTPUser, "wrong", "127.0.0.1"))
		if err == nil || !strings.HasPrefix(err.Error(), "535") {
			t.Errorf("AUTH with a wrong password: %v, want 535", err)
		}
	})
	t.Run("MAIL without AUTH", func(t *testing.T) {
		c := dial(t, sink.Addr(), "127.0.0.1", cert.Pool())
		if err := c.Mail("no-reply@thumela.co.za"); err == nil {
			t.Error("MAIL accepted without authentication")
		}
	})
	if n := len(outbox.Messages()); n != 0 {
		t.Errorf("kept %d messages", n)
	}
}

// A repeat after the sender's crash carries the same Message-ID: each mailbox keeps one copy,
// as mailbox stores do, and the SMTP answer is still a success.
func TestSMTPSinkDropsARepeatedMessageID(t *testing.T) {
	t.Parallel()
	sink, outbox, cert := startTestSMTP(t)
	c := dial(t, sink.Addr(), "127.0.0.1", cert.Pool())
	if err := c.Auth(smtp.PlainAuth("", testSMTPUser, testSMTPPass, "127.0.0.1")); err != nil {
		t.Fatal(err)
	}
	send(t, c, multipartEmail("r1@thumela.co.za", "a@example.co.za", "111111"), "a@example.co.za")
	send(t, c, multipartEmail("r1@thumela.co.za", "a@example.co.za", "111111"), "a@example.co.za") // the repeat
	send(t, c, multipartEmail("r1@thumela.co.za", "b@example.co.za", "111111"), "b@example.co.za") // another mailbox
	send(t, c, multipartEmail("r2@thumela.co.za", "a@example.co.za", "222222"), "a@example.co.za")
	var got []string
	for _, m := range outbox.Messages() {
		got = append(got, m.Recipient+" "+m.MessageID)
	}
	want := []string{"a@example.co.za r1@thumela.co.za", "b@example.co.za r1@thumela.co.za", "a@example.co.za r2@thumela.co.za"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("kept %v, want %v", got, want)
	}
}

func TestSMTPSinkSinglePartText(t *testing.T) {
	t.Parallel()
	sink, outbox, cert := startTestSMTP(t)
	c := dial(t, sink.Addr(), "localhost", cert.Pool())
	if err := c.Auth(smtp.PlainAuth("", testSMTPUser, testSMTPPass, "localhost")); err != nil {
		t.Fatal(err)
	}
	send(t, c, "From: no-reply@thumela.co.za\nTo: support@thumela.co.za\nSubject: Ticket THM-7Q4K2M\n"+
		"X-Thumela-Template: support_message\nContent-Type: text/plain; charset=utf-8\n\nHello support.\n", "support@thumela.co.za")
	msgs := outbox.Messages()
	if len(msgs) != 1 || msgs[0].Body != "Hello support.\n" || msgs[0].Template != "support_message" || msgs[0].MessageID != "" {
		t.Fatalf("kept %+v", msgs)
	}
}
