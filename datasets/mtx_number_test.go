package datasets

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var floatCases = flag.Int("mtx.floatcases", 1_000_000, "random strings TestParseFloatExact compares with strconv")

// checkFloat compares parseFloat and scanFloat on s with strconv.ParseFloat,
// bit for bit; where strconv fails, parseFloat must fail too.
func checkFloat(t *testing.T, s string) bool {
	t.Helper()
	want, err := strconv.ParseFloat(s, 64)
	got, ok := parseFloat([]byte(s))
	if err != nil {
		if ok {
			t.Errorf("parseFloat(%q) = %v, strconv fails: %v", s, got, err)
			return false
		}
		return true
	}
	if !ok || math.Float64bits(got) != math.Float64bits(want) {
		// Other spellings (inf, nan, hexadecimal, underscores) are declined
		// on purpose: the caller then asks strconv.
		if !ok && strings.Trim(s, "0123456789.eE+-") != "" {
			return true
		}
		t.Errorf("parseFloat(%q) = %v (%#x), %v; strconv: %v (%#x)", s, got, math.Float64bits(got), ok, want, math.Float64bits(want))
		return false
	}
	// In a line, followed by a delimiter.
	for _, d := range []string{" 9", "\t", "\r\n", "\n1"} {
		g, k, ok := scanFloat([]byte(s+d), 0)
		if !ok || k != len(s) || math.Float64bits(g) != math.Float64bits(want) {
			t.Errorf("scanFloat(%q) = %v, %d, %v; want %v, %d", s+d, g, k, ok, want, len(s))
			return false
		}
	}
	return true
}

func TestParseFloatEdgeCases(t *testing.T) {
	cases := []string{
		"0", "-0", "+0", "0.0", "-0.0", "00", ".0", "0.", "-.0e5", "0e999999999", "-0e-999999999",
		"1", "-1", "+1", ".5", "5.", "1.e5", "1e", "1e+", "e5", ".", "-", "+", "", "1..2", "1e5.5", "1.5x", "--1", "+-1",
		"1_0", "0x1p-2", "inf", "-Inf", "NaN", "infinity", "1e1000", "-1e1000", "1e-1000",
		"9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
		"18014398509481985", "18014398509481987", "9223372036854775807", "9223372036854775808",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "1234567890123456789", "12345678901234567890",
		"0.1", "0.2", "0.3", "1e22", "1e23", "1e-22", "1e-23", "9007199254740993e22", "9007199254740993e-22",
		"2.2250738585072011e-308", "2.2250738585072014e-308", "2.2250738585072012e-308", "4.9406564584124654e-324",
		"2.4703282292062327e-324", "2.4703282292062328e-324", "1e-324", "5e-324", "1.7976931348623157e308",
		"1.7976931348623158e308", "1.7976931348623159e308", "8.98846567431158e307", "4.4501477170144023e-308",
		"1e-348", "1e-349", "1e347", "1e308", "1e309", "123.4567890123456", "-9.999999999999999e-01",
		"6.02214076e23", "3.141592653589793", "2.718281828459045e0", "1.0000000000000002", "0.9999999999999999",
		"000000000000000000000001.5", "0.00000000000000000000000000001234567890123456789",
		"1" + strings.Repeat("0", 400) + "e-400", "0." + strings.Repeat("0", 330) + "1",
	}
	for _, s := range cases {
		checkFloat(t, s)
	}
}

// randomFloatString returns a number in one of several spellings.
func randomFloatString(rng *rand.Rand) string {
	switch rng.IntN(8) {
	case 0: // a random float64 in shortest form, %e or %g
		x := math.Float64frombits(rng.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 1
		}
		switch rng.IntN(3) {
		case 0:
			return strconv.FormatFloat(x, 'g', -1, 64)
		case 1:
			return strconv.FormatFloat(x, 'e', rng.IntN(20), 64)
		}
		return strconv.FormatFloat(x, 'g', 1+rng.IntN(19), 64)
	case 1: // a value of ordinary magnitude with 15-17 digits, as files hold
		x := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(41)-20))
		return strconv.FormatFloat(x, 'g', 15+rng.IntN(3), 64)
	case 2: // halfway and near-halfway: an odd multiple of half an ulp
		m := rng.Uint64()>>rng.IntN(12) | 1<<52
		e := rng.IntN(60) - 30
		s := new(big.Float).SetPrec(200).SetMantExp(new(big.Float).SetUint64(2*m+1), e-1)
		d := s.Text('g', 30)
		if rng.IntN(2) == 0 {
			d = s.Text('g', 17+rng.IntN(3))
		}
		return d
	}
	// digits, a point and an exponent put together
	var b strings.Builder
	switch rng.IntN(4) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	for range rng.IntN(3) {
		b.WriteByte('0')
	}
	nd := 1 + rng.IntN(21)
	point := rng.IntN(nd + 2)
	for i := range nd {
		if i == point {
			b.WriteByte('.')
		}
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	if point == nd {
		b.WriteByte('.')
	}
	if rng.IntN(3) > 0 {
		b.WriteByte("eE"[rng.IntN(2)])
		switch rng.IntN(3) {
		case 0:
			b.WriteByte('-')
		case 1:
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(rng.IntN(700) - 350 + 350*rng.IntN(2)))
	}
	if rng.IntN(500) == 0 { // a stray character
		s := []byte(b.String())
		s[rng.IntN(len(s))] = "x.e-+ 1"[rng.IntN(7)]
		return string(s)
	}
	return b.String()
}

// TestParseFloatExact compares parseFloat with strconv.ParseFloat bit for
// bit on -mtx.floatcases random strings (spread over the cores).
func TestParseFloatExact(t *testing.T) {
	n := *floatCases
	if testing.Short() {
		n /= 20
	}
	workers := runtime.GOMAXPROCS(0)
	done := make(chan int, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			bad := 0
			for range n / workers {
				if !checkFloat(t, randomFloatString(rng)) {
					if bad++; bad > 20 {
						break
					}
				}
			}
			done <- bad
		}()
	}
	for range workers {
		<-done
	}
}

// TestEiselLemireTable checks the powers of ten against math/big and
// against Go's own table when the Go source tree has it.
func TestEiselLemireTable(t *testing.T) {
	ten := big.NewInt(10)
	for e := elPow10Min; e <= elPow10Max; e++ {
		// The 128 leading bits of 10^e, rounded down.
		var m *big.Int
		if e >= 0 {
			m = new(big.Int).Exp(ten, big.NewInt(int64(e)), nil)
			if s := m.BitLen() - 128; s > 0 {
				m.Rsh(m, uint(s))
			} else {
				m.Lsh(m, uint(-s))
			}
		} else {
			d := new(big.Int).Exp(ten, big.NewInt(int64(-e)), nil)
			m = new(big.Int).Lsh(big.NewInt(1), uint(d.BitLen()+127))
			m.Quo(m, d) // in (2^127, 2^128): 10^-e is not a power of two
		}
		want := new(big.Int).Lsh(new(big.Int).SetUint64(elPow10[e-elPow10Min][0]), 64)
		want.Or(want, new(big.Int).SetUint64(elPow10[e-elPow10Min][1]))
		if m.Cmp(want) != 0 || m.BitLen() != 128 {
			t.Errorf("10^%d: table has %#x, math/big gives %#x", e, want, m)
		}
	}
	path := filepath.Join(runtime.GOROOT(), "src", "internal", "strconv", "pow10tab.go")
	f, err := os.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	tab := &elPow10
	seen := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var hi, lo uint64
		var e, be int
		if _, err := fmt.Sscanf(strings.TrimSpace(sc.Text()), "{0x%x, 0x%x}, // 1e%d * 2**%d", &hi, &lo, &e, &be); err != nil {
			continue
		}
		seen++
		if e < elPow10Min || e > elPow10Max || tab[e-elPow10Min] != [2]uint64{hi, lo} {
			t.Errorf("10^%d: got %#x, Go has {%#x, %#x}", e, tab[e-elPow10Min], hi, lo)
		}
	}
	if seen != elPow10Max-elPow10Min+1 {
		t.Errorf("compared %d entries of %s", seen, path)
	}
}
