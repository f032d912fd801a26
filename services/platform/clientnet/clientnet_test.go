package clientnet_test

import (
	"testing"

	"github.com/thumela/thumela/services/platform/clientnet"
)

func TestKey(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"203.0.113.7":           "203.0.113.7",
		" 203.0.113.7 ":         "203.0.113.7",
		"::ffff:203.0.113.7":    "203.0.113.7",
		"203.0.113.7:443":       "203.0.113.7",
		"2001:db8:1:2:3:4:5:6":  "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":  "2001:db8:1:2::/64",
		"[2001:db8:1:2::9]:443": "2001:db8:1:2::/64",
		"fe80::1%eth0":          "fe80::/64",
		"":                      "",
		"not-an-address":        "not-an-address",
	} {
		if got := clientnet.Key(raw); got != want {
			t.Errorf("Key(%q) = %q, want %q", raw, got, want)
		}
	}
}
