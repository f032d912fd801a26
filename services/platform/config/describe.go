package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Masked replaces every secret in Describe's output.
const Masked = "*****"

// Describe lists cfg's env-tagged fields as log attributes keyed by their variable name
// (without the prefix), so main can log the effective configuration once at start:
//
//	logger.Info("configuration", "config", slog.GroupValue(config.Describe(cfg)...))
//
// Fields tagged secret:"true" show as Masked (or "" when unset, which is worth seeing), and
// passwords inside URLs or key=value DSNs of other fields are masked too, because a
// DATABASE_URL is rarely tagged secret by everyone who adds one. cfg is a struct or a pointer
// to one; anything else yields nil.
func Describe(cfg any) []slog.Attr {
	rv := reflect.ValueOf(cfg)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	fields, err := fieldsOf(rv)
	if err != nil {
		return nil
	}
	attrs := make([]slog.Attr, 0, len(fields))
	for _, f := range fields {
		attrs = append(attrs, slog.Attr{Key: f.tag.name, Value: describeValue(f.value, f.tag.secret)})
	}
	return attrs
}

func describeValue(v reflect.Value, secret bool) slog.Value {
	if secret {
		if v.IsZero() {
			return slog.StringValue("")
		}
		return slog.StringValue(Masked)
	}
	if v.Type() == durationType {
		return slog.StringValue(fmt.Sprint(v.Interface()))
	}
	switch v.Kind() {
	case reflect.String:
		return slog.StringValue(MaskPassword(v.String()))
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range items {
			items[i] = MaskPassword(v.Index(i).String())
		}
		return slog.StringValue(strings.Join(items, ","))
	default:
		return slog.AnyValue(v.Interface())
	}
}

// placeholder stands in for Masked while net/url re-encodes a URL, which would otherwise
// percent-encode the asterisks.
const placeholder = "thumelamaskedvalue"

// secretParams are query or DSN keys whose values are credentials.
var secretParams = []string{"password", "passwd", "pass", "pwd", "secret", "token", "sslpassword", "sslkey", "api_key", "apikey"}

// dsnPassword matches password=... in a libpq key=value DSN, quoted or not.
var dsnPassword = regexp.MustCompile(`(?i)\b(password|sslpassword)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// MaskPassword hides the password of a URL ("postgres://u:secret@h/db" becomes
// "postgres://u:*****@h/db"), the bare token of a nats:// URL, credential-looking query
// parameters, and password=… in a key=value DSN. Other text is returned unchanged.
func MaskPassword(s string) string {
	if strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil {
			changed := false
			if u.User != nil {
				if _, has := u.User.Password(); has {
					u.User = url.UserPassword(u.User.Username(), placeholder)
					changed = true
				} else if tokenInUser(u.Scheme) && u.User.Username() != "" {
					// NATS puts a bare token where other URLs put the user name.
					u.User = url.User(placeholder)
					changed = true
				}
			}
			if u.RawQuery != "" {
				q := u.Query()
				for key := range q {
					if isSecretParam(key) {
						q[key] = []string{placeholder}
						changed = true
					}
				}
				if changed {
					u.RawQuery = q.Encode()
				}
			}
			if changed {
				return strings.ReplaceAll(u.String(), placeholder, Masked)
			}
			return s
		}
		// An unparsable URL might still hold a password: keep only the scheme.
		scheme, _, _ := strings.Cut(s, "://")
		return scheme + "://" + Masked
	}
	return dsnPassword.ReplaceAllString(s, "${1}="+Masked)
}

func isSecretParam(key string) bool {
	return slices.Contains(secretParams, strings.ToLower(key))
}

func tokenInUser(scheme string) bool {
	switch strings.ToLower(scheme) {
	case "nats", "tls", "ws", "wss":
		return true
	}
	return false
}
