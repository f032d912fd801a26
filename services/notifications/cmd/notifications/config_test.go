package main

import (
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/service"
)

func validConfig(t *testing.T) Config {
	t.Helper()
	k, err := seal.GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Base:         service.Base{Environment: "production"},
		SealKeys:     []string{k.String()},
		WebhookAddr:  "127.0.0.1:9091",
		WebhookToken: "0123456789abcdef0123",
		SMTPAddr:     "smtp.example.com:587", SMTPTLS: "starttls",
		MailFrom: "Thumela <no-reply@thumela.co.za>", SupportEmail: "support@thumela.co.za",
		BulkSMSURL: "https://api.bulksms.com/v1", BulkSMSTokenID: "id", BulkSMSTokenSecret: "secret",
		RetryWindow: 24 * time.Hour, SendTimeout: 30 * time.Second,
	}
}

// validate refuses what would make the service unsafe or unable to work, naming the variable
// and never a secret's value.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	if err := func() *Config { c := validConfig(t); return &c }().validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for name, tc := range map[string]struct {
		mod  func(*Config)
		want string
	}{
		"bad seal key":        {func(c *Config) { c.SealKeys = []string{"k1:c2VjcmV0LXNlY3JldA=="} }, "NOTIFICATIONS_SEAL_KEYS"},
		"short token":         {func(c *Config) { c.WebhookToken = "short" }, "NOTIFICATIONS_WEBHOOK_TOKEN"},
		"plain SMTP in prod":  {func(c *Config) { c.SMTPTLS = "none" }, "NOTIFICATIONS_SMTP_TLS=none"},
		"unknown TLS mode":    {func(c *Config) { c.SMTPTLS = "ssl" }, "NOTIFICATIONS_SMTP_TLS"},
		"bad SMTP address":    {func(c *Config) { c.SMTPAddr = "smtp.example.com" }, "NOTIFICATIONS_SMTP_ADDR"},
		"password only":       {func(c *Config) { c.SMTPPassword = "p" }, "NOTIFICATIONS_SMTP_PASSWORD"},
		"missing CA file":     {func(c *Config) { c.SMTPCAFile = "/nonexistent/ca.pem" }, "NOTIFICATIONS_SMTP_CA_FILE"},
		"http BulkSMS":        {func(c *Config) { c.BulkSMSURL = "http://api.bulksms.com/v1" }, "NOTIFICATIONS_BULKSMS_URL"},
		"no BulkSMS token":    {func(c *Config) { c.BulkSMSTokenID, c.BulkSMSTokenSecret = "", "" }, "NOTIFICATIONS_BULKSMS_TOKEN_ID"},
		"half a token":        {func(c *Config) { c.BulkSMSTokenSecret = "" }, "go together"},
		"window too long":     {func(c *Config) { c.RetryWindow = 25 * time.Hour }, "NOTIFICATIONS_RETRY_WINDOW"},
		"bad support e-mail":  {func(c *Config) { c.SupportEmail = "support" }, "NOTIFICATIONS_SUPPORT_EMAIL"},
		"tiny send timeout":   {func(c *Config) { c.SendTimeout = time.Millisecond }, "NOTIFICATIONS_SEND_TIMEOUT"},
		"negative SMS budget": {func(c *Config) { c.SMSPerRecipientPerDay = -1 }, "NOTIFICATIONS_SMS_PER_RECIPIENT_PER_DAY"},
	} {
		c := validConfig(t)
		tc.mod(&c)
		err := c.validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "c2VjcmV0") || strings.Contains(err.Error(), "secret")) {
			t.Errorf("%s: the error quotes a secret: %v", name, err)
		}
	}

	// Development allows plain SMTP, an http stand-in and no BulkSMS credentials.
	dev := validConfig(t)
	dev.Environment = "development"
	dev.SMTPTLS, dev.BulkSMSURL, dev.BulkSMSTokenID, dev.BulkSMSTokenSecret = "none", "http://127.0.0.1:8025/v1", "", ""
	if err := dev.validate(); err != nil {
		t.Fatalf("development config: %v", err)
	}
}
