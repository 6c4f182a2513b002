package exec_test

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// TestTempInResult: gradients whose temporary x̄ the closures keep in the
// result (exec/inresult.go) give the reference interpreter's gradient on
// one, two and three goroutines, over runs of one kernel into one result
// that alternate sizes where x̄ fits in the result and where it does not
// (the downsampling's x̄ has K_len + 2n - 2 keys, past the result's x_len
// for the largest n; the copy reads zero past x̄'s keys) and where its
// copy loop's range is the result's whole (the Toeplitz band's). A run
// that leaves stale values where x̄ stood, or that loses x̄'s own memory
// to the result's, differs. It fails, tried, when the copy clears none of
// the keys x̄ does not hold, and when x̄'s Init does not clear the view.
func TestTempInResult(t *testing.T) {
	vec := testVector
	for _, c := range []struct {
		name, src string
		in        nablasd.Inputs
		runs      []nablasd.Inputs
	}{
		{"downsample", `let y = sum(<i, _> in (0:n)) { i -> sum(<k, w> in K) w * x(2 * i + k) } in
sum(<i, v> in y) v * v`, nablasd.Inputs{"x": vec(301), "K": vec(8), "n": 147},
			[]nablasd.Inputs{{"n": 147}, {"n": 20}, {"n": 150}, {"n": 147}, {"n": 3}}},
		{"toeplitz", `let y = sum(<i, _> in (0:n)) { i -> sum(<k, w> in t) w * x(i + k - b) } in
sum(<i, v> in y) v * v`, nablasd.Inputs{"x": vec(301), "t": vec(5), "n": 301, "b": 2},
			[]nablasd.Inputs{{"n": 301}, {"n": 40}, {"n": 301, "b": 0}, {"n": 7, "b": 4}}},
	} {
		for _, threads := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/threads=%d", c.name, threads), func(t *testing.T) {
				q, err := nablasd.Prepare(c.src, c.in, &nablasd.Options{Exec: "compiled", Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				k, err := q.Compile("x")
				if err != nil {
					t.Fatal(err)
				}
				res := k.NewResult()
				for i, in := range c.runs {
					if err := k.Run(res, in); err != nil {
						t.Fatal(err)
					}
					all := nablasd.Inputs{}
					for n, v := range c.in {
						all[n] = v
					}
					for n, v := range in {
						all[n] = v
					}
					ref, err := nablasd.Prepare(c.src, all, &nablasd.Options{Exec: "interp"})
					if err != nil {
						t.Fatal(err)
					}
					want, err := ref.Grad("x")
					if err != nil {
						t.Fatal(err)
					}
					if d := sdql.DiffDicts(res.Value(), want[0].Value(), 1e-12); d != "" {
						t.Fatalf("run %d (%v): %s", i, in, d)
					}
				}
			})
		}
	}
}
