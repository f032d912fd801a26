package devsinks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"
)

// CAFileName is the file, in Config.DataDir, of the SMTP sink's certificate (PEM), for
// NOTIFICATIONS_SMTP_CA_FILE.
const CAFileName = "dev-smtp-ca.pem"

// Config configures every stand-in.
type Config struct {
	// DataDir receives the SMTP sink's certificate (CAFileName).
	DataDir string
	// SMTPUsername and SMTPPassword are what the SMTP sink's AUTH PLAIN accepts.
	SMTPUsername, SMTPPassword string
	// BulkSMSTokenID and BulkSMSTokenSecret are the API token the BulkSMS stand-in accepts.
	BulkSMSTokenID, BulkSMSTokenSecret string
	// WebhookURL is where the BulkSMS stand-in posts status reports (notifications' webhook).
	WebhookURL string
	// Tools are more dev tools the dev-tools server serves (the ATM).
	Tools  []Tool
	Logger *slog.Logger
}

// Sinks are the running stand-ins, each on its own free loopback port.
type Sinks struct {
	Outbox   *Outbox
	Failures *Failures
	// CAFile is the path of the SMTP sink's certificate.
	CAFile string

	smtp     *SMTPSink
	bulksms  *BulkSMS
	bulkHTTP *httpServer
	devHTTP  *httpServer
}

// Start starts the SMTP sink, the BulkSMS stand-in and the dev-tools server on loopback.
func Start(cfg Config) (_ *Sinks, err error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cert, err := NewSelfSigned()
	if err != nil {
		return nil, err
	}
	s := &Sinks{Outbox: NewOutbox(logger, DefaultOutboxSize), Failures: NewFailures(), CAFile: filepath.Join(cfg.DataDir, CAFileName)}
	defer func() {
		if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Close(ctx)
		}
	}()
	if err := cert.WritePEM(s.CAFile); err != nil {
		return nil, fmt.Errorf("devsinks: write the SMTP certificate: %w", err)
	}
	if s.smtp, err = StartSMTP(SMTPConfig{
		Addr: "127.0.0.1:0", TLS: cert.ServerTLS(), Username: cfg.SMTPUsername, Password: cfg.SMTPPassword,
		Outbox: s.Outbox, Logger: logger,
	}); err != nil {
		return nil, err
	}
	if s.bulksms, err = NewBulkSMS(BulkSMSConfig{
		TokenID: cfg.BulkSMSTokenID, TokenSecret: cfg.BulkSMSTokenSecret, WebhookURL: cfg.WebhookURL,
		Outbox: s.Outbox, Failures: s.Failures, Logger: logger,
	}); err != nil {
		return nil, err
	}
	if s.bulkHTTP, err = serveHTTP("127.0.0.1:0", s.bulksms, logger); err != nil {
		return nil, err
	}
	if s.devHTTP, err = serveHTTP("127.0.0.1:0", NewDevTools(s.Outbox, s.Failures, cfg.Tools...), logger); err != nil {
		return nil, err
	}
	return s, nil
}

// SMTPAddr is the SMTP sink's host:port (NOTIFICATIONS_SMTP_ADDR).
func (s *Sinks) SMTPAddr() string { return s.smtp.Addr() }

// BulkSMSURL is the stand-in's API base, http://127.0.0.1:<port>/v1 (NOTIFICATIONS_BULKSMS_URL).
func (s *Sinks) BulkSMSURL() string { return "http://" + s.bulkHTTP.addr() + "/v1" }

// DevToolsURL is the dev-tools server's base, http://127.0.0.1:<port> (BFF_DEV_TOOLS_URL).
func (s *Sinks) DevToolsURL() string { return "http://" + s.devHTTP.addr() }

// Close stops everything.
func (s *Sinks) Close(ctx context.Context) error {
	var errs []error
	if s.devHTTP != nil {
		errs = append(errs, s.devHTTP.close(ctx))
	}
	if s.bulkHTTP != nil {
		errs = append(errs, s.bulkHTTP.close(ctx))
	}
	if s.bulksms != nil {
		s.bulksms.Close()
	}
	if s.smtp != nil {
		errs = append(errs, s.smtp.Close(ctx))
	}
	return errors.Join(errs...)
}

// httpServer is one stand-in's HTTP listener.
type httpServer struct {
	srv  *http.Server
	l    net.Listener
	done chan struct{}
}

func serveHTTP(addr string, h http.Handler, logger *slog.Logger) (*httpServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("devsinks: listen: %w", err)
	}
	s := &httpServer{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		},
		l:    l,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("dev stand-in HTTP server stopped", "addr", l.Addr().String(), "err", err)
		}
	}()
	return s, nil
}

func (s *httpServer) addr() string { return s.l.Addr().String() }

func (s *httpServer) close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.done
	return err
}
