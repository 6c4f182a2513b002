package datasets

import (
	"math"
	"math/bits"
)

// This file converts a decimal mantissa and exponent to the nearest float64
// with the Eisel–Lemire algorithm, a port of eiselLemire64 in Go's strconv
// (https://nigeltao.github.io/blog/2020/eisel-lemire.html). Like strconv, it
// either returns the correctly rounded value or declines (ok=false), and the
// caller then asks strconv.ParseFloat.

// The powers of ten, elPow10, are in mtx_pow10.go, checked by
// TestEiselLemireTable against math/big and Go's own table.
const (
	elPow10Min = -348
	elPow10Max = 347
)

// eiselLemire64 returns the float64 nearest to man * 10^exp10 (negated if
// neg), or ok=false when it cannot decide cheaply (halfway cases,
// subnormals, overflow, exponents out of the table's range).
func eiselLemire64(man uint64, exp10 int, neg bool) (f float64, ok bool) {
	if man == 0 {
		if neg {
			f = math.Copysign(0, -1)
		}
		return f, true
	}
	if exp10 < elPow10Min || exp10 > elPow10Max {
		return 0, false
	}
	pow := &elPow10[exp10-elPow10Min]
	exp2 := 1 + (exp10*108853)>>15 // 1 + floor(exp10 * log2(10))

	// Normalization.
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	const float64Bias = -1023
	retExp2 := uint64(exp2+63-float64Bias) - uint64(clz)

	// Multiplication.
	xHi, xLo := bits.Mul64(man, pow[0])

	// Wider approximation.
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, pow[1])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}

	// Shifting to 54 bits.
	msb := xHi >> 63
	retMantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb

	// Half-way ambiguity.
	if xLo == 0 && xHi&0x1FF == 0 && retMantissa&3 == 1 {
		return 0, false
	}

	// From 54 to 53 bits.
	retMantissa += retMantissa & 1
	retMantissa >>= 1
	if retMantissa>>53 > 0 {
		retMantissa >>= 1
		retExp2++
	}
	// Zero or underflow: subnormal; 0x7FF or above: Inf or NaN.
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	retBits := retExp2<<52 | retMantissa&(1<<52-1)
	if neg {
		retBits |= 1 << 63
	}
	return math.Float64frombits(retBits), true
}
