package randfmt_test

import (
	"testing"

	"github.com/thumela/thumela/services/platform/randfmt"
)

func TestFormats(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64][2]string{
		0:         {"R0,00", "R0.00"},
		5:         {"R0,05", "R0.05"},
		150000:    {"R1\u00a0500,00", "R1,500.00"},
		123456789: {"R1\u00a0234\u00a0567,89", "R1,234,567.89"},
		-150:      {"-R1,50", "-R1.50"},
	} {
		if got := randfmt.EnZA(cents); got != want[0] {
			t.Errorf("EnZA(%d) = %q, want %q", cents, got, want[0])
		}
		if got := randfmt.ASCII(cents); got != want[1] {
			t.Errorf("ASCII(%d) = %q, want %q", cents, got, want[1])
		}
	}
}
