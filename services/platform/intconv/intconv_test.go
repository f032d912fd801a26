package intconv

import (
	"math"
	"testing"
)

func TestClamps(t *testing.T) {
	if got := Int32(7); got != 7 {
		t.Errorf("Int32(7) = %d", got)
	}
	if got := Int32(math.MaxInt32 + 1); got != math.MaxInt32 {
		t.Errorf("Int32(MaxInt32+1) = %d", got)
	}
	if got := Int32(math.MinInt32 - 1); got != math.MinInt32 {
		t.Errorf("Int32(MinInt32-1) = %d", got)
	}
	if got := Uint32(-1); got != 0 {
		t.Errorf("Uint32(-1) = %d", got)
	}
	if got := Uint32(math.MaxUint32 + 1); got != math.MaxUint32 {
		t.Errorf("Uint32(MaxUint32+1) = %d", got)
	}
	if got := Uint32From64(42); got != 42 {
		t.Errorf("Uint32From64(42) = %d", got)
	}
	if got := Uint32From64(-5); got != 0 {
		t.Errorf("Uint32From64(-5) = %d", got)
	}
	if got := Int64FromUint64(math.MaxUint64); got != math.MaxInt64 {
		t.Errorf("Int64FromUint64(MaxUint64) = %d", got)
	}
	if got := IntFromUint64(3); got != 3 {
		t.Errorf("IntFromUint64(3) = %d", got)
	}
	if got := Byte(300); got != 255 {
		t.Errorf("Byte(300) = %d", got)
	}
	if got := Byte(-1); got != 0 {
		t.Errorf("Byte(-1) = %d", got)
	}
}

func TestAbs(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want uint64
	}{{0, 0}, {5, 5}, {-5, 5}, {math.MaxInt64, math.MaxInt64}, {math.MinInt64, 1 << 63}} {
		if got := Abs(c.in); got != c.want {
			t.Errorf("Abs(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
