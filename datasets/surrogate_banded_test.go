package datasets

import (
	"testing"
)

// TestBandedSurrogate: pdb1HYS's banded surrogate has the real matrix's
// shape and entry count (symmetric, its diagonal), every entry within the
// half-bandwidth it reports, and that half-bandwidth is the narrowest
// holding the entries (one less would not).
func TestBandedSurrogate(t *testing.T) {
	if testing.Short() {
		t.Skip("4.3 million entries: a second or two")
	}
	m, err := LookupMatrix("pdb1HYS")
	if err != nil {
		t.Fatal(err)
	}
	c, bw, err := BandedSurrogate("pdb1HYS", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkBanded(t, c, bw, m)
}

// TestBandedSurrogateSmall is TestBandedSurrogate's check on bcspwr10, the
// smallest Table 1 matrix (-short).
func TestBandedSurrogateSmall(t *testing.T) {
	m, err := LookupMatrix("bcspwr10")
	if err != nil {
		t.Fatal(err)
	}
	c, bw, err := BandedSurrogate("bcspwr10", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkBanded(t, c, bw, m)
}

func checkBanded(t *testing.T, c *Coords, bw int, m Matrix) {
	t.Helper()
	if c.Shape[0] != m.Rows || c.Shape[1] != m.Cols || len(c.Val) != m.NNZ {
		t.Fatalf("%s: shape %v with %d entries, want %dx%d with %d", m.Name, c.Shape, len(c.Val), m.Rows, m.Cols, m.NNZ)
	}
	off, diag := 0, 0
	seen := map[[2]int]float64{}
	for e := range c.Val {
		i, j := c.Idx[0][e], c.Idx[1][e]
		if d := i - j; d > bw || -d > bw {
			t.Fatalf("%s: entry (%d, %d) outside the half-bandwidth %d", m.Name, i, j, bw)
		}
		if i == j {
			diag++
		} else if i > j {
			off++
		}
		seen[[2]int{i, j}] = c.Val[e]
	}
	for k, v := range seen {
		if w, ok := seen[[2]int{k[1], k[0]}]; !ok || w != v {
			t.Fatalf("%s: entry (%d, %d) = %g has no symmetric twin", m.Name, k[0], k[1], v)
		}
	}
	if diag != m.Diagonal() {
		t.Errorf("%s: %d diagonal entries, want %d", m.Name, diag, m.Diagonal())
	}
	n := m.Rows
	if room := (bw-1)*n - (bw-1)*bw/2; room >= off {
		t.Errorf("%s: half-bandwidth %d is not the narrowest: %d holds the %d entries below the diagonal", m.Name, bw, bw-1, off)
	}
	t.Logf("%s: half-bandwidth %d, %d entries", m.Name, bw, len(c.Val))
}
