package iso

import (
	"errors"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

func utc(year int, month time.Month, day, hour, minute, second int) time.Time {
	return time.Date(year, month, day, hour, minute, second, 0, time.UTC)
}

// DE 7 has no year: it is read as the nearest instant, across New Year either way.
func TestTransmissionTime(t *testing.T) {
	t.Parallel()
	sast := time.FixedZone("SAST", 2*60*60)
	for _, tc := range []struct {
		name string
		de7  string
		now  time.Time
		want time.Time
	}{
		{"same day", "0615115900", utc(2026, 6, 15, 12, 0, 0), utc(2026, 6, 15, 11, 59, 0)},
		{"sent on 31 December, read on 1 January", "1231235955", utc(2026, 1, 1, 0, 0, 5), utc(2025, 12, 31, 23, 59, 55)},
		{"dated 1 January by a clock ahead, read on 31 December", "0101000010", utc(2025, 12, 31, 23, 59, 50), utc(2026, 1, 1, 0, 0, 10)},
		{"an old message from last December, in March", "1215100000", utc(2026, 3, 1, 9, 0, 0), utc(2025, 12, 15, 10, 0, 0)},
		{"the year is UTC's, not the local one", "1231230000", time.Date(2026, 1, 1, 1, 0, 0, 0, sast), utc(2025, 12, 31, 23, 0, 0)},
		{"29 February in a leap year", "0229235950", utc(2028, 3, 1, 0, 0, 10), utc(2028, 2, 29, 23, 59, 50)},
		{"29 February of next year", "0229000000", utc(2027, 1, 1, 0, 0, 0), utc(2028, 2, 29, 0, 0, 0)},
	} {
		got, err := transmissionTime(tc.de7, tc.now)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s: transmissionTime(%q, %v) = %v, %v; want %v", tc.name, tc.de7, tc.now, got, err, tc.want)
		}
	}

	now := utc(2026, 1, 1, 0, 0, 0) // 2025, 2026 and 2027 have no 29 February
	for _, de7 := range []string{
		"", "010100000", "01010000000", "0101 00000", "+101000000", "01010000a0",
		"0001000000", "1301000000", "0100000000", "0132000000", "0431000000", "0229000000",
		"0101240000", "0101006000", "0101000060",
	} {
		if got, err := transmissionTime(de7, now); !errors.Is(err, errTransmissionTimeFormat) {
			t.Errorf("transmissionTime(%q) = %v, %v; want a format error", de7, got, err)
		}
	}
}

// A withdrawal's DE 7 must be present, well formed and within the skew of the gateway's clock,
// either way; out of it, the answer is 30.
func TestCheckTransmissionTime(t *testing.T) {
	t.Parallel()
	now := utc(2026, 1, 1, 0, 1, 0)
	s := &Server{cfg: Config{TransmissionSkew: 5 * time.Minute, Now: func() time.Time { return now }}.withDefaults()}
	de7 := func(d time.Duration) string { return now.Add(d).Format("0102150405") }
	for _, ok := range []time.Duration{0, -5 * time.Minute, 5 * time.Minute, -90 * time.Second, 2 * time.Minute} {
		if err := s.checkTransmissionTime(de7(ok)); err != nil {
			t.Errorf("DE 7 %s (%v from now): %v", de7(ok), ok, err)
		}
	}
	for _, stale := range []time.Duration{-5*time.Minute - time.Second, 5*time.Minute + time.Second, -time.Hour, 24 * time.Hour, -30 * 24 * time.Hour} {
		err := s.checkTransmissionTime(de7(stale))
		if !errors.Is(err, domain.ErrTransmissionTime) || ResponseCode(err) != atmnet.RespFormatError {
			t.Errorf("DE 7 %s (%v from now): %v (code %s); want ErrTransmissionTime, 30", de7(stale), stale, err, ResponseCode(err))
		}
	}
	for _, bad := range []string{"", "1332000000", "12312359"} {
		var format *domain.FormatError
		if err := s.checkTransmissionTime(bad); !errors.As(err, &format) || ResponseCode(err) != atmnet.RespFormatError {
			t.Errorf("DE 7 %q: %v; want a format error (30)", bad, err)
		}
	}
}
