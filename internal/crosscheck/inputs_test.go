package crosscheck

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// inputs are a program's inputs before they are stored: sdqlgen.Gen's V,
// W (vectors), M (a matrix) and s (a scalar), as coordinates with shapes.
type inputs struct {
	coords map[string]*datasets.Coords
	s      float64
	desc   string // how M was made (for failure messages)
}

// genInputs draws inputs of the kinds the cross-check is for. Keys of the
// generated programs go up to 5 (a literal 4, plus 1), so V, sometimes
// only 2 or 3 long, is looked up past its extent; M has empty rows and
// columns; values include explicit zeros; M sometimes comes from a Matrix
// Market file with duplicates or a symmetric, skew or pattern header.
func genInputs(r *rand.Rand) inputs {
	in := inputs{coords: map[string]*datasets.Coords{}, s: float64(r.IntN(9)-4) / 2}
	// V: every position stored (a dense vector, zeros included)
	nV := 2 + r.IntN(4)
	v := &datasets.Coords{Shape: []int{nV}, Idx: [][]int{nil}}
	for i := 0; i < nV; i++ {
		v.Idx[0] = append(v.Idx[0], i)
		v.Val = append(v.Val, value(r))
	}
	in.coords["V"] = v
	// W: a sparse vector of length 5
	w := &datasets.Coords{Shape: []int{5}, Idx: [][]int{nil}}
	for i := 0; i < 5; i++ {
		if r.IntN(2) == 0 {
			w.Idx[0] = append(w.Idx[0], i)
			w.Val = append(w.Val, value(r))
		}
	}
	in.coords["W"] = w
	m, desc := genMatrix(r)
	in.coords["M"], in.desc = m, desc
	return in
}

// value draws a value: often an explicit zero.
func value(r *rand.Rand) float64 {
	if r.IntN(5) == 0 {
		return 0
	}
	return float64(r.IntN(19)-9) / 4
}

// genMatrix draws M: 3–5 rows, 3–6 columns, some rows and columns empty,
// directly or through a Matrix Market file.
func genMatrix(r *rand.Rand) (*datasets.Coords, string) {
	rows, cols := 3+r.IntN(3), 3+r.IntN(4)
	if r.IntN(3) == 0 {
		return mtxMatrix(r, rows, cols)
	}
	m := &datasets.Coords{Shape: []int{rows, cols}, Idx: [][]int{nil, nil}}
	emptyRow, emptyCol := r.IntN(rows), r.IntN(cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if i == emptyRow || j == emptyCol || r.IntN(3) > 0 {
				continue
			}
			m.Idx[0] = append(m.Idx[0], i)
			m.Idx[1] = append(m.Idx[1], j)
			m.Val = append(m.Val, value(r))
		}
	}
	return m, fmt.Sprintf("%dx%d, row %d and column %d empty", rows, cols, emptyRow, emptyCol)
}

// mtxMatrix writes a Matrix Market file of a random kind and reads it
// back with the project's reader: duplicates (summed), symmetric and
// skew-symmetric files (expanded), pattern files (ones).
func mtxMatrix(r *rand.Rand, rows, cols int) (*datasets.Coords, string) {
	kind := []string{"general duplicates", "symmetric", "skew-symmetric", "pattern"}[r.IntN(4)]
	field, sym := "real", "general"
	switch kind {
	case "symmetric", "skew-symmetric":
		sym, cols = kind, rows
	case "pattern":
		field = "pattern"
	}
	var lines []string
	for n := 0; n < rows+cols; n++ {
		i, j := r.IntN(rows), r.IntN(cols)
		switch sym {
		case "symmetric":
			if j > i {
				i, j = j, i
			}
		case "skew-symmetric":
			if i == j {
				continue
			}
			if j > i {
				i, j = j, i
			}
		}
		if kind == "symmetric" || kind == "skew-symmetric" {
			if contains(lines, fmt.Sprintf("%d %d ", i+1, j+1)) {
				continue // the reader keeps duplicates; symmetric files store each position once
			}
		}
		if field == "pattern" {
			lines = append(lines, fmt.Sprintf("%d %d", i+1, j+1))
		} else {
			lines = append(lines, fmt.Sprintf("%d %d %g", i+1, j+1, value(r)))
		}
	}
	text := fmt.Sprintf("%%%%MatrixMarket matrix coordinate %s %s\n%d %d %d\n%s\n", field, sym, rows, cols, len(lines), strings.Join(lines, "\n"))
	c, _, err := datasets.ReadMatrixMarket(strings.NewReader(text), "M.mtx")
	if err != nil {
		panic(fmt.Sprintf("crosscheck: a generated Matrix Market file does not read: %v\n%s", err, text))
	}
	return c, kind + " Matrix Market file:\n" + text
}

func contains(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// store stores the inputs in formats: input i (in name order V, W, M)
// in the formats of its order at index (round + i), so that rounds 0,
// 1, ... give each input every format of its order.
func (in inputs) store(round int) (map[string]*formats.Tensor, error) {
	out := map[string]*formats.Tensor{}
	for i, name := range []string{"M", "V", "W"} {
		c := in.coords[name]
		fs := formats.ForOrder(c.Order())
		f := fs[(round+i)%len(fs)]
		t, err := formats.FromCoords(c.Shape, c.Idx, c.Val, f)
		if err != nil {
			return nil, fmt.Errorf("storing %s in %s: %v", name, f, err)
		}
		out[name] = t
	}
	return out, nil
}

// rounds is how many rounds of store give every input every format.
func rounds() int { return max(len(formats.ForOrder(1)), len(formats.ForOrder(2))) }

// describe lists each input's format and shape, by name.
func describe(ts map[string]*formats.Tensor) string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(ts)) {
		parts = append(parts, n+"="+ts[n].String())
	}
	return strings.Join(parts, " ")
}

// valueOf is the scalar input s.
func (in inputs) scalars() map[string]sdql.Value { return map[string]sdql.Value{"s": sdql.Real(in.s)} }
