package exec

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestSpanMerge runs total variation's gradient with a third term at 2i,
// a parallel loop adding into positions i, i + 1 and 2i of a dense
// workspace (keys of two strides: not written in place, inPlaceRows), on
// two and three workers, several times on one kernel and result with different
// inputs (of three lengths): the copies of the workers but the first are merged over the
// positions their chunks wrote (findSpan), and zeroed there for the next
// run, which then does not clear them. Each run gives the interpreter's
// result, the span of the last worker's copy starts past 0, and its copy
// is left zero.
func TestSpanMerge(t *testing.T) {
	const src = `let xbar = sum(<i, _> in (0:x_len - 1))
    let d = x_val(i + 1) - x_val(i) in
    let g = d / sqrt(d * d + eps) in
    { i -> -g } + { i + 1 -> g } + { 2 * i -> g } in
sum(<i, _> in (0:x_len)) { i -> xbar(i) }`
	inputs := func(n, seed int, zeroHead bool) map[string]sdql.Value {
		x := make(sdql.RealArray, n)
		for i := range x {
			x[i] = float64((i*seed)%11) - 4.5 + float64(i)/512
			if zeroHead && i < n/3 {
				x[i] = 0 // the first chunk's differences zero
			}
		}
		return map[string]sdql.Value{"x_val": x, "x_len": sdql.Int(n), "eps": sdql.Real(0.25)}
	}
	runs := []map[string]sdql.Value{inputs(3001, 3, false), inputs(3001, 7, true), inputs(3001, 3, false),
		inputs(2001, 5, false), inputs(4001, 3, false), inputs(4001, 7, true)}
	for _, threads := range []int{2, 3} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			prog, info, p := lowerFor(t, src, runs[0])
			k, err := CompileLowered(prog, info, p, Options{Formats: csrFormats, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			var res *Result
			for r, in := range runs {
				if res == nil {
					res, err = k.Run(in)
				} else {
					err = k.RunInto(res, in)
				}
				if err != nil {
					t.Fatal(err)
				}
				want, err := sdql.Eval(prog, in)
				if err != nil {
					t.Fatal(err)
				}
				if d := sdql.DiffDicts(res.Value(), want, 1e-12); d != "" {
					t.Fatalf("run %d: %s", r, d)
				}
				last := res.fr.pool[threads-1]
				found := false
				for _, c := range last.own {
					if c == nil || !c.span.ok {
						continue
					}
					found = true
					if c.span.lo == 0 || !c.zero {
						t.Errorf("run %d: the last worker's copy spans %d..%d (zero after the merge: %v), want a span from past 0, zeroed", r, c.span.lo, c.span.hi, c.zero)
					}
					for q, v := range c.vals {
						if v != 0 {
							t.Fatalf("run %d: the last worker's copy holds %v at %d after the merge", r, v, q)
						}
					}
				}
				if !found {
					t.Fatalf("run %d: no worker's copy was merged over its span", r)
				}
			}
		})
	}
}
