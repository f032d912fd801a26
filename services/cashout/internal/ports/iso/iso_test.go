package iso

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// The response-code table of docs/cashout.md, in one place.
func TestResponseCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code string
	}{
		{nil, atmnet.RespApproved},
		{domain.Refused(domain.ReasonWrongCredentials), "55"},
		{&domain.RefusedError{Reason: domain.ReasonWrongCredentials, AttemptsLeft: 2}, "55"},
		{domain.Refused(domain.ReasonLocked), "75"},
		{domain.Refused(domain.ReasonExpired), "54"},
		{domain.Refused(domain.ReasonCancelled), "62"},
		{domain.Refused(domain.ReasonAlreadyCollected), "12"},
		{domain.Refused(domain.ReasonWrongBank), "57"},
		{domain.Refused(domain.ReasonNotPermitted), "57"},
		{domain.Refused(domain.ReasonWrongAmount), "13"},
		{domain.Refused(domain.ReasonInvalidVoucher), "14"},
		{domain.Refused(domain.ReasonReversed), "94"},
		{domain.Refused(domain.ReasonReferenceReused), "94"},
		{domain.Refused(domain.ReasonUnspecified), "96"},
		{&domain.FormatError{Field: "DE 11 STAN"}, "30"},
		{domain.ErrPINBlock, "81"},
		{atmnet.ErrUnknownKey, "81"},
		{atmnet.ErrMACMissing, "63"},
		{fmt.Errorf("wrapped: %w", atmnet.ErrMACInvalid), "63"},
		{fmt.Errorf("%w: DE 32 051001 under zone keys fnb-1", atmnet.ErrAcquirerNotBound), "63"},
		{domain.ErrUnknownAcquirer, "31"},
		{domain.ErrUnsupported, "12"},
		{domain.ErrCurrency, "13"},
		{fmt.Errorf("%w: DE 7 0101000000 is 1h0m0s behind the gateway's clock", domain.ErrTransmissionTime), "30"},
		{domain.Unavailable(errors.New("connection refused")), "91"},
		{errors.New("anything else"), "96"},
		{fmt.Errorf("wrapped: %w", domain.Refused(domain.ReasonExpired)), "54"},
	} {
		if got := ResponseCode(tc.err); got != tc.code {
			t.Errorf("ResponseCode(%v) = %s, want %s", tc.err, got, tc.code)
		}
	}
}

func TestAuthCode(t *testing.T) {
	t.Parallel()
	a := authCode("0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01", "250655", "632908604337")
	if !regexp.MustCompile(`^[0-9A-Z]{6}$`).MatchString(a) {
		t.Errorf("auth code %q", a)
	}
	if authCode("0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01", "250655", "632908604337") != a {
		t.Error("not deterministic")
	}
	if authCode("0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01", "250655", "632908604338") == a {
		t.Error("another request, the same code")
	}
}
