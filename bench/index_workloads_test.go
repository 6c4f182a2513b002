package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// indexTestSize is a small size of each workload's signal (the stencil's
// side): past its kernel's taps, so that every boundary case is there.
func indexTestSize(name string) int {
	switch name {
	case "stencil2d":
		return 9
	case "conv1d":
		return 50
	}
	return 23
}

// runIndex runs a workload's value (wrt "") or gradient through nablasd
// with the options given.
func runIndex(t *testing.T, d *IndexData, wrt string, o *nablasd.Options) sdql.Value {
	t.Helper()
	src, err := IndexSource(d.Workload)
	if err != nil {
		t.Fatal(err)
	}
	return runIndexSource(t, src, d, wrt, o)
}

// handValue is the hand-written closed form's value (wrt "") or gradient.
func handValue(t *testing.T, d *IndexData, wrt string) sdql.Value {
	t.Helper()
	run, value, err := d.Hand(wrt)
	if err != nil {
		t.Fatal(err)
	}
	run()
	return value()
}

// smallIndexData is the index workload of that name and its inputs at
// the tests' small size.
func smallIndexData(t *testing.T, name string) (IndexWorkload, *IndexData) {
	t.Helper()
	w, ok := indexWorkload(name)
	if !ok {
		t.Fatalf("no index workload %s", name)
	}
	d, err := NewIndexData(w.Name, indexTestSize(w.Name))
	if err != nil {
		t.Fatal(err)
	}
	return w, d
}

// indexWorkload returns the index workload of that name.
func indexWorkload(name string) (IndexWorkload, bool) {
	for _, w := range IndexWorkloads {
		if w.Name == name {
			return w, true
		}
	}
	return IndexWorkload{}, false
}

// runIndexSource is runIndex for the program src (a variant's) over the
// workload's inputs.
func runIndexSource(t *testing.T, src string, d *IndexData, wrt string, o *nablasd.Options) sdql.Value {
	t.Helper()
	q, err := nablasd.Prepare(src, d.Inputs(), o)
	if err != nil {
		t.Fatalf("%s: %v", d.Workload, err)
	}
	if wrt == "" {
		r, err := q.Value()
		if err != nil {
			t.Fatalf("%s: %v", d.Workload, err)
		}
		return r.Value()
	}
	rs, err := q.Grad(wrt)
	if err != nil {
		t.Fatalf("%s w.r.t. %s: %v", d.Workload, wrt, err)
	}
	return rs[0].Value()
}

// TestIndexWorkloads: every index workload's value and gradients, through
// the closures (one goroutine and two) and the reference interpreter,
// equal the hand-written closed forms (which no part of the engine
// computes) to a relative 1e-9.
func TestIndexWorkloads(t *testing.T) {
	for _, w := range IndexWorkloads {
		d, err := NewIndexData(w.Name, indexTestSize(w.Name))
		if err != nil {
			t.Fatal(err)
		}
		for _, wrt := range append([]string{""}, w.Wrt...) {
			want := handValue(t, d, wrt)
			for _, o := range []nablasd.Options{{Exec: "compiled"}, {Exec: "compiled", Threads: 2}, {Exec: "interp"}} {
				got := runIndex(t, d, wrt, &o)
				if diff := sdql.DiffDicts(got, want, 1e-9); diff != "" {
					t.Errorf("%s w.r.t. %q (exec %s, threads %d): %s\nnablasd     %s\nclosed form %s",
						w.Name, wrt, o.Exec, o.Threads, diff, sdql.FormatValue(got), sdql.FormatValue(want))
				}
			}
		}
	}
}

// TestIndexClosedForms: each hand-written gradient is the central finite
// difference of the hand-written value (one Richardson step), at random
// positions, to a relative 1e-6: the closed forms are derivatives of the
// values, and the values are the programs' (TestIndexWorkloads).
func TestIndexClosedForms(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 5))
	for _, w := range IndexWorkloads {
		for _, wrt := range w.Wrt {
			d, err := NewIndexData(w.Name, indexTestSize(w.Name))
			if err != nil {
				t.Fatal(err)
			}
			var x []float64
			switch wrt {
			case "x":
				x = d.X
			case "K":
				x = d.K
			case "t":
				x = d.T
			case "U":
				x = d.U
			}
			f := func() float64 {
				run, value, _ := d.Hand("")
				run()
				return float64(value().(sdql.Real))
			}
			g := handGrad(d, wrt)
			for trial := 0; trial < 6; trial++ {
				p := r.IntN(len(x))
				fd := func(h float64) float64 {
					x0 := x[p]
					x[p] = x0 + h
					up := f()
					x[p] = x0 - h
					down := f()
					x[p] = x0
					return (up - down) / (2 * h)
				}
				h := 1e-3
				est := (4*fd(h/2) - fd(h)) / 3 // Richardson
				if math.Abs(est-g[p]) > 1e-6*math.Max(1, math.Abs(g[p])) {
					t.Errorf("%s w.r.t. %s at %d: closed form %v, finite difference %v", w.Name, wrt, p, g[p], est)
				}
			}
		}
	}
}

// handGrad runs the hand-written gradient and returns its values in
// storage order.
func handGrad(d *IndexData, wrt string) []float64 {
	run, value, err := d.Hand(wrt)
	if err != nil {
		panic(err)
	}
	run()
	var out []float64
	var walk func(v sdql.Value)
	walk = func(v sdql.Value) {
		dd, ok := v.(*sdql.Dict)
		if !ok {
			out = append(out, float64(v.(sdql.Real)))
			return
		}
		for _, k := range dd.Keys() {
			x, _ := dd.Get(k)
			walk(x)
		}
	}
	walk(value())
	return out
}

// ExampleIndexSource prints a workload of the folder.
func ExampleIndexSource() {
	src, _ := IndexSource("tv")
	fmt.Print(src)
	// Output:
	// // total variation Σ_i sqrt((x(i + 1) - x(i))² + eps), i < n - 1, n = len(x)
	// // d/dx(i) = g(i - 1) - g(i), g(i) = (x(i + 1) - x(i)) / sqrt((x(i + 1) - x(i))² + eps)
	// sum(<i, _> in (0:n - 1)) let d = x(i + 1) - x(i) in sqrt(d * d + eps)
}

// TestIndexPeer: the NumPy/SciPy closed forms agree with the hand-written
// ones (their results' sums and sums of squares, to a relative 1e-9);
// where NumPy is absent the peer says "not installed" rather than fail.
// With -short only the convolution's and the stencil's (a Python process
// a cell).
func TestIndexPeer(t *testing.T) {
	dir := t.TempDir()
	for _, w := range IndexWorkloads {
		if testing.Short() && w.Name != "conv1d" && w.Name != "stencil2d" {
			continue
		}
		d, err := NewIndexData(w.Name, indexTestSize(w.Name))
		if err != nil {
			t.Fatal(err)
		}
		for _, wrt := range append([]string{""}, w.Wrt...) {
			res, err := RunIndexPeer("", dir, d, wrt, 1)
			if err != nil {
				t.Fatalf("%s w.r.t. %q: %v", w.Name, wrt, err)
			}
			if res.Missing != "" {
				t.Logf("%s w.r.t. %q: %s (the peer's other cells would say so too)", w.Name, wrt, res.Missing)
				return
			}
			var vals []float64
			if wrt == "" {
				run, value, _ := d.Hand("")
				run()
				vals = []float64{float64(value().(sdql.Real))}
			} else {
				vals = handGrad(d, wrt)
			}
			sum, sumsq := 0.0, 0.0
			for _, v := range vals {
				sum += v
				sumsq += v * v
			}
			if math.Abs(sum-res.Sum) > 1e-9*math.Max(1, math.Abs(sum)) || math.Abs(sumsq-res.SumSq) > 1e-9*math.Max(1, sumsq) {
				t.Errorf("%s w.r.t. %q: NumPy sums %v, %v; the closed form's %v, %v", w.Name, wrt, res.Sum, res.SumSq, sum, sumsq)
			}
		}
	}
}

// TestIndexHandThreads: the hand-written splits (hand_index_threads.go)
// equal the serial closed forms to a relative 1e-12 on 1, 2, 3 and 5
// goroutines, run twice into the same destination (the second must find
// what the first left emptied), at a small size and at one where the
// parts are long.
func TestIndexHandThreads(t *testing.T) {
	for _, w := range IndexWorkloads {
		for _, size := range []int{indexTestSize(w.Name), 4 * indexTestSize(w.Name)} {
			d, err := NewIndexData(w.Name, size)
			if err != nil {
				t.Fatal(err)
			}
			for _, wrt := range append([]string{""}, w.Wrt...) {
				want := handValue(t, d, wrt)
				for _, threads := range []int{1, 2, 3, 5} {
					run, value, err := d.HandThreads(wrt, threads)
					if err != nil {
						t.Fatal(err)
					}
					run()
					run()
					if diff := sdql.DiffDicts(value(), want, 1e-12); diff != "" {
						t.Errorf("%s w.r.t. %q, size %d, %d goroutines: %s", w.Name, wrt, size, threads, diff)
					}
				}
			}
		}
	}
}
