package main

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"time"

	"github.com/thumela/thumela/services/notifications/internal/adapters/smtp"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/service"
)

// Config is the service's configuration: the shared settings (NOTIFICATIONS_GRPC_ADDR,
// DATABASE_URL, NATS_URL, IDENTITY_ADDR, THUMELA_ENV, NOTIFICATIONS_METRICS_ADDR, …) and its
// own, NOTIFICATIONS_-prefixed.
type Config struct {
	service.Base
	// SealKeys are the private keys that open the requests' secrets, "<kid>:<base64>" each: the
	// current one and the retired ones still needed for requests sealed before a rotation.
	SealKeys []string `env:"SEAL_KEYS" required:"true" secret:"true"`

	// WebhookAddr is the HTTP listener for the SMS provider's delivery reports.
	WebhookAddr string `env:"WEBHOOK_ADDR" default:"127.0.0.1:9091"`
	// WebhookToken is the secret path segment of the URL registered with the provider:
	// POST {public}/webhooks/bulksms/<token>.
	WebhookToken string `env:"WEBHOOK_TOKEN" required:"true" secret:"true"`

	SMTPAddr     string `env:"SMTP_ADDR" required:"true"`
	SMTPTLS      string `env:"SMTP_TLS" default:"starttls"`
	SMTPUsername string `env:"SMTP_USERNAME"`
	SMTPPassword string `env:"SMTP_PASSWORD" secret:"true"`
	SMTPCAFile   string `env:"SMTP_CA_FILE"`
	MailFrom     string `env:"MAIL_FROM" default:"Thumela <no-reply@thumela.co.za>"`
	SupportEmail string `env:"SUPPORT_EMAIL" default:"support@thumela.co.za"`

	BulkSMSURL         string `env:"BULKSMS_URL" default:"https://api.bulksms.com/v1"`
	BulkSMSTokenID     string `env:"BULKSMS_TOKEN_ID"`
	BulkSMSTokenSecret string `env:"BULKSMS_TOKEN_SECRET" secret:"true"`
	SMSSender          string `env:"SMS_SENDER"`

	// RetryWindow: transient failures are retried this long after the first attempt.
	RetryWindow time.Duration `env:"RETRY_WINDOW" default:"24h"`
	// SendTimeout bounds one hand-over to the SMTP server or the SMS provider. The attempt's
	// lease is twice as long and JetStream's AckWait three times.
	SendTimeout time.Duration `env:"SEND_TIMEOUT" default:"30s"`
	// SMSPerRecipientPerDay is how many SMS one number may get in any 24 hours on one sender's
	// behalf (0: no budget). Ten vouchers a day to one person is far above what families send;
	// one account's flood stops there. It is each sender's, so that a stranger's sends cannot
	// use up the budget of everyone else who sends to the number.
	SMSPerRecipientPerDay int `env:"SMS_PER_RECIPIENT_PER_DAY" default:"10"`
}

// minWebhookToken is the shortest webhook token accepted: it is the webhook's only
// authentication, so it must not be guessable.
const minWebhookToken = 16

// validate checks what the tags cannot. Errors name the variable, never a secret's value.
func (c *Config) validate() error {
	var errs []error
	if _, err := seal.ParseKeyring(c.SealKeys); err != nil {
		errs = append(errs, fmt.Errorf("NOTIFICATIONS_SEAL_KEYS: %w", err))
	}
	if len(c.WebhookToken) < minWebhookToken {
		errs = append(errs, fmt.Errorf("NOTIFICATIONS_WEBHOOK_TOKEN must be at least %d characters", minWebhookToken))
	}
	if _, _, err := net.SplitHostPort(c.WebhookAddr); err != nil {
		errs = append(errs, errors.New("NOTIFICATIONS_WEBHOOK_ADDR must be host:port"))
	}
	if _, _, err := net.SplitHostPort(c.SMTPAddr); err != nil {
		errs = append(errs, errors.New("NOTIFICATIONS_SMTP_ADDR must be host:port"))
	}
	switch c.SMTPTLS {
	case smtp.TLSStartTLS, smtp.TLSImplicit:
	case smtp.TLSNone:
		if !c.Development() {
			errs = append(errs, errors.New("NOTIFICATIONS_SMTP_TLS=none is allowed only with THUMELA_ENV=development"))
		}
	default:
		errs = append(errs, errors.New("NOTIFICATIONS_SMTP_TLS must be starttls, implicit or none"))
	}
	if c.SMTPPassword != "" && c.SMTPUsername == "" {
		errs = append(errs, errors.New("NOTIFICATIONS_SMTP_PASSWORD is set without NOTIFICATIONS_SMTP_USERNAME"))
	}
	if c.SMTPCAFile != "" {
		if _, err := os.Stat(c.SMTPCAFile); err != nil {
			errs = append(errs, fmt.Errorf("NOTIFICATIONS_SMTP_CA_FILE: %w", err))
		}
	}
	if _, err := mail.ParseAddress(c.MailFrom); err != nil {
		errs = append(errs, errors.New("NOTIFICATIONS_MAIL_FROM is not an address"))
	}
	if !domain.ValidEmail(c.SupportEmail) {
		errs = append(errs, errors.New("NOTIFICATIONS_SUPPORT_EMAIL is not an e-mail address"))
	}
	if u, err := url.Parse(c.BulkSMSURL); err != nil || u.Host == "" ||
		!(u.Scheme == "https" || u.Scheme == "http" && c.Development()) {
		errs = append(errs, errors.New("NOTIFICATIONS_BULKSMS_URL must be an https URL (http only in development)"))
	}
	if (c.BulkSMSTokenID == "") != (c.BulkSMSTokenSecret == "") {
		errs = append(errs, errors.New("NOTIFICATIONS_BULKSMS_TOKEN_ID and NOTIFICATIONS_BULKSMS_TOKEN_SECRET go together"))
	} else if c.BulkSMSTokenID == "" && !c.Development() {
		errs = append(errs, errors.New("NOTIFICATIONS_BULKSMS_TOKEN_ID and NOTIFICATIONS_BULKSMS_TOKEN_SECRET are required outside development"))
	}
	// The stream keeps a request bus.NotificationRetention: retrying longer than that would
	// find it gone.
	if c.RetryWindow <= 0 || c.RetryWindow >= bus.NotificationRetention {
		errs = append(errs, fmt.Errorf("NOTIFICATIONS_RETRY_WINDOW must be positive and shorter than %s", bus.NotificationRetention))
	}
	if c.SendTimeout < time.Second || c.SendTimeout > 5*time.Minute {
		errs = append(errs, errors.New("NOTIFICATIONS_SEND_TIMEOUT must be between 1s and 5m"))
	}
	if c.SMSPerRecipientPerDay < 0 {
		errs = append(errs, errors.New("NOTIFICATIONS_SMS_PER_RECIPIENT_PER_DAY must be 0 (no budget) or more"))
	}
	if p := os.Getenv(crashPointVar); p != "" && p != app.CheckpointAfterSend {
		errs = append(errs, fmt.Errorf("%s must be empty or %s", crashPointVar, app.CheckpointAfterSend))
	}
	return errors.Join(errs...)
}
