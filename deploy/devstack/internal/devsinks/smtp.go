package devsinks

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"strings"
	"time"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // bodies in charsets other than UTF-8 and ASCII
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTPConfig configures the SMTP sink.
type SMTPConfig struct {
	// Addr is where it listens (127.0.0.1:0 picks a free port).
	Addr string
	// TLS is what STARTTLS serves; required: the sink, like the providers, takes no password
	// over a clear connection (go-smtp does not offer AUTH before STARTTLS).
	TLS *tls.Config
	// Username and Password are the only credentials AUTH PLAIN accepts.
	Username, Password string
	Outbox             *Outbox
	Logger             *slog.Logger
}

// SMTPSink is a running SMTP server that keeps what it receives in an Outbox.
type SMTPSink struct {
	server   *smtp.Server
	listener net.Listener
	done     chan struct{}
}

// maxMessageBytes bounds one message: Thumela's e-mails are a few kilobytes.
const maxMessageBytes = 1 << 20

// StartSMTP listens on cfg.Addr and serves until Close.
func StartSMTP(cfg SMTPConfig) (*SMTPSink, error) {
	if cfg.TLS == nil || cfg.Username == "" || cfg.Password == "" || cfg.Outbox == nil {
		return nil, errors.New("devsinks: the SMTP sink needs TLS, a username, a password and an outbox")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	l, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("devsinks: SMTP listener: %w", err)
	}
	be := &smtpBackend{cfg: cfg, logger: logger}
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	s.TLSConfig = cfg.TLS
	s.AllowInsecureAuth = false
	s.MaxMessageBytes = maxMessageBytes
	s.MaxRecipients = 50
	s.ReadTimeout = time.Minute
	s.WriteTimeout = time.Minute
	s.ErrorLog = slogPrinter{logger}
	sink := &SMTPSink{server: s, listener: l, done: make(chan struct{})}
	go func() {
		defer close(sink.done)
		if err := s.Serve(l); err != nil && !errors.Is(err, smtp.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			logger.Error("dev SMTP sink stopped", "err", err)
		}
	}()
	return sink, nil
}

// Addr is the address the sink listens on (host:port).
func (s *SMTPSink) Addr() string { return s.listener.Addr().String() }

// Close stops the sink and waits for its connections to end (up to ctx).
func (s *SMTPSink) Close(ctx context.Context) error {
	err := s.server.Shutdown(ctx)
	if err != nil {
		_ = s.server.Close()
	}
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	return err
}

type smtpBackend struct {
	cfg    SMTPConfig
	logger *slog.Logger
}

func (b *smtpBackend) NewSession(_ *smtp.Conn) (smtp.Session, error) {
	return &smtpSession{be: b}, nil
}

// smtpSession is one connection's transaction state. go-smtp calls a session's methods from the
// connection's goroutine only.
type smtpSession struct {
	be            *smtpBackend
	authenticated bool
	from          string
	rcpts         []string
}

var _ smtp.AuthSession = (*smtpSession)(nil)

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if identity != "" && identity != username {
			return smtp.ErrAuthFailed
		}
		okUser := subtle.ConstantTimeCompare([]byte(username), []byte(s.be.cfg.Username))
		okPass := subtle.ConstantTimeCompare([]byte(password), []byte(s.be.cfg.Password))
		if okUser&okPass != 1 {
			return smtp.ErrAuthFailed
		}
		s.authenticated = true
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if !s.authenticated {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !s.authenticated {
		return smtp.ErrAuthRequired
	}
	if _, err := mail.ParseAddress(to); err != nil || !strings.Contains(to, "@") {
		return &smtp.SMTPError{Code: 553, EnhancedCode: smtp.EnhancedCode{5, 1, 3}, Message: "Bad recipient address syntax"}
	}
	s.rcpts = append(s.rcpts, strings.ToLower(to))
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	if !s.authenticated {
		return smtp.ErrAuthRequired
	}
	parsed, err := parseEmail(r)
	if err != nil {
		// Accepting a message the sink cannot read would hide a broken sender.
		s.be.logger.Warn("dev SMTP sink: unreadable message refused", "from", s.from, "err", err)
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "Message content not readable: " + err.Error()}
	}
	now := time.Now().UTC()
	for _, rcpt := range s.rcpts {
		s.be.cfg.Outbox.addEmail(context.Background(), Message{
			ID:        newID(),
			Channel:   ChannelEmail,
			Recipient: rcpt,
			Subject:   parsed.subject,
			Body:      parsed.text,
			Template:  parsed.template,
			CreatedAt: now,
			MessageID: parsed.messageID,
		})
	}
	return nil
}

func (s *smtpSession) Reset() { s.from, s.rcpts = "", nil }

func (s *smtpSession) Logout() error { return nil }

// parsedEmail is what the sink keeps of a message.
type parsedEmail struct {
	subject, text, template, messageID string
}

// parseEmail reads a MIME message and keeps its subject, Message-ID, X-Thumela-Template and its
// first text/plain part that is not an attachment (a single-part text message is that part).
func parseEmail(r io.Reader) (parsedEmail, error) {
	mr, err := mail.CreateReader(r)
	if err != nil && !message.IsUnknownCharset(err) {
		return parsedEmail{}, err
	}
	defer mr.Close() //nolint:errcheck // the message is only read; its Close error says nothing
	var p parsedEmail
	if p.subject, err = mr.Header.Subject(); err != nil {
		p.subject = mr.Header.Get("Subject")
	}
	p.messageID = strings.Trim(strings.TrimSpace(mr.Header.Get("Message-Id")), "<>")
	p.template = strings.TrimSpace(mr.Header.Get("X-Thumela-Template"))
	found := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			return parsedEmail{}, err
		}
		h, ok := part.Header.(*mail.InlineHeader)
		if !ok || found {
			continue
		}
		ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
		if ct != "" && ct != "text/plain" {
			continue
		}
		b, err := io.ReadAll(part.Body)
		if err != nil {
			return parsedEmail{}, err
		}
		p.text = strings.ReplaceAll(string(b), "\r\n", "\n")
		found = true
	}
	if !found {
		return parsedEmail{}, errors.New("no text/plain part")
	}
	return p, nil
}

// slogPrinter gives go-smtp's error log to slog.
type slogPrinter struct{ logger *slog.Logger }

func (p slogPrinter) Printf(format string, v ...any) {
	p.logger.Warn("dev SMTP sink: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}

func (p slogPrinter) Println(v ...any) {
	p.logger.Warn("dev SMTP sink: " + strings.TrimSpace(fmt.Sprintln(v...)))
}
