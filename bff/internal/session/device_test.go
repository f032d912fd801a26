package session

import (
	"net/http"
	"strings"
	"testing"
)

func TestDeviceCookie(t *testing.T) {
	t.Parallel()
	c := Cookies{Secure: true}
	id, set := c.Device(http.Header{})
	if len(id) != 22 || set == "" {
		t.Fatalf("first sight: id %q, Set-Cookie %q", id, set)
	}
	for _, want := range []string{"thumela_device=" + id, "Max-Age=34560000", "HttpOnly", "Secure", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %q", set, want)
		}
	}
	h := http.Header{"Cookie": {"thumela_device=" + id}}
	if again, set := c.Device(h); again != id || !strings.Contains(set, "thumela_device="+id) {
		t.Fatalf("known device: id %q, Set-Cookie %q (the same id, its 400 days renewed)", again, set)
	}
	// A value the BFF could not have made is replaced, not forwarded.
	for _, bad := range []string{"x", strings.Repeat("a", 200), "<script>alert(1)</script>12"} {
		h := http.Header{"Cookie": {"thumela_device=" + bad}}
		if got, set := c.Device(h); got == bad || set == "" {
			t.Errorf("cookie %q kept (%q, %q)", bad, got, set)
		}
	}
	if a, b := NewDeviceID(), NewDeviceID(); a == b {
		t.Fatal("device ids repeat")
	}
	if (Cookies{HostPrefix: true}).DeviceName() != "__Host-thumela_device" {
		t.Fatal("no __Host- prefix over https")
	}
}
