package gen

import "github.com/nablasd/nablasd/sdql"

// The results of the generated kernels as sdql values, one function per
// exec.GoLayout (written by hand; the kernels are generated).

// DenseValue is {k -> dst[k]}.
func DenseValue(dst []float64) sdql.Value {
	d := sdql.NewDict()
	for k, x := range dst {
		d.Set(k, sdql.Real(x))
	}
	return d
}

// MapValue is {keys[i] -> vals[i]}.
func MapValue(keys []int, vals []float64) sdql.Value {
	d := sdql.NewDict()
	for i, k := range keys {
		d.Set(k, sdql.Real(vals[i]))
	}
	return d
}

// DiagValue is {k -> {k -> dst[k]}}.
func DiagValue(dst []float64) sdql.Value {
	d := sdql.NewDict()
	for k, x := range dst {
		in := sdql.NewDict()
		in.Set(k, sdql.Real(x))
		d.Set(k, in)
	}
	return d
}

// PositionsValue is the matrix on a CSR structure: row k holds
// idx[q] -> dst[q] for q in pos[k]:pos[k+1].
func PositionsValue(pos, idx []int, dst []float64) sdql.Value {
	d := sdql.NewDict()
	for k := 0; k+1 < len(pos); k++ {
		if pos[k] == pos[k+1] {
			continue
		}
		row := sdql.NewDict()
		for q := pos[k]; q < pos[k+1]; q++ {
			x := dst[q]
			if old, ok := row.Get(idx[q]); ok {
				x += float64(old.(sdql.Real))
			}
			row.Set(idx[q], sdql.Real(x))
		}
		d.Set(k, row)
	}
	return d
}

// RowsValue is {k -> row k} for rows given by their entries.
func RowsValue(n int, row func(k int) ([]int, []float64)) sdql.Value {
	d := sdql.NewDict()
	for k := 0; k < n; k++ {
		keys, vals := row(k)
		if len(keys) > 0 {
			d.Set(k, MapValue(keys, vals))
		}
	}
	return d
}

// DeriveShape guesses a result's extent from bindings: one past the
// largest entry of the index arrays (NAME_idx, NAME_row), at least every
// NAME_len.
func DeriveShape(b map[string]sdql.Value) []int {
	n := 0
	for name, v := range b {
		switch v := v.(type) {
		case sdql.IntArray:
			if len(name) > 4 && (name[len(name)-4:] == "_idx" || name[len(name)-4:] == "_row") {
				for _, x := range v {
					n = max(n, x+1)
				}
			}
		case sdql.Int:
			if len(name) > 4 && name[len(name)-4:] == "_len" {
				n = max(n, int(v))
			}
		}
	}
	return []int{n}
}
