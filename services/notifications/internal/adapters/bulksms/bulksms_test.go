package bulksms_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
)

func client(t *testing.T, api *testkit.BulkSMS) *bulksms.Client {
	t.Helper()
	c, err := bulksms.New(bulksms.Config{URL: api.URL, TokenID: api.TokenID, TokenSecret: api.TokenSecret, From: "Thumela", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sendErr(t *testing.T, err error) *domain.SendError {
	t.Helper()
	var se *domain.SendError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a SendError", err)
	}
	return se
}

// The client speaks the API as documented: a deduplicated resubmission answers the first
// message, look-ups by userSuppliedId find it, and errors are classified without quoting
// the number.
func TestClientAgainstTheAPI(t *testing.T) {
	t.Parallel()
	api := testkit.StartBulkSMS(t)
	c := client(t, api)
	ctx := context.Background()
	m := app.SMS{To: "+27821234567", Body: "Hello", UserSuppliedID: "thm42", DedupID: 7}
	first, err := c.SendSMS(ctx, m)
	if err != nil || first.Outcome != domain.OutcomeAccepted || first.ProviderMessageID == "" {
		t.Fatalf("send: %+v %v", first, err)
	}
	again, err := c.SendSMS(ctx, m)
	if err != nil || again.ProviderMessageID != first.ProviderMessageID {
		t.Fatalf("resubmission: %+v %v", again, err)
	}
	if sent := api.Sent(m.To); len(sent) != 1 || sent[0].From != "Thumela" || sent[0].UserSuppliedID != "thm42" {
		t.Fatalf("sent %+v", sent)
	}
	found, err := c.FindSMS(ctx, "thm42")
	if err != nil || len(found) != 1 || found[0].ProviderMessageID != first.ProviderMessageID {
		t.Fatalf("look-up: %+v %v", found, err)
	}
	if none, err := c.FindSMS(ctx, "thm43"); err != nil || len(none) != 0 {
		t.Fatalf("look-up of another id: %+v %v", none, err)
	}

	api.Invalid("+27820000000")
	_, err = c.SendSMS(ctx, app.SMS{To: "+27820000000", Body: "x", DedupID: 8})
	if se := sendErr(t, err); !se.Permanent || se.UserReason != domain.ReasonNumberInvalid || strings.Contains(se.Reason, "27820000000") {
		t.Errorf("invalid number: %+v", se)
	}
	api.Unavailable("+27821111111", 1)
	_, err = c.SendSMS(ctx, app.SMS{To: "+27821111111", Body: "x", DedupID: 9})
	if se := sendErr(t, err); se.Permanent || !strings.Contains(se.Reason, "503") {
		t.Errorf("unavailable: %+v", se)
	}

	wrong, _ := bulksms.New(bulksms.Config{URL: api.URL, TokenID: "x", TokenSecret: "y"})
	_, err = wrong.SendSMS(ctx, m)
	if se := sendErr(t, err); se.Permanent || !strings.Contains(se.Reason, "401") {
		t.Errorf("bad credentials are the operator's to fix, retried meanwhile: %+v", se)
	}
}

func TestTransportFailuresAreTransient(t *testing.T) {
	t.Parallel()
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, _ *http.Request) {
		time.Sleep(500 * time.Millisecond)
	}))
	defer slow.Close()
	c, _ := bulksms.New(bulksms.Config{URL: slow.URL + "/v1", Timeout: 100 * time.Millisecond})
	_, err := c.SendSMS(context.Background(), app.SMS{To: "+27821234567", Body: "x"})
	if se := sendErr(t, err); se.Permanent || se.Reason != "bulksms: timeout" {
		t.Errorf("timeout: %+v", se)
	}
	slow.Close()
	_, err = c.SendSMS(context.Background(), app.SMS{To: "+27821234567", Body: "x"})
	if se := sendErr(t, err); se.Permanent {
		t.Errorf("connection refused: %+v", se)
	}
}

func TestStatusMapping(t *testing.T) {
	t.Parallel()
	sub := func(s string) *string { return &s }
	for _, tc := range []struct {
		status bulksms.Status
		want   domain.Outcome
		reason string
	}{
		{bulksms.Status{ID: "ACCEPTED.null", Type: "ACCEPTED"}, domain.OutcomeAccepted, ""},
		{bulksms.Status{ID: "SCHEDULED.null", Type: "SCHEDULED"}, domain.OutcomeAccepted, ""},
		{bulksms.Status{ID: "SENT.null", Type: "SENT"}, domain.OutcomeAccepted, ""},
		{bulksms.Status{ID: "DELIVERED.null", Type: "DELIVERED"}, domain.OutcomeDelivered, ""},
		{bulksms.Status{ID: "UNKNOWN.null", Type: "UNKNOWN"}, domain.OutcomeUnknown, ""},
		{bulksms.Status{ID: "FAILED.EXPIRED", Type: "FAILED", Subtype: sub("EXPIRED")}, domain.OutcomeFailed, domain.ReasonNotReachable},
		{bulksms.Status{ID: "FAILED.HANDSET_ERROR", Type: "FAILED", Subtype: sub("HANDSET_ERROR")}, domain.OutcomeFailed, domain.ReasonHandset},
		{bulksms.Status{ID: "FAILED.BLOCKED", Type: "FAILED", Subtype: sub("BLOCKED")}, domain.OutcomeFailed, domain.ReasonNumberBlocked},
		{bulksms.Status{ID: "FAILED.NOT_SENT"}, domain.OutcomeFailed, domain.ReasonNotSent},
	} {
		r := bulksms.Message{ID: "1", Status: tc.status}.Report()
		if r.Outcome != tc.want || r.FailureReason != tc.reason || r.ProviderMessageID != "1" {
			t.Errorf("%s: %+v", tc.status.ID, r)
		}
	}
}
