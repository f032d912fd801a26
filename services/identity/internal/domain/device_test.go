package domain

import (
	"strings"
	"testing"
	"unicode"
)

func TestParseUserAgent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ua    string
		want  Device
		label string
	}{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
			Device{"Chrome", "Windows", DeviceDesktop}, "Chrome on Windows"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
			Device{"Safari", "iOS", DeviceMobile}, "Safari on iOS"},
		{"Mozilla/5.0 (Linux; Android 14; SM-A155F) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
			Device{"Samsung Browser", "Android", DeviceMobile}, "Samsung Browser on Android"},
		{"Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
			Device{"Safari", "iOS", DeviceTablet}, "Safari on iOS"},
		{"", Device{}, "an unknown device"},
	} {
		got := ParseUserAgent(c.ua)
		if got != c.want || got.Label() != c.label {
			t.Errorf("ParseUserAgent(%.40q) = %+v %q, want %+v %q", c.ua, got, got.Label(), c.want, c.label)
		}
	}
}

// FuzzParseUserAgent: whatever a client sends, the names are short and printable, and parsing
// never panics.
func FuzzParseUserAgent(f *testing.F) {
	f.Add("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	f.Add("<script>alert(1)</script>\x1b[31m\u202e")
	f.Fuzz(func(t *testing.T, ua string) {
		d := ParseUserAgent(ua)
		for _, s := range []string{d.Browser, d.OS} {
			if len(s) > maxDeviceName || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || strings.ContainsRune("<>&\"'", r) }) {
				t.Fatalf("unsafe name %q from %q", s, ua)
			}
		}
		switch d.Type {
		case "", DeviceDesktop, DeviceMobile, DeviceTablet:
		default:
			t.Fatalf("device type %q", d.Type)
		}
	})
}
