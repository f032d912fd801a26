package httpx

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientAddress(t *testing.T) {
	t.Parallel()
	c := ClientAddress{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	tests := []struct {
		name, peer, xff, want string
	}{
		{"direct, header ignored", "203.0.113.9:5000", "1.2.3.4", "203.0.113.9"},
		{"through a trusted proxy", "10.0.0.2:5000", "198.51.100.7", "198.51.100.7"},
		{"forged left entries are never reached", "10.0.0.2:5000", "1.1.1.1, 198.51.100.7", "198.51.100.7"},
		{"two trusted hops", "10.0.0.2:5000", "198.51.100.7, 10.0.0.3", "198.51.100.7"},
		{"garbage in the header", "10.0.0.2:5000", "not-an-ip", "10.0.0.2"},
		{"no header behind a proxy", "10.0.0.2:5000", "", "10.0.0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.xff != "" {
				h.Set("X-Forwarded-For", tt.xff)
			}
			if got := c.Of(tt.peer, h); got != tt.want {
				t.Fatalf("Of = %q, want %q", got, tt.want)
			}
		})
	}
}
