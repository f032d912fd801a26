package session

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// setCookies parses the Set-Cookie values h carries, by name.
func setCookies(t *testing.T, h http.Header) map[string]*http.Cookie {
	t.Helper()
	out := map[string]*http.Cookie{}
	for _, v := range h.Values("Set-Cookie") {
		ck, err := http.ParseSetCookie(v)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", v, err)
		}
		if _, dup := out[ck.Name]; dup {
			t.Fatalf("%s set twice: %v", ck.Name, h.Values("Set-Cookie"))
		}
		out[ck.Name] = ck
	}
	return out
}

func TestSetStoresTheSessionAndAReadableHintThatLiveAlike(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		cookies       Cookies
		session, hint string
		secure        bool
	}{
		{"development over http", Cookies{}, "thumela_session", "thumela_signed_in", false},
		{"secure", Cookies{Secure: true}, "thumela_session", "thumela_signed_in", true},
		{"host prefix", Cookies{HostPrefix: true}, "__Host-thumela_session", "__Host-thumela_signed_in", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			expires := time.Now().Add(30 * 24 * time.Hour).Truncate(time.Second)
			h := http.Header{}
			tc.cookies.Set(h, "opaque-token", expires)
			got := setCookies(t, h)
			if len(got) != 2 {
				t.Fatalf("Set-Cookie = %v, want the session and its hint", h.Values("Set-Cookie"))
			}
			sess, hint := got[tc.session], got[tc.hint]
			if sess == nil || hint == nil {
				t.Fatalf("Set-Cookie = %v, want %s and %s", h.Values("Set-Cookie"), tc.session, tc.hint)
			}
			if sess.Value != "opaque-token" || !sess.HttpOnly {
				t.Errorf("session cookie = %+v, want the token, HttpOnly", sess)
			}
			// The hint is for scripts to read, and so must carry nothing worth stealing.
			if hint.HttpOnly || hint.Value == "" || strings.Contains(hint.Value, "opaque-token") {
				t.Errorf("hint = %+v, want a readable value that is not the token", hint)
			}
			for _, ck := range []*http.Cookie{sess, hint} {
				if ck.Path != "/" || ck.SameSite != http.SameSiteLaxMode || ck.Secure != tc.secure ||
					!ck.Expires.Equal(expires) || ck.MaxAge <= 0 {
					t.Errorf("%s = %+v, want Path=/, SameSite=Lax, Secure=%v, expiring at %v", ck.Name, ck, tc.secure, expires)
				}
			}
			if sess.MaxAge != hint.MaxAge {
				t.Errorf("Max-Age: session %d, hint %d", sess.MaxAge, hint.MaxAge)
			}
		})
	}
}

func TestClearRemovesTheSessionAndItsHint(t *testing.T) {
	t.Parallel()
	c := Cookies{HostPrefix: true}
	h := http.Header{}
	c.Clear(h)
	got := setCookies(t, h)
	for _, name := range []string{c.Name(), c.HintName()} {
		ck := got[name]
		if ck == nil || ck.MaxAge >= 0 || ck.Value != "" || ck.Path != "/" || !ck.Secure {
			t.Errorf("%s: %+v, want it removed at Path=/, Secure (Set-Cookie %v)", name, ck, h.Values("Set-Cookie"))
		}
	}
	if len(got) != 2 {
		t.Errorf("Set-Cookie = %v, want only the session and its hint", h.Values("Set-Cookie"))
	}
}

func TestClearStaleClearsOnlyWhatTheRequestCarried(t *testing.T) {
	t.Parallel()
	c := Cookies{Secure: true}
	for _, tc := range []struct {
		name      string
		cookie    string
		wantClear bool
	}{
		{"a visitor", "", false},
		{"a visitor with other cookies", "thumela_device=abc; theme=dark", false},
		{"an ended session", "thumela_session=ended; thumela_signed_in=1", true},
		{"an ended session without its hint", "thumela_session=ended", true},
		{"a hint left without its session", "thumela_signed_in=1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := http.Header{}
			if tc.cookie != "" {
				req.Set("Cookie", tc.cookie)
			}
			resp := http.Header{}
			c.ClearStale(resp, req)
			got := setCookies(t, resp)
			if cleared := got[c.Name()] != nil && got[c.HintName()] != nil; cleared != tc.wantClear || (!tc.wantClear && len(got) != 0) {
				t.Fatalf("Set-Cookie = %v, want cleared: %v", resp.Values("Set-Cookie"), tc.wantClear)
			}
		})
	}
}

func TestRestoreHintGivesASessionFromBeforeTheHintItsHint(t *testing.T) {
	t.Parallel()
	c := Cookies{}
	for _, tc := range []struct {
		name    string
		cookie  string
		restore bool
	}{
		{"a session without its hint", "thumela_session=opaque-token", true},
		{"a session with its hint", "thumela_session=opaque-token; thumela_signed_in=1", false},
		{"a visitor", "", false},
		{"a hint alone", "thumela_signed_in=1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, resp := http.Header{}, http.Header{}
			if tc.cookie != "" {
				req.Set("Cookie", tc.cookie)
			}
			c.RestoreHint(resp, req)
			got := setCookies(t, resp)
			if !tc.restore {
				if len(got) != 0 {
					t.Fatalf("Set-Cookie = %v, want none", resp.Values("Set-Cookie"))
				}
				return
			}
			hint := got[c.HintName()]
			if len(got) != 1 || hint == nil || hint.HttpOnly || hint.Value == "" || hint.Path != "/" {
				t.Fatalf("Set-Cookie = %v, want the readable hint alone", resp.Values("Set-Cookie"))
			}
			// The session's expiry is not known here: the hint lasts the browser session.
			if !hint.Expires.IsZero() || hint.MaxAge != 0 {
				t.Errorf("hint = %+v, want a browser-session cookie", hint)
			}
		})
	}
}
