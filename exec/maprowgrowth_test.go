package exec

import (
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestMapRowGrowth: a MapRow into a dense vector whose size the program
// does not give and whose presence it never asks (y below, only looked
// up: DropMarks' unmarked level) grows the vector when a window reaches
// past its end (growOrPanic), and gives the reference interpreter's
// result: a full convolution of a sparse signal s with a dense kernel K,
// each lane's window at its own offset (the lanes' own loops), over
// signals of one entry and of many, keys ascending (each window past the
// end) and not. The lane-major path's growth (one offset for every lane)
// is reached by no program found: lower turns such a scatter into a
// gather sized by its reads, or the vector into a hash map.
func TestMapRowGrowth(t *testing.T) {
	const read = " in sum(<_, j> in (0:z_len)) { j -> z_val(j) * y(j) }"
	programs := map[string]string{
		"offset per lane": "let y = sum(<_, p> in (0:s_len)) let r = s_row(p) in sum(<_, k> in (0:K_len)) { r + k -> s_val(p) * K_val(k) }" + read,
	}
	fs := map[string]lower.Format{"s": {Format: formats.COO, Order: 1}, "K": {Format: formats.Dense, Order: 1},
		"z": {Format: formats.Dense, Order: 1}}
	for name, src := range programs {
		prog := sdql.MustParse(src)
		for _, tc := range []struct {
			name string
			keys []int
			taps int
		}{
			{"one entry", []int{40}, 3},
			{"ascending", []int{2, 17, 18, 40, 41, 90, 91, 92, 300, 1000, 1001, 4000}, 5},
			{"descending", []int{4000, 1001, 1000, 300, 92, 91, 90, 41, 40, 18, 17, 2}, 5},
			{"long taps", []int{0, 7, 64, 65, 66, 67, 68, 69, 70, 71, 500}, 40},
		} {
			val := make(sdql.RealArray, len(tc.keys))
			for i := range val {
				val[i] = float64(i) + 0.5
			}
			K := make(sdql.RealArray, tc.taps)
			for i := range K {
				K[i] = 1 / float64(i+2)
			}
			z := make(sdql.RealArray, 4100) // past y's last key: those read 0
			for i := range z {
				z[i] = float64(i%7) - 2.5
			}
			in := map[string]sdql.Value{"s_row": sdql.IntArray(tc.keys), "s_val": val, "s_len": sdql.Int(len(tc.keys)),
				"K_val": K, "K_len": sdql.Int(tc.taps), "z_val": z, "z_len": sdql.Int(len(z))}
			want, err := sdql.Eval(prog, in)
			if err != nil {
				t.Fatal(err)
			}
			k, err := CompileFor(prog, in, Options{Formats: fs})
			if err != nil {
				t.Fatalf("%s, %s: %v", name, tc.name, err)
			}
			res, err := k.Run(in)
			if err != nil {
				t.Fatalf("%s, %s: %v", name, tc.name, err)
			}
			if got := res.Value(); !sdql.Equal(got, want) {
				t.Errorf("%s, %s: got %s, want %s", name, tc.name, sdql.FormatValue(got), sdql.FormatValue(want))
			}
		}
	}
}
