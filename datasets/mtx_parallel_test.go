package datasets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// bigMatrixText returns a coordinate file of n entries, several MiB, with
// comment and blank lines, CRLF line ends and varied number spellings, and
// the line number of each entry.
func bigMatrixText(n int, sym string, crlf bool) ([]byte, []int) {
	rng := rand.New(rand.NewPCG(7, 7))
	var b bytes.Buffer
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real %s%s%% comment%s%d %d %d%s", sym, nl, nl, 1000, 1000, n, nl)
	line := 3
	lines := make([]int, n)
	for e := range n {
		switch rng.IntN(200) {
		case 0:
			b.WriteString("% a comment line" + nl)
			line++
		case 1:
			b.WriteString("  \t" + nl)
			line++
		}
		i, j := 1+rng.IntN(1000), 1+rng.IntN(1000)
		if sym != "general" && j >= i {
			i, j = 1+max(i, j), min(i, j)
			i = min(i, 1000)
			if sym == "skew-symmetric" && i == j {
				i, j = 2, 1
			}
		}
		v := randomFloatString(rng)
		if _, ok := parseFloat([]byte(v)); !ok {
			v = "-1.5e-3"
		}
		sep := " "
		if rng.IntN(50) == 0 {
			sep = " \t "
		}
		b.WriteString(fmt.Sprint(i) + sep + fmt.Sprint(j) + sep + v + nl)
		line++
		lines[e] = line
	}
	return b.Bytes(), lines
}

// readBoth reads in with one goroutine and with several and checks that
// both give the same result or error.
func readBoth(t *testing.T, in []byte, wrap func([]byte) any) (*Coords, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c1, _, err1 := ReadMatrixMarket(wrap(in).(interface{ Read([]byte) (int, error) }), "P.mtx")
	runtime.GOMAXPROCS(4)
	c2, _, err2 := ReadMatrixMarket(wrap(in).(interface{ Read([]byte) (int, error) }), "P.mtx")
	if fmt.Sprint(err1) != fmt.Sprint(err2) {
		t.Fatalf("sequential error %v, parallel error %v", err1, err2)
	}
	if err1 == nil && !reflect.DeepEqual(c1, c2) {
		t.Fatalf("sequential and parallel results differ")
	}
	return c2, err2
}

func TestReadMatrixMarketParallel(t *testing.T) {
	readers := map[string]func([]byte) any{
		"bytes":   func(b []byte) any { return bytes.NewReader(b) },
		"unsized": func(b []byte) any { return iotest.HalfReader(bytes.NewReader(b)) },
		"gzip":    func(b []byte) any { return bytes.NewReader(gzipBytes(t, b)) },
	}
	if testing.Short() {
		delete(readers, "gzip")
	}
	const nEntries = 150_000
	syms := []string{"general", "symmetric", "skew-symmetric"}
	if raceEnabled {
		// the goroutines and their order are the same for every symmetry
		// (which only the parsing of a block sees): under the race
		// detector, ten times slower, the general matrix alone
		syms = syms[:1]
	}
	for _, sym := range syms {
		in, lines := bigMatrixText(nEntries, sym, sym == "symmetric")
		if len(in) < 3*chunkSize {
			t.Fatalf("input of %d bytes is too small", len(in))
		}
		for name, wrap := range readers {
			t.Run(sym+"/"+name, func(t *testing.T) {
				c, err := readBoth(t, in, wrap)
				if err != nil {
					t.Fatal(err)
				}
				// Against the entries parsed one line at a time.
				k := 0
				for e, line := range bytes.Split(in, []byte("\n"))[3:] {
					f := strings.Fields(string(line))
					if len(f) != 3 || f[0][0] == '%' {
						continue
					}
					v, _ := parseFloat([]byte(f[2]))
					i, _ := strconv.Atoi(f[0])
					j, _ := strconv.Atoi(f[1])
					if c.Idx[0][k] != i-1 || c.Idx[1][k] != j-1 || !sameFloat(c.Val[k], v) {
						t.Fatalf("line %d: entry %d is (%d, %d, %v), want (%d, %d, %v)", e+4, k, c.Idx[0][k], c.Idx[1][k], c.Val[k], i-1, j-1, v)
					}
					k++
					if sym != "general" && i != j {
						k++
					}
				}
				if k != c.NNZ() {
					t.Fatalf("%d entries, want %d", c.NNZ(), k)
				}
			})
		}
		if sym != "general" {
			continue
		}
		// Errors at a line deep inside, in file order.
		for _, e := range []int{0, 40_001, nEntries - 1} {
			l := lines[e]
			bad := bytes.Split(bytes.Clone(in), []byte("\n"))
			bad[l-1] = []byte("5 x 1")
			if e%2 == 1 {
				bad[l-1] = []byte("5 5 1 1")
			}
			bad2 := bytes.Join(bad, []byte("\n"))
			want := fmt.Sprintf("P.mtx:%d: invalid column index \"x\"", l)
			if e%2 == 1 {
				want = fmt.Sprintf("P.mtx:%d: want 3 fields (row column value), got 4", l)
			}
			// A second error later must not win.
			bad2 = append(bad2, "0 0 0\n"...)
			for name, wrap := range readers {
				if name == "gzip" && e != 40_001 {
					continue
				}
				if _, err := readBoth(t, bad2, wrap); err == nil || err.Error() != want {
					t.Errorf("%s: error at entry %d: got %v, want %s", name, e, err, want)
				}
			}
		}
		// Too many entries, too few, truncated gzip.
		total := bytes.Count(in, []byte("\n"))
		more := append(bytes.Clone(in), "1 1 1\n"...)
		if _, err := readBoth(t, more, readers["bytes"]); err == nil || err.Error() != fmt.Sprintf("P.mtx:%d: more entries than the %d declared", total+1, nEntries) {
			t.Errorf("extra entry: got %v", err)
		}
		cut := in[:bytes.LastIndexByte(in[:len(in)-1], '\n')+1]
		if _, err := readBoth(t, cut, readers["unsized"]); err == nil || err.Error() != fmt.Sprintf("P.mtx:%d: unexpected end of input after %d of %d entries", total-1, nEntries-1, nEntries) {
			t.Errorf("missing entry: got %v", err)
		}
		gz := gzipBytes(t, in)
		if testing.Short() {
			continue
		}
		if _, err := readBoth(t, gz[:len(gz)*2/3], func(b []byte) any { return bytes.NewReader(b) }); err == nil || !strings.Contains(err.Error(), "truncated gzip data") {
			t.Errorf("truncated gzip: got %v", err)
		}
		long := append(bytes.Clone(in[:len(in)/2]), bytes.Repeat([]byte("1"), 3<<20)...)
		if _, err := readBoth(t, long, readers["unsized"]); err == nil || !strings.Contains(err.Error(), "line longer than") {
			t.Errorf("long line: got %v", err)
		}
	}
}

func sameFloat(a, b float64) bool { return a == b || a != a && b != b }
