package datasets

import (
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

// parseFloat parses a decimal floating-point number. Numbers whose
// significant digits make an integer of at most 2^53 and with a small exponent are converted exactly with one
// float64 multiplication or division (Clinger's fast path); all others go to
// strconv.ParseFloat, which rounds correctly too.
func parseFloat(b []byte) (float64, bool) {
	if f, ok := parseFloatFast(b); ok {
		return f, true
	}
	if len(b) == 0 {
		return 0, false
	}
	// The string does not outlive the call: strconv copies it into errors.
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return f, err == nil
}

func parseFloatFast(b []byte) (float64, bool) {
	i, n := 0, len(b)
	neg := false
	if i < n && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	sawDigit := false
	for ; i < n; i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		sawDigit = true
		if mant == 0 && d == 0 {
			continue
		}
		mant = mant*10 + uint64(d)
		digits++
	}
	if i < n && b[i] == '.' {
		i++
		for ; i < n; i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			sawDigit = true
			exp--
			if mant == 0 && d == 0 {
				continue
			}
			mant = mant*10 + uint64(d)
			digits++
		}
	}
	if !sawDigit || digits > 19 || mant > 1<<53 {
		return 0, false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < n && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == n {
			return 0, false
		}
		e := 0
		for ; i < n; i++ {
			d := b[i] - '0'
			if d > 9 || e > 1000 {
				return 0, false
			}
			e = e*10 + int(d)
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != n {
		return 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp < 0 && exp >= -22:
		f /= pow10[-exp]
	case exp >= 0 && exp <= 22:
		f *= pow10[exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}
