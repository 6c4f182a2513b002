package exec

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestChunkedLoopFailure: a parallel loop that keeps no copies runs in
// chunks the workers take in turn (runChunks); where several chunks fail,
// the kernel reports the serial loop's failure, the first in iteration
// order, on 1 to 4 workers and run after run (the chunks a worker takes
// differ from run to run). The last row a(i):a(i+1) of v of every chunk
// from the fifth on is out of range, each with its own message, so that
// chunks that run at once fail about at once. It fails, tried, when the
// last chunk in order that failed gives the error, and when the
// closures' message read the first lane's bounds from stale variables
// (v(0:0) for v(250:1000000)).
func TestChunkedLoopFailure(t *testing.T) {
	const src = "sum(<_, i> in (0:n)) sum(<p, x> in v(a(i):a(i + 1))) x * x"
	prog, err := sdql.Parse("chunks.sdql", src)
	if err != nil {
		t.Fatal(err)
	}
	const rows, width = 4000, 250
	v := make(sdql.RealArray, rows*width)
	for i := range v {
		v[i] = float64(i%17) / 16
	}
	rowsAt := func(bad ...int) sdql.IntArray {
		a := make(sdql.IntArray, rows+1)
		for i := range a {
			a[i] = i * width
		}
		for _, i := range bad {
			a[i+1] = len(v) + i // row i ends past v
		}
		return a
	}
	for threads := 1; threads <= 4; threads++ {
		// the last row of every chunk from the fifth on fails: chunks
		// running at once fail about at once
		nc := min(chunksPerWorker*threads, rows)
		var bad []int
		for c := 4; c < nc; c++ {
			bad = append(bad, split(0, rows, c+1, nc, nil)-1)
		}
		in := map[string]sdql.Value{"a": rowsAt(bad...), "v": v, "n": sdql.Int(rows)}
		serial, err := CompileFor(prog, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, want := serial.Run(in)
		if want == nil {
			t.Fatal("the serial kernel does not fail")
		}
		// the closures' message is the loop IR's evaluator's, the first
		// failing row's bounds in it
		if _, ref := lower.Eval(serial.Program(), in); ref == nil || "exec: "+ref.Error() != want.Error() {
			t.Fatalf("the closures fail with %v, the loop IR's evaluator with %v", want, ref)
		}
		k, err := CompileFor(prog, in, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		for run := range 20 {
			if _, err := k.Run(in); err == nil || err.Error() != want.Error() {
				t.Fatalf("%d threads, run %d: %v, want %v", threads, run, err, want)
			}
		}
	}
	// and where nothing fails, the sums of the chunks equal the serial sum
	good := map[string]sdql.Value{"a": rowsAt(), "v": v, "n": sdql.Int(rows)}
	serial, err := CompileFor(prog, good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := serial.Run(good)
	if err != nil {
		t.Fatal(err)
	}
	for threads := 2; threads <= 4; threads++ {
		k, _ := CompileFor(prog, good, Options{Threads: threads})
		got, err := k.Run(good)
		if err != nil {
			t.Fatal(err)
		}
		if !sdql.Equal(got.Value(), r.Value()) {
			t.Errorf("%d threads: %s, want %s", threads, fmt.Sprint(got.Value()), fmt.Sprint(r.Value()))
		}
	}
}
