// Package testkit holds the notifications service's test doubles that speak the real
// protocols (an SMTP server, the BulkSMS API) and the harness that wires the service against
// them, a real PostgreSQL and an embedded NATS. Tests only.
package testkit

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

// Mail is one message the SMTP server accepted.
type Mail struct {
	From, To  string
	MessageID string
	Template  string // X-Thumela-Template
	Subject   string
	ReplyTo   string
	Text      string // the text/plain part, decoded
	HTML      string // the text/html part, decoded
	Raw       []byte
}

// SMTPServer is an SMTP server for tests: STARTTLS with a self-signed certificate (CAFile
// holds it, for the client to trust), AUTH PLAIN required, and a mailbox that keeps one
// message per Message-ID, as Gmail and the dev sink do. It can refuse a recipient for good
// (550) or for a while (451).
type SMTPServer struct {
	Addr               string
	CAFile             string
	Username, Password string

	mu        sync.Mutex
	accepted  []Mail          // every DATA accepted, repeats included
	kept      []Mail          // one per Message-ID
	seen      map[string]bool // Message-IDs kept
	permanent map[string]bool
	transient map[string]int // recipient → refusals left
	changed   chan struct{}
	conns     []*gosmtp.Conn // every connection opened, in order
}

// StartSMTP starts a server on a loopback port; it stops when the test ends.
func StartSMTP(t testing.TB) *SMTPServer {
	t.Helper()
	certPEM, cert := selfSigned(t)
	caFile := filepath.Join(t.TempDir(), "smtp-ca.pem")
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	s := &SMTPServer{
		CAFile: caFile, Username: "thumela", Password: "smtp-secret",
		seen: map[string]bool{}, permanent: map[string]bool{}, transient: map[string]int{},
		changed: make(chan struct{}),
	}
	srv := gosmtp.NewServer(gosmtp.BackendFunc(func(c *gosmtp.Conn) (gosmtp.Session, error) {
		// A session starts at every EHLO, so twice on a STARTTLS connection: count connections.
		s.mu.Lock()
		if !slices.Contains(s.conns, c) {
			s.conns = append(s.conns, c)
		}
		s.mu.Unlock()
		return &smtpSession{srv: s}, nil
	}))
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 4 << 20
	srv.MaxRecipients = 10
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Connections is how many connections clients have opened so far.
func (s *SMTPServer) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// DropConnections closes every open connection without a word, as a server does with idle
// sessions past its timeout.
func (s *SMTPServer) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Conn().Close()
	}
}

// selfSigned makes a certificate for 127.0.0.1 and localhost.
func selfSigned(t testing.TB) ([]byte, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "thumela test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, cert
}

// FailPermanently makes the server refuse rcpt with 550 from now on.
func (s *SMTPServer) FailPermanently(rcpt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.permanent[strings.ToLower(rcpt)] = true
}

// FailTransiently makes the server refuse rcpt with 451 the next n times.
func (s *SMTPServer) FailTransiently(rcpt string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transient[strings.ToLower(rcpt)] = n
}

// Accepted is how many messages' data the server accepted for rcpt, repeats included.
func (s *SMTPServer) Accepted(rcpt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.accepted {
		if strings.EqualFold(m.To, rcpt) {
			n++
		}
	}
	return n
}

// Kept returns the mailbox of rcpt: one message per Message-ID.
func (s *SMTPServer) Kept(rcpt string) []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Mail
	for _, m := range s.kept {
		if strings.EqualFold(m.To, rcpt) {
			out = append(out, m)
		}
	}
	return out
}

// WaitKept waits until rcpt's mailbox holds n messages and returns them.
func (s *SMTPServer) WaitKept(t testing.TB, rcpt string, n int, within time.Duration) []Mail {
	t.Helper()
	deadline := time.After(within)
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if got := s.Kept(rcpt); len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("mailbox of %s: %d messages after %s, want %d", rcpt, len(s.Kept(rcpt)), within, n)
		}
	}
}

func (s *SMTPServer) store(m Mail) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accepted = append(s.accepted, m)
	if m.MessageID == "" || !s.seen[m.MessageID] {
		s.seen[m.MessageID] = true
		s.kept = append(s.kept, m)
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

type smtpSession struct {
	srv    *SMTPServer
	authed bool
	from   string
	rcpts  []string
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != s.srv.Username || password != s.srv.Password {
			return gosmtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *gosmtp.MailOptions) error {
	if !s.authed {
		return gosmtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if !s.authed {
		return gosmtp.ErrAuthRequired
	}
	key := strings.ToLower(to)
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	if s.srv.permanent[key] {
		return &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "mailbox unavailable: " + to}
	}
	if s.srv.transient[key] > 0 {
		s.srv.transient[key]--
		return &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.rcpts = append(s.rcpts, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	for _, to := range s.rcpts {
		m, err := parseMail(raw)
		if err != nil {
			return &gosmtp.SMTPError{Code: 554, EnhancedCode: gosmtp.EnhancedCode{5, 6, 0}, Message: "unreadable message: " + err.Error()}
		}
		m.From, m.To = s.from, to
		s.srv.store(m)
	}
	return nil
}

func (s *smtpSession) Reset()        { s.from, s.rcpts = "", nil }
func (s *smtpSession) Logout() error { return nil }

// parseMail reads the headers and the text and HTML parts of a message.
func parseMail(raw []byte) (Mail, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Mail{}, err
	}
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return Mail{}, err
	}
	m := Mail{
		MessageID: strings.TrimSpace(msg.Header.Get("Message-Id")),
		Template:  msg.Header.Get("X-Thumela-Template"),
		Subject:   subject,
		ReplyTo:   msg.Header.Get("Reply-To"),
		Raw:       raw,
	}
	if err := readParts(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, &m); err != nil {
		return Mail{}, err
	}
	return m, nil
}

func readParts(contentType, encoding string, body io.Reader, m *Mail) error {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := readParts(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, m); err != nil {
				return err
			}
		}
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	switch mediaType {
	case "text/plain":
		m.Text = text
	case "text/html":
		m.HTML = text
	default:
		return fmt.Errorf("unexpected part %s", mediaType)
	}
	return nil
}
