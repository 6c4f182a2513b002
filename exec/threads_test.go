package exec

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// lowThresholds makes every step with a little work parallel, so that
// small inputs exercise the parallel paths; restored after the test.
func lowThresholds(t *testing.T) {
	c, d, s, o, i := minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations
	minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations = 4, 4, 4, 4, 1
	t.Cleanup(func() { minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations = c, d, s, o, i })
}

// sameEntriesTol is sameEntries (the same keys at every level) with reals
// equal within a relative tolerance (0: exactly).
func sameEntriesTol(a, b sdql.Value, tol float64) bool {
	if _, ok := a.(*sdql.Dict); !ok {
		return sdql.ApproxEqual(a, b, tol)
	}
	n, m, ok := 0, 0, true
	sdql.Entries(a, func(k int, x sdql.Value) bool {
		n++
		y, found := sdql.Lookup(b, k)
		ok = found && sameEntriesTol(x, y, tol)
		return ok
	})
	sdql.Entries(b, func(int, sdql.Value) bool { m++; return true })
	return ok && n == m
}

// threadInput is a matrix A (rows x cols, CSR), a square matrix B
// (cols x cols, CSR) and vectors, bound as the kernels' inputs.
type threadInput struct {
	name       string
	rows, cols int
	b          map[string]sdql.Value
	big        bool // enough work for every step to split (lowThresholds)
}

// csrOf binds a matrix given by its rows' columns and values.
func csrOf(b map[string]sdql.Value, name string, cols [][]int, vals [][]float64) {
	pos := []int{0}
	var idx []int
	var val []float64
	for i := range cols {
		idx = append(idx, cols[i]...)
		val = append(val, vals[i]...)
		pos = append(pos, len(idx))
	}
	b[name+"_len"] = sdql.Int(len(cols))
	b[name+"_pos"] = sdql.IntArray(pos)
	b[name+"_idx"] = sdql.IntArray(idx)
	b[name+"_val"] = sdql.RealArray(val)
}

// newThreadInput makes an input whose row i of A has the columns cols(i)
// (values random, some exact zeros); B is random with density 0.3.
func newThreadInput(name string, rows, cols int, big bool, r *rand.Rand, colsOf func(i int) []int) threadInput {
	b := map[string]sdql.Value{"s": sdql.Real(1.5), "beta": sdql.Real(0.7)}
	value := func() float64 {
		if r.IntN(10) == 0 {
			return 0
		}
		return float64(r.IntN(17)-8) / 4
	}
	ac, av := make([][]int, rows), make([][]float64, rows)
	for i := range ac {
		ac[i] = colsOf(i)
		for range ac[i] {
			av[i] = append(av[i], value())
		}
	}
	csrOf(b, "A", ac, av)
	bc, bv := make([][]int, cols), make([][]float64, cols)
	for i := range bc {
		for j := 0; j < cols; j++ {
			if r.IntN(10) < 3 {
				bc[i] = append(bc[i], j)
				bv[i] = append(bv[i], value())
			}
		}
	}
	csrOf(b, "B", bc, bv)
	// vectors on A's entries: V1, V2 reversed, V2 as COO keys with repeats
	v1 := b["A_val"].(sdql.RealArray)
	n := len(v1)
	v2, row := make(sdql.RealArray, n), make(sdql.IntArray, n)
	for i := range v1 {
		v2[n-1-i] = v1[i]
		row[i] = r.IntN(max(n/3, 1))
	}
	b["V1_len"], b["V1_val"] = sdql.Int(n), v1
	b["V2_len"], b["V2_val"], b["V2_row"] = sdql.Int(n), v2, row
	x := make(sdql.RealArray, cols)
	for j := range x {
		x[j] = value()
	}
	b["x_val"] = x
	return threadInput{name, rows, cols, b, big}
}

func threadInputs() []threadInput {
	r := rand.New(rand.NewPCG(7, 11))
	random := func(p int) func(int) []int {
		return func(i int) []int {
			var c []int
			if i%7 == 3 {
				return nil // empty rows
			}
			for j := 0; j < 60; j++ {
				if r.IntN(100) < p {
					c = append(c, j)
				}
			}
			return c
		}
	}
	return []threadInput{
		newThreadInput("random", 60, 60, true, r, random(30)),
		// fewer rows than workers, many entries each
		newThreadInput("two rows", 2, 60, true, r, random(90)),
		// one row holds every entry
		newThreadInput("one full row", 40, 60, true, r, func(i int) []int {
			if i != 17 {
				return nil
			}
			return random(95)(0)
		}),
		// columns repeated in a row, unsorted (BATAx merges them)
		newThreadInput("repeated columns", 30, 60, true, r, func(i int) []int {
			c := random(20)(i)
			if len(c) > 2 {
				c = append(c, c[1], c[0])
			}
			return c
		}),
		newThreadInput("empty", 5, 60, false, r, func(int) []int { return nil }),
	}
}

// threadPrograms are the shapes of every parallel step: the six benchmark
// kernels as the pipeline writes them and the hand-written variants, a
// dot-gather, and programs for the general split.
var threadPrograms = []struct {
	name, src string
	shape     func(in threadInput) []int
	exact     bool // no reassociation: results exactly the serial ones
}{
	{"vvd", "sum(<_, i> in (0:V1_len)) { i -> if 0 <= i && i < V2_len then V2_val(i) }", vecShape, true},
	{"vsm", "let t = sum(<_, i> in (0:V1_len)) { i -> V1_val(i) } in (s + s) * t", vecShape, true},
	{"vsm-unique", "sum(<_, i> in (0:V1_len)) { unique(i) -> 2.0 * s * V1_val(i) }", vecShape, true},
	{"vvd-gather", "let V = sum(<_, i> in (0:V2_len)) { i -> V2_val(i) } in sum(<_, i> in (0:V1_len)) { unique(i) -> V(i) }", vecShape, true},
	{"vvd-coo", "sum(<_, i> in (0:V2_len)) { V2_row(i) -> V2_val(i) }", vecShape, false},
	{"vva", "sum(<_, i> in (0:V1_len)) { i -> { i -> 1 } }", nil, true},
	{"vva-value", "sum(<_, i> in (0:V1_len)) { unique(i) -> { unique(i) -> s * V1_val(i) } }", nil, true},
	{"smvm", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }", colShape, false},
	{"smvm-x", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> s * A_val(p) * x_val(j) }", colShape, false},
	{"smmm", "let t = sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in " +
		"sum(<k, a> in t) if 0 <= k && k < B_len then sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { k -> { j1 -> a } }", nil, false},
	{"smmm-value", "let t = sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in " +
		"sum(<k, a> in t) if 0 <= k && k < 7 then sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { k -> { j1 -> a * s * B_val(p1) } }", nil, false},
	{"smmm-rows", "let t = sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i + 1))) { k -> A_val(p) } in " +
		"sum(<_, k> in (0:B_len)) { unique(k) -> sum(<q, j> in B_idx(B_pos(k):B_pos(k + 1))) { unique(j) -> t(k) } }", nil, false},
	{"smmm-rows-value", "sum(<_, k> in (0:B_len)) { unique(k) -> sum(<q, j> in B_idx(B_pos(k):B_pos(k + 1))) { unique(j) -> s * B_val(q) } }", nil, true},
	{"batax", "sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in " +
		"sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> beta * v * v1 } }", nil, true},
	{"dot", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) A_val(p) * x_val(j)", nil, false},
	// the general split: keys of their own per row (direct or moved),
	// keys shared (merged), a scalar
	{"general-own", "sum(<_, i> in (0:A_len)) { i -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 0.5 then { j * j -> exp(A_val(p) / 8.0) } }", nil, false},
	{"general-own-shape", "sum(<_, i> in (0:A_len)) { i -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 0.5 then { j * j -> exp(A_val(p) / 8.0) } }", rowShape, false},
	{"general-shared", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 0.0 then { j * 2 -> { i -> A_val(p) } }", nil, false},
	{"general-shared-shape", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 0.0 then { j * 2 -> { i -> A_val(p) } }", func(in threadInput) []int { return []int{2 * in.cols} }, false},
	{"general-scalar", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 0.0 then A_val(p) * A_val(p)", nil, false},
}

func vecShape(in threadInput) []int { return []int{int(in.b["V1_len"].(sdql.Int))} }
func colShape(in threadInput) []int { return []int{in.cols} }
func rowShape(in threadInput) []int { return []int{in.rows} }

// TestThreads runs every parallel step with 2, 3 and 4 workers (the
// thresholds lowered) and compares with the interpreter and the serial
// kernel: exactly where no sum is reassociated. One destination (and one
// kernel, where the result's extent allows) runs every input in turn,
// twice each, and the whole sequence twice (state kept between runs must
// not leak into the next), and inputs with enough work must split
// (Kernel.Threads).
func TestThreads(t *testing.T) {
	lowThresholds(t)
	inputs := threadInputs()
	for _, pg := range threadPrograms {
		prog, err := sdql.Parse(pg.name, pg.src)
		if err != nil {
			t.Fatal(err)
		}
		shape := func(in threadInput) []int {
			if pg.shape == nil {
				return nil
			}
			return pg.shape(in)
		}
		// the interpreter's and the serial kernel's results per input
		wants, serials := make([]sdql.Value, len(inputs)), make([]sdql.Value, len(inputs))
		for x, in := range inputs {
			if wants[x], err = sdql.Eval(prog, in.b); err != nil {
				t.Fatalf("%s: %v", pg.name, err)
			}
			k, err := CompileFor(prog, in.b, Options{ResultShape: shape(in)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := k.Run(in.b)
			if err != nil {
				t.Fatal(err)
			}
			serials[x] = res.Value()
		}
		tol := 1e-12
		if pg.exact {
			tol = 0
		}
		variants := []Options{{}}
		if strings.HasPrefix(pg.name, "general") {
			variants = append(variants, Options{NoDense: true, Dict: "map"})
		}
		for _, o := range variants {
			for _, threads := range []int{2, 3, 4} {
				o.Threads = threads
				var k *Kernel
				var r *Result
				for pass := 0; pass < 2*len(inputs); pass++ {
					x := pass % len(inputs)
					in := inputs[x]
					o.ResultShape = shape(in)
					name := fmt.Sprintf("%s on %s, %+v", pg.name, in.name, o)
					if k == nil || o.ResultShape != nil {
						// a kernel per extent; the destination stays
						if k, err = CompileFor(prog, in.b, o); err != nil {
							t.Fatal(err)
						}
					}
					if r == nil {
						r = k.NewResult()
					}
					for range 2 { // a kernel's second run reuses its state
						if err := k.RunInto(r, in.b); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
					}
					got := r.Value()
					if !sdql.Equal(got, wants[x]) || o.ResultShape == nil && !o.NoDense && !sameEntries(got, wants[x]) {
						t.Errorf("%s: got %s, interpreter %s", name, sdql.FormatValue(got), sdql.FormatValue(wants[x]))
					}
					if !o.NoDense && !sameEntriesTol(got, serials[x], tol) {
						t.Errorf("%s: got %s, serial kernel %s", name, sdql.FormatValue(got), sdql.FormatValue(serials[x]))
					}
					// the general split cuts rows: at most one worker a row
					use := threads
					if strings.HasPrefix(pg.name, "general") {
						use = min(threads, in.rows)
					}
					if in.big && k.Threads() != use {
						t.Errorf("%s: ran on %d goroutines, want %d", name, k.Threads(), use)
					}
				}
			}
		}
	}
}

// TestThreadsNoAllocs: a parallel run into a reused destination does not
// allocate, as a serial one does not.
func TestThreadsNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	lowThresholds(t)
	in := threadInputs()[0]
	for _, pg := range threadPrograms {
		prog, err := sdql.Parse(pg.name, pg.src)
		if err != nil {
			t.Fatal(err)
		}
		var shape []int
		if pg.shape != nil {
			shape = pg.shape(in)
		}
		k, err := CompileFor(prog, in.b, Options{Threads: 3, ResultShape: shape})
		if err != nil {
			t.Fatal(err)
		}
		r := k.NewResult()
		for range 3 {
			if err := k.RunInto(r, in.b); err != nil {
				t.Fatal(err)
			}
		}
		if n := testing.AllocsPerRun(5, func() { _ = k.RunInto(r, in.b) }); n > 0 {
			t.Errorf("%s: %v allocations per run", pg.name, n)
		}
	}
}

// TestThreadsSerialBelowThreshold: with the default thresholds a small
// input runs serially, and Kernel.Threads says so; a program the
// primitives do not run still splits once there are enough rows.
func TestThreadsSerialBelowThreshold(t *testing.T) {
	in := threadInputs()[1] // two rows of 60 columns
	for _, pg := range threadPrograms {
		prog, err := sdql.Parse(pg.name, pg.src)
		if err != nil {
			t.Fatal(err)
		}
		k, err := CompileFor(prog, in.b, Options{Threads: 4})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Run(in.b); err != nil {
			t.Fatal(err)
		}
		if k.Threads() != 1 {
			t.Errorf("%s: %d goroutines for a small input", pg.name, k.Threads())
		}
	}
}

// TestThreadsErrors: a run whose parts fail (a key out of a dense result's
// range in one worker's part) reports the error, and the kernel runs
// again afterwards.
func TestThreadsErrors(t *testing.T) {
	lowThresholds(t)
	in := threadInputs()[0]
	for _, src := range []string{
		"sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }",
		"sum(<_, i> in (0:A_len)) { i -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 0.5 then { j * j -> exp(A_val(p) / 8.0) } }",
	} {
		prog, err := sdql.Parse("", src)
		if err != nil {
			t.Fatal(err)
		}
		k, err := CompileFor(prog, in.b, Options{Threads: 3, ResultShape: []int{in.cols / 2}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := k.Run(in.b); err == nil {
				t.Errorf("%s: no error for keys out of the result's range", src)
			}
		}
	}
}

// TestThreadsConcurrentRuns: one kernel run by several goroutines at once,
// each into its own destination, every run parallel (the forks share the
// pool of workers).
func TestThreadsConcurrentRuns(t *testing.T) {
	lowThresholds(t)
	in := threadInputs()[0]
	for _, name := range []string{"smvm", "batax", "general-shared"} {
		var src string
		for _, pg := range threadPrograms {
			if pg.name == name {
				src = pg.src
			}
		}
		prog, err := sdql.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(prog, in.b)
		if err != nil {
			t.Fatal(err)
		}
		k, err := CompileFor(prog, in.b, Options{Threads: 3})
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 4)
		for g := 0; g < 4; g++ {
			go func() {
				r := k.NewResult()
				for range 5 {
					if err := k.RunInto(r, in.b); err != nil {
						errs <- err
						return
					}
					if got := r.Value(); !sdql.Equal(got, want) {
						errs <- fmt.Errorf("%s: got %s, want %s", name, sdql.FormatValue(got), sdql.FormatValue(want))
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	}
}

// TestThreadsMany: more goroutines than parts of work (empty parts, blocks
// of no rows) still give the interpreter's results.
func TestThreadsMany(t *testing.T) {
	lowThresholds(t)
	in := threadInputs()[0]
	for _, pg := range threadPrograms {
		prog, err := sdql.Parse(pg.name, pg.src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(prog, in.b)
		if err != nil {
			t.Fatal(err)
		}
		var shape []int
		if pg.shape != nil {
			shape = pg.shape(in)
		}
		k, err := CompileFor(prog, in.b, Options{Threads: 64, ResultShape: shape})
		if err != nil {
			t.Fatal(err)
		}
		res, err := k.Run(in.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Value(); !sdql.Equal(got, want) {
			t.Errorf("%s: got %s, want %s", pg.name, sdql.FormatValue(got), sdql.FormatValue(want))
		}
		if k.Threads() < 2 {
			t.Errorf("%s: ran on %d goroutines", pg.name, k.Threads())
		}
	}
}
