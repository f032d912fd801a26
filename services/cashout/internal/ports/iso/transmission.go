package iso

import (
	"errors"
	"fmt"
	"time"

	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// errTransmissionTimeFormat: DE 7 is not MMDDhhmmss, or names a date that exists in none of
// the years around now.
var errTransmissionTimeFormat = errors.New("not a transmission date and time")

// transmissionTime reads DE 7, MMDDhhmmss in UTC without a year, as the instant nearest to now:
// of the previous, the current and the next year (in UTC), the one that puts it closest. So
// 1231235959 read at 00:00:05 on 1 January is 6 s ago, not a year ahead, and 0101000005 read at
// 23:59:59 on 31 December is 6 s ahead, not a year ago. A date that exists in none of those
// years (0431, or 0229 far from a leap year) is malformed.
func transmissionTime(de7 string, now time.Time) (time.Time, error) {
	if len(de7) != 10 {
		return time.Time{}, errTransmissionTimeFormat
	}
	var f [5]int // month, day, hour, minute, second
	for i := range f {
		part := de7[2*i : 2*i+2]
		if part[0] < '0' || part[0] > '9' || part[1] < '0' || part[1] > '9' {
			return time.Time{}, errTransmissionTimeFormat
		}
		f[i] = int(part[0]-'0')*10 + int(part[1]-'0')
	}
	month, day, hour, minute, second := f[0], f[1], f[2], f[3], f[4]
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, errTransmissionTimeFormat
	}
	now = now.UTC()
	var best time.Time
	for year := now.Year() - 1; year <= now.Year()+1; year++ {
		t := time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC)
		if t.Day() != day { // time.Date moved a day the month does not have to the next month
			continue
		}
		if best.IsZero() || t.Sub(now).Abs() < best.Sub(now).Abs() {
			best = t
		}
	}
	if best.IsZero() {
		return time.Time{}, errTransmissionTimeFormat
	}
	return best, nil
}

// checkTransmissionTime refuses a withdrawal whose DE 7 is missing or malformed (a format
// error) or further than the allowed skew from the gateway's clock (domain.ErrTransmissionTime).
// The reason names the element and the offset; DE 7 is not a credential.
func (s *Server) checkTransmissionTime(de7 string) error {
	const field = "DE 7 transmission date and time"
	if de7 == "" {
		return &domain.FormatError{Field: field}
	}
	now := s.cfg.Now()
	at, err := transmissionTime(de7, now)
	if err != nil {
		return &domain.FormatError{Field: field}
	}
	off := at.Sub(now)
	if off.Abs() <= s.cfg.TransmissionSkew {
		return nil
	}
	side := "behind"
	if off > 0 {
		side = "ahead of"
	}
	return fmt.Errorf("%w: DE 7 %s is %s %s the gateway's clock (at most %s)",
		domain.ErrTransmissionTime, de7, off.Abs().Round(time.Second), side, s.cfg.TransmissionSkew)
}
