// Package intconv converts between integer types without wrapping around: a value outside the
// target type's range is clamped to its nearest bound. The values the services convert (counts,
// lengths, years, sign counts) are far inside the bounds, so in practice nothing changes; the
// bound checks make that an invariant the compiler and gosec (G115) can see.
package intconv

import "math"

// Int32 returns n as an int32, clamped to [math.MinInt32, math.MaxInt32].
func Int32(n int) int32 {
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	if n < math.MinInt32 {
		return math.MinInt32
	}
	return int32(n)
}

// Uint32 returns n as a uint32, clamped to [0, math.MaxUint32].
func Uint32(n int) uint32 {
	if n < 0 {
		return 0
	}
	if uint64(n) > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

// Uint32From64 returns n as a uint32, clamped to [0, math.MaxUint32].
func Uint32From64(n int64) uint32 {
	if n < 0 {
		return 0
	}
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

// Int64FromUint64 returns n as an int64, clamped to math.MaxInt64.
func Int64FromUint64(n uint64) int64 {
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// IntFromUint64 returns n as an int, clamped to math.MaxInt.
func IntFromUint64(n uint64) int {
	if n > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}

// Byte returns n as a byte, clamped to [0, 255].
func Byte(n int) byte {
	if n < 0 {
		return 0
	}
	if n > math.MaxUint8 {
		return math.MaxUint8
	}
	return byte(n)
}

// Abs returns |n| as a uint64; unlike -n it is right for math.MinInt64 too.
func Abs(n int64) uint64 {
	if n >= 0 {
		return uint64(n)
	}
	return uint64(-(n + 1)) + 1 //nolint:gosec // G115: n < 0 here, so -(n+1) >= 0
}
