package main

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/notifications/internal/testkit"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// peers are the protocol doubles the binary talks to: an SMTP server (STARTTLS, AUTH) and
// the BulkSMS API, with the key the requests' secrets are sealed to.
type peers struct {
	smtp        *testkit.SMTPServer
	sms         *testkit.BulkSMS
	key         seal.PrivateKey
	webhookAddr string
}

// newPeers starts the doubles; with reports, BulkSMS reports every message delivered to the
// binary's webhook.
func newPeers(t *testing.T, reports bool) *peers {
	t.Helper()
	key, err := seal.GenerateKey("k2")
	if err != nil {
		t.Fatal(err)
	}
	p := &peers{smtp: testkit.StartSMTP(t), sms: testkit.StartBulkSMS(t), key: key, webhookAddr: servicetest.FreeAddr(t)}
	if reports {
		p.sms.ReportTo(p.webhookURL())
	}
	return p
}

// vars configures the binary against the peers. A retired key comes first in the key ring:
// the order does not matter, boxes name their key.
func (p *peers) vars(t *testing.T) map[string]string {
	t.Helper()
	retired, err := seal.GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"THUMELA_ENV":                        "development", // the BulkSMS double speaks http
		"IDENTITY_ADDR":                      "127.0.0.1:1", // static keys in-process; unused by the child
		"NOTIFICATIONS_SEAL_KEYS":            strings.Join([]string{retired.String(), p.key.String()}, ","),
		"NOTIFICATIONS_WEBHOOK_ADDR":         p.webhookAddr,
		"NOTIFICATIONS_WEBHOOK_TOKEN":        testkit.WebhookToken,
		"NOTIFICATIONS_SMTP_ADDR":            p.smtp.Addr,
		"NOTIFICATIONS_SMTP_TLS":             "starttls",
		"NOTIFICATIONS_SMTP_USERNAME":        p.smtp.Username,
		"NOTIFICATIONS_SMTP_PASSWORD":        p.smtp.Password,
		"NOTIFICATIONS_SMTP_CA_FILE":         p.smtp.CAFile,
		"NOTIFICATIONS_SUPPORT_EMAIL":        testkit.SupportEmail,
		"NOTIFICATIONS_BULKSMS_URL":          p.sms.URL,
		"NOTIFICATIONS_BULKSMS_TOKEN_ID":     p.sms.TokenID,
		"NOTIFICATIONS_BULKSMS_TOKEN_SECRET": p.sms.TokenSecret,
		"NOTIFICATIONS_SMS_SENDER":           "Thumela",
	}
}

// webhookURL is where the binary takes delivery reports.
func (p *peers) webhookURL() string {
	return "http://" + p.webhookAddr + "/webhooks/bulksms/" + testkit.WebhookToken
}
