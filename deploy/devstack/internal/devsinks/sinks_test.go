package devsinks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"os"
	"strings"
	"testing"
	"time"
)

// Start wires the three stand-ins together: what the SMTP sink and the BulkSMS API receive is
// listed by the dev tools, and the reports reach the webhook.
func TestStartWiresTheStandIns(t *testing.T) {
	t.Parallel()
	hook := &webhook{}
	hookSrv := httptest.NewServer(hook)
	t.Cleanup(hookSrv.Close)
	s, err := Start(Config{
		DataDir: t.TempDir(), SMTPUsername: "u", SMTPPassword: "p", BulkSMSTokenID: "id", BulkSMSTokenSecret: "secret",
		WebhookURL: hookSrv.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if !strings.HasPrefix(s.SMTPAddr(), "127.0.0.1:") || !strings.HasPrefix(s.BulkSMSURL(), "http://127.0.0.1:") ||
		!strings.HasSuffix(s.BulkSMSURL(), "/v1") || !strings.HasPrefix(s.DevToolsURL(), "http://127.0.0.1:") {
		t.Errorf("addresses %s %s %s", s.SMTPAddr(), s.BulkSMSURL(), s.DevToolsURL())
	}

	// E-mail, trusting the certificate from the file, as notifications does.
	pem, err := os.ReadFile(s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c, err := smtp.Dial(s.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.StartTLS(&tls.Config{ServerName: "127.0.0.1", RootCAs: pool}); err != nil {
		t.Fatal(err)
	}
	if err := c.Auth(smtp.PlainAuth("", "u", "p", "127.0.0.1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Mail("no-reply@thumela.co.za"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("a@example.co.za"); err != nil {
		t.Fatal(err)
	}
	w, _ := c.Data()
	_, _ = w.Write([]byte("Subject: Hi\r\nMessage-ID: <x@thumela.co.za>\r\nX-Thumela-Template: new_sign_in\r\n\r\nHello.\r\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// SMS.
	req, _ := http.NewRequest(http.MethodPost, s.BulkSMSURL()+"/messages", strings.NewReader(`[{"to":"+27821234567","body":"Hi","deliveryReports":"ALL"}]`))
	req.SetBasicAuth("id", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("submit: %d", resp.StatusCode)
	}
	waitFor(t, "the delivery report", 3*time.Second, func() bool { return len(hook.got()) == 2 })

	_, body := get(t, s.DevToolsURL()+"/dev/outbox?format=json")
	if !strings.Contains(body, `"template":"new_sign_in"`) || !strings.Contains(body, `"status":"delivered"`) {
		t.Errorf("/dev/outbox: %s", body)
	}
	// Failures set through the dev tools reach the BulkSMS stand-in.
	req, _ = http.NewRequest(http.MethodPost, s.DevToolsURL()+"/dev/sms/failures", strings.NewReader(`{"number":"+27821234567","mode":"transient","seconds":30}`))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ = http.NewRequest(http.MethodPost, s.BulkSMSURL()+"/messages", strings.NewReader(`[{"to":"+27821234567","body":"Hi"}]`))
	req.SetBasicAuth("id", "secret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("submit to a failing number: %d, want 503", resp.StatusCode)
	}
}
