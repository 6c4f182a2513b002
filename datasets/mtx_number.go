package datasets

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unsafe"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseUint parses the decimal digits of b (at least one, at most 18).
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + uint64(d)
	}
	return v, true
}

// parseInt parses an optionally signed decimal integer of at most 18 digits.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	v, ok := parseUint(b)
	if neg {
		return -int64(v), ok
	}
	return int64(v), ok
}

// parseFloat parses a decimal floating-point number, all of b, to the
// float64 strconv.ParseFloat returns; ok is false where strconv would fail
// and for forms it declines (inf, nan, hexadecimal: callers then use
// strconv for the exact diagnosis or value).
func parseFloat(b []byte) (float64, bool) {
	f, k, ok := scanFloat(b, 0)
	return f, ok && k == len(b)
}

// scanFloat parses the decimal number [+-]digits[.digits][(e|E)[+-]digits]
// at b[k:], which must be followed by the end of b or a blank, '\r' or
// '\n'. It returns the value, correctly rounded, and the index after the
// number. Mantissas of at most 19 significant digits are converted exactly
// with one float64 multiplication or division when the mantissa is at most
// 2^53 and the exponent at most 22 in magnitude (Clinger's fast path), else
// with the Eisel–Lemire algorithm; all that these decline go to
// strconv.ParseFloat. ok is false for another form or where strconv fails.
func scanFloat(b []byte, k int) (f float64, next int, ok bool) {
	start, n := k, len(b)
	neg := false
	if k < n && (b[k] == '-' || b[k] == '+') {
		neg = b[k] == '-'
		k++
	}
	// Leading zeros are not significant: nd counts from the first nonzero
	// digit, or is more than 19 when mant may have overflowed.
	d0 := k
	mant, k := scanRun(b, k, 0)
	nd, exp := k-d0, 0
	sawDigit := nd > 0
	if mant == 0 && nd <= 19 {
		nd = 0
	}
	if k < n && b[k] == '.' {
		k++
		d0 = k
		if nd == 0 {
			for k < n && b[k] == '0' {
				k++
			}
		}
		z := k
		mant, k = scanRun(b, k, mant)
		nd += k - z
		exp = d0 - k
		sawDigit = sawDigit || k > d0
	}
	if !sawDigit {
		return 0, k, false
	}
	if k < n && (b[k] == 'e' || b[k] == 'E') {
		k++
		eneg := false
		if k < n && (b[k] == '-' || b[k] == '+') {
			eneg = b[k] == '-'
			k++
		}
		d0 := k
		e := 0
		for ; k < n; k++ {
			d := b[k] - '0'
			if d > 9 {
				break
			}
			if e < 1<<20 {
				e = e*10 + int(d)
			}
		}
		if k == d0 {
			return 0, k, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if k < n {
		if c := b[k]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return 0, k, false
		}
	}
	if nd <= 19 {
		if mant <= 1<<53 {
			f = float64(mant)
			switch {
			case mant == 0:
				ok = true
			case exp >= 0 && exp <= 22:
				f *= pow10[exp]
				ok = true
			case exp < 0 && exp >= -22:
				f /= pow10[-exp]
				ok = true
			}
			if ok {
				if neg {
					f = -f
				}
				return f, k, true
			}
		}
		if f, ok = eiselLemire64(mant, exp, neg); ok {
			return f, k, true
		}
	}
	// The string does not outlive the call: strconv copies it into errors.
	f, err := strconv.ParseFloat(unsafe.String(&b[start], k-start), 64)
	return f, k, err == nil
}

// pow10u holds 10^n for n in 0..8.
var pow10u = [9]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// digits8 returns the number n of leading ASCII digits in the 8 bytes at
// b[k:] and their value, without a branch per byte (the SWAR technique of
// fast_float). It needs k+8 <= len(b).
func digits8(b []byte, k int) (val uint64, n int) {
	v := binary.LittleEndian.Uint64(b[k:])
	// A byte is a digit if its high nibble is 3 and adding 6 keeps it 3.
	// Carries only run from a non-digit to the bytes after it.
	const hi, threes, sixes = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030, 0x0606060606060606
	m := (v&hi ^ threes) | ((v+sixes)&hi ^ threes)
	n = bits.TrailingZeros64(m) >> 3
	// The n digits, as values, into the high bytes (a shift by 64 gives 0).
	d := (v - threes) << (64 - 8*uint(n))
	d = d*10 + d>>8
	const mask, mul1, mul2 = 0x000000FF000000FF, 100 + 1000000<<32, 1 + 10000<<32
	d = ((d&mask)*mul1 + (d>>16&mask)*mul2) >> 32
	return d, n
}

// scanRun appends the decimal digits at b[k:] to mant (mant*10+d each,
// wrapping on overflow) and returns it and the index after the digits.
func scanRun(b []byte, k int, mant uint64) (uint64, int) {
	for k+8 <= len(b) {
		v, n := digits8(b, k)
		mant = mant*pow10u[n] + v
		k += n
		if n < 8 {
			return mant, k
		}
	}
	for ; k < len(b); k++ {
		d := b[k] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	return mant, k
}
