package session

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

// The device cookie: a random id that stays in the browser for 400 days (the longest browsers
// keep a cookie) so identity can tell a known device from a new one ("New sign-in to
// Thumela"). It is no credential: it opens nothing, and identity stores only its hash.

const (
	deviceBaseName = "thumela_device"
	// deviceIDBytes is 128 random bits: 22 base64url characters.
	deviceIDBytes = 16
	deviceMaxAge  = 400 * 24 * time.Hour
)

var deviceEncoding = base64.RawURLEncoding.Strict()

// DeviceName is the device cookie's name ("__Host-" prefixed with HostPrefix, as the session's).
func (c Cookies) DeviceName() string {
	if c.HostPrefix {
		return "__Host-" + deviceBaseName
	}
	return deviceBaseName
}

// DeviceID reads the device cookie from request headers; empty when there is none or it is not
// one the BFF could have made.
func (c Cookies) DeviceID(h http.Header) string {
	r := http.Request{Header: h}
	ck, err := r.Cookie(c.DeviceName())
	if err != nil {
		return ""
	}
	v := strings.TrimSpace(ck.Value)
	if len(v) != deviceEncoding.EncodedLen(deviceIDBytes) {
		return ""
	}
	if _, err := deviceEncoding.DecodeString(v); err != nil {
		return ""
	}
	return v
}

// NewDeviceID makes a device id.
func NewDeviceID() string {
	raw := make([]byte, deviceIDBytes)
	_, _ = rand.Read(raw) // crypto/rand.Read never fails (it panics rather)
	return deviceEncoding.EncodeToString(raw)
}

// SetDevice returns the Set-Cookie value that stores the device id for 400 days.
func (c Cookies) SetDevice(id string) string {
	//nolint:gosec // G124: Secure is on unless configured off, which only local development over http does
	ck := &http.Cookie{
		Name:     c.DeviceName(),
		Value:    id,
		Path:     "/",
		MaxAge:   int(deviceMaxAge.Seconds()),
		HttpOnly: true,
		Secure:   c.Secure || c.HostPrefix,
		SameSite: http.SameSiteLaxMode,
	}
	return ck.String()
}

// Device returns the request's device id, or a new one, with the Set-Cookie value that stores
// it: on first sight, and again at each sign-in, so that a device in use keeps its 400 days
// (browsers cap a cookie's life from when it was last set) and is not "new" once a year.
func (c Cookies) Device(h http.Header) (id, setCookie string) {
	if id = c.DeviceID(h); id == "" {
		id = NewDeviceID()
	}
	return id, c.SetDevice(id)
}
