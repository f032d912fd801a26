package domain

import (
	"crypto/sha256"
	"strings"
	"unicode"

	"github.com/mileusna/useragent"
)

// Device is what a session's user agent says about the browser, parsed once when the session
// opens: what Account -> Security shows and the new-sign-in e-mail names.
type Device struct {
	// Browser and OS are names such as "Chrome" and "Windows"; empty when unknown.
	Browser string
	OS      string
	// Type is DeviceDesktop, DeviceMobile, DeviceTablet or "" (unknown).
	Type string
}

// Device types.
const (
	DeviceDesktop = "desktop"
	DeviceMobile  = "mobile"
	DeviceTablet  = "tablet"
)

// maxDeviceName bounds a parsed browser or OS name: the user agent is the browser's to say.
const maxDeviceName = 40

// ParseUserAgent reads the browser, OS and device type from a User-Agent header. It never
// fails: what it cannot read stays empty, and the names keep printable characters only, so
// that nothing a client sends reaches a page or an e-mail as markup or control characters.
// The parsing itself is github.com/mileusna/useragent's (well kept, no regex tables to ship);
// this function is the one place identity depends on it.
func ParseUserAgent(ua string) Device {
	ua = clip(ua, 512)
	if ua == "" {
		return Device{}
	}
	p := useragent.Parse(ua)
	d := Device{Browser: deviceName(p.Name), OS: deviceName(p.OS)}
	switch {
	case p.Bot:
		d.Type = ""
	case p.Tablet:
		d.Type = DeviceTablet
	case p.Mobile:
		d.Type = DeviceMobile
	case p.Desktop:
		d.Type = DeviceDesktop
	}
	return d
}

// deviceName keeps letters, digits, spaces and a few punctuation marks, at most maxDeviceName
// bytes.
func deviceName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == ' ', r == '.', r == '-', r == '_', r == '(', r == ')':
			return r
		}
		return -1
	}, s)
	return clip(strings.Join(strings.Fields(s), " "), maxDeviceName)
}

// Label names the device in a sentence: "Chrome on Windows", "Firefox", "an unknown device".
func (d Device) Label() string {
	switch {
	case d.Browser != "" && d.OS != "":
		return d.Browser + " on " + d.OS
	case d.Browser != "":
		return d.Browser
	case d.OS != "":
		return d.OS
	}
	return "an unknown device"
}

// maxDeviceID bounds the device cookie's value as identity reads it; the BFF's are 22
// characters (128 random bits, base64url).
const maxDeviceID = 128

// DeviceHash is how a device id (the BFF's thumela_device cookie) is stored and compared: its
// SHA-256, so the stored value cannot be replayed as a cookie. ok is false for an empty id (a
// caller that sent none: the device is then not recorded).
func DeviceHash(deviceID string) (hash []byte, ok bool) {
	deviceID = strings.TrimSpace(deviceID)
	if deviceID == "" || len(deviceID) > maxDeviceID {
		return nil, false
	}
	sum := sha256.Sum256([]byte(deviceID))
	return sum[:], true
}
