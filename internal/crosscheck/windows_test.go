package crosscheck

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// windowPrograms is how many programs TestCrossCheckWindows checks: 300,
// 60 with -short, 8 under the race detector, or $NABLASD_CROSSCHECK_N.
func windowPrograms() int { return sampleSize("NABLASD_CROSSCHECK_N", 300, 60, 8) }

// window is a generated program of the window families
// (TestCrossCheckWindows) with its inputs as coordinates and the inputs
// to differentiate it with respect to.
type window struct {
	src    string
	coords map[string]*datasets.Coords
	wrt    []string
}

// TestCrossCheckWindows is the cross-check over programs shaped like the
// index-arithmetic workloads but drawn at random: correlations
// Σᵢ (Σₖ K(k)·x(s·i + c·k + d))² and their vector and weighted forms
// (over a stored vector's positions), differences x(s·i + d₁) − x(s·i +
// d₂) under a square root, five-point-like stencils U(i + a)(j + b) with
// random taps, and affine output keys {s·i + d -> …}. Their inputs are
// long enough (up to 1,300 entries, 70 taps) that the executors' batches
// of lanes fill and split, which the small inputs of TestCrossCheckIndex
// never do, and are stored in a random format each; the value and the
// gradient with respect to each input go through every variant and, for
// a sample, the generated Go.
func TestCrossCheckWindows(t *testing.T) {
	start := time.Now()
	n := windowPrograms()
	var rep report
	for i := 0; i < n && len(rep.failures) < 10; i++ {
		r := checkWindow(i)
		rep.failures = append(rep.failures, r.failures...)
		rep.programs += r.programs
		rep.jobs += r.jobs
		rep.runs += r.runs
		rep.goCases = append(rep.goCases, r.goCases...)
		rep.goWants = append(rep.goWants, r.goWants...)
		rep.goWhere = append(rep.goWhere, r.goWhere...)
	}
	for _, f := range rep.failures {
		t.Error(f)
	}
	checked := time.Since(start)
	goRuns := checkGo(t, rep)
	t.Logf("%d window programs, %d programs and gradients, %d variant runs agree (%v); %d generated Go kernels agree (%v)",
		rep.programs, rep.jobs, rep.runs, checked.Round(time.Millisecond), goRuns, (time.Since(start) - checked).Round(time.Millisecond))
}

// checkWindow checks window program i: its value and its gradients, over
// one random storage of its inputs, through every variant; a panic is a
// failure naming the program.
func checkWindow(i int) (rep report) {
	r := rand.New(rand.NewPCG(35, uint64(i)))
	w := genWindow(r)
	where := fmt.Sprintf("window program %d", i)
	defer func() {
		if p := recover(); p != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("%s: panic: %v\n%s", where, p, w.src))
		}
	}()
	prog, err := sdql.Parse("window.sdql", w.src)
	if err != nil {
		return report{failures: []string{fmt.Sprintf("%s does not parse: %v\n%s", where, err, w.src)}}
	}
	ts := map[string]*formats.Tensor{}
	for _, name := range slices.Sorted(maps.Keys(w.coords)) {
		c := w.coords[name]
		fs := formats.ForOrder(c.Order())
		f := fs[r.IntN(len(fs))]
		if r.IntN(2) == 0 {
			f = formats.Dense // half dense: the executors' array primitives (Dot, MapRow) read dense inputs
		}
		tn, err := formats.FromCoords(c.Shape, c.Idx, c.Val, f)
		if err != nil {
			return report{failures: []string{fmt.Sprintf("%s: storing %s in %s: %v", where, name, f, err)}}
		}
		ts[name] = tn
	}
	b, err := bind(ts, nil)
	if err != nil {
		return report{failures: []string{fmt.Sprintf("%s: binding: %v", where, err)}}
	}
	withGo := !raceEnabled && i%goEvery() == 0
	for _, wrt := range append([]string{""}, w.wrt...) {
		what := "the program"
		if wrt != "" {
			what = "its gradient with respect to " + wrt
		}
		where = fmt.Sprintf("window program %d, %s, over %s", i, what, b.desc)
		j := &job{prog: prog, wrt: wrt, b: b}
		want, err := j.oracle()
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("%s: the oracle fails: %v\n%s", where, err, w.src))
			continue
		}
		rep.programs = 1
		rep.jobs++
		goName := ""
		if withGo {
			goName = fmt.Sprintf("w%d_%s", i, strings.ToLower(wrt))
		}
		outs, gc := j.run(goName)
		rep.runs += len(outs)
		if bad := disagreements(want, outs); len(bad) > 0 {
			rep.failures = append(rep.failures, fmt.Sprintf("%s:\n%s\n  %s", where, w.src, strings.Join(bad, "\n  ")))
		}
		if gc != nil {
			gc.Name = where
			rep.goCases = append(rep.goCases, *gc)
			rep.goWants = append(rep.goWants, want)
			rep.goWhere = append(rep.goWhere, where+"\n"+w.src)
		}
	}
	return rep
}

// genWindow draws a program of one of the window families and its inputs.
func genWindow(r *rand.Rand) window {
	switch r.IntN(5) {
	case 0, 1:
		return genCorrelation(r)
	case 2:
		return genDifferences(r)
	case 3:
		return genStencil(r)
	}
	return genAffineOut(r)
}

// length draws an input's length: a few entries, tens, or hundreds past
// a batch of lanes.
func length(r *rand.Rand) int {
	switch r.IntN(3) {
	case 0:
		return 1 + r.IntN(8)
	case 1:
		return 20 + r.IntN(80)
	}
	return 500 + r.IntN(800)
}

// taps draws a filter's length: up to 5, or up to 70 (past the closures'
// 64 terms of a short dot).
func taps(r *rand.Rand) int {
	if r.IntN(2) == 0 {
		return 1 + r.IntN(5)
	}
	return 6 + r.IntN(65)
}

// vector draws a vector of length n, every entry stored or about
// two-thirds or a third of them, explicit zeros among the values.
func vector(r *rand.Rand, n int) *datasets.Coords {
	keep := []int{3, 2, 1}[r.IntN(3)]
	c := &datasets.Coords{Shape: []int{n}, Idx: [][]int{nil}}
	for i := 0; i < n; i++ {
		if r.IntN(3) < keep {
			c.Idx[0] = append(c.Idx[0], i)
			c.Val = append(c.Val, value(r))
		}
	}
	return c
}

// matrix draws a rows × cols matrix as vector draws a vector.
func matrix(r *rand.Rand, rows, cols int) *datasets.Coords {
	keep := []int{3, 2, 1}[r.IntN(3)]
	c := &datasets.Coords{Shape: []int{rows, cols}, Idx: [][]int{nil, nil}}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if r.IntN(3) < keep {
				c.Idx[0] = append(c.Idx[0], i)
				c.Idx[1] = append(c.Idx[1], j)
				c.Val = append(c.Val, value(r))
			}
		}
	}
	return c
}

// affine prints Σ coef·var + d, e.g. "2 * i - k + 3".
func affine(d int, terms ...any) string {
	var b strings.Builder
	for t := 0; t+1 < len(terms); t += 2 {
		c, v := terms[t].(int), terms[t+1].(string)
		if c == 0 {
			continue
		}
		switch {
		case b.Len() == 0 && c < 0:
			b.WriteString("-")
		case b.Len() > 0 && c < 0:
			b.WriteString(" - ")
		case b.Len() > 0:
			b.WriteString(" + ")
		}
		if a := max(c, -c); a != 1 {
			fmt.Fprintf(&b, "%d * ", a)
		}
		b.WriteString(v)
	}
	switch {
	case b.Len() == 0:
		return strconv.Itoa(d)
	case d > 0:
		fmt.Fprintf(&b, " + %d", d)
	case d < 0:
		fmt.Fprintf(&b, " - %d", -d)
	}
	return b.String()
}

// span draws a range (lo:hi) about [0, n), sometimes starting before 0
// or ending past n, sometimes empty.
func span(r *rand.Rand, n int) string {
	lo := r.IntN(4) - 2
	hi := n + r.IntN(7) - 3
	if r.IntN(8) == 0 {
		hi = lo
	}
	return fmt.Sprintf("(%d:%d)", lo, hi)
}

// genCorrelation: a correlation of x with the taps K at x(s·i + c·k +
// d), as a loss (its square summed, per row or over the vector of
// rows), a vector {i -> …}, weighted by y
// over y's stored positions, or of two signals x and z over a range of
// taps.
func genCorrelation(r *rand.Rand) window {
	n, m := length(r), taps(r)
	s, c, d := 1+r.IntN(3), []int{1, 1, -1, 2}[r.IntN(4)], r.IntN(9)-4
	rows := max(1, (n+s-1)/s)
	dot := "sum(<k, w> in K) w * x(" + affine(d, s, "i", c, "k") + ")"
	if r.IntN(2) == 0 {
		dot = "sum(<k, w> in K) x(" + affine(d, s, "i", c, "k") + ") * w"
	}
	w := window{coords: map[string]*datasets.Coords{"x": vector(r, n), "K": vector(r, m)}, wrt: []string{"x", "K"}}
	switch r.IntN(5) {
	case 4:
		// the filter's output as a vector, then its squared norm
		w.src = "let y = sum(<i, _> in " + span(r, rows) + ") { i -> " + dot + " } in sum(<i, v> in y) v * v"
	case 3:
		// two windows of two signals over a range of taps: x(i + k + d)
		// times z(s·i + c·k + e), both read at offsets that follow i
		w.coords["z"] = vector(r, n)
		w.wrt = []string{"x", "z"}
		w.src = "sum(<i, _> in " + span(r, rows) + ") let y = sum(<k, _> in (0:" + strconv.Itoa(m) + ")) x(" +
			affine(r.IntN(5)-2, 1, "i", 1, "k") + ") * z(" + affine(d, s, "i", c, "k") + ") in y * y"
	case 0:
		w.src = "sum(<i, _> in " + span(r, rows) + ") let y = " + dot + " in y * y"
	case 1:
		w.src = "sum(<i, _> in " + span(r, rows) + ") { i -> " + dot + " }"
	default:
		w.coords["y"] = vector(r, rows)
		w.wrt = append(w.wrt, "y")
		w.src = "sum(<i, yv> in y) yv * (" + dot + ")"
	}
	return w
}

// genDifferences: Σ √((x(s·i + d₁) − x(s·i + d₂))² + ε), total variation
// at a stride, or the squares without the root.
func genDifferences(r *rand.Rand) window {
	n, s := length(r), 1+r.IntN(2)
	d1, d2 := r.IntN(5)-2, r.IntN(5)-2
	diff := "x(" + affine(d1, s, "i") + ") - x(" + affine(d2, s, "i") + ")"
	body := "t * t"
	if r.IntN(2) == 0 {
		body = "sqrt(t * t + 0.25)"
	}
	return window{
		src:    "sum(<i, _> in " + span(r, n) + ") let t = " + diff + " in " + body,
		coords: map[string]*datasets.Coords{"x": vector(r, n)},
		wrt:    []string{"x"},
	}
}

// genStencil: Σᵢⱼ (Σ taps·U(s·i + a)(j + b))² over a random set of 2–5
// taps at offsets in [-1, 1]², i and j over spans of U's extents.
func genStencil(r *rand.Rand) window {
	rows, cols := 2+r.IntN(12), 2+r.IntN(30)
	if r.IntN(3) == 0 {
		rows, cols = 2+r.IntN(3), 500+r.IntN(300) // rows longer than a batch
	}
	s := 1
	if r.IntN(4) == 0 {
		s = 2
	}
	var taps []string
	for t := 0; t < 2+r.IntN(4); t++ {
		coef := []string{"", "2 * ", "-4 * ", "0.5 * "}[r.IntN(4)]
		taps = append(taps, coef+"U("+affine(r.IntN(3)-1, s, "i")+")("+affine(r.IntN(3)-1, 1, "j")+")")
	}
	return window{
		src: "sum(<i, _> in " + span(r, max(1, rows/s)) + ") sum(<j, _> in " + span(r, cols) + ") let l = " +
			strings.Join(taps, " + ") + " in l * l",
		coords: map[string]*datasets.Coords{"U": matrix(r, rows, cols)},
		wrt:    []string{"U"},
	}
}

// genAffineOut: a result keyed by s·i + d (a strided scatter) of a
// correlation over x(i + c·k).
func genAffineOut(r *rand.Rand) window {
	n, m := length(r), taps(r)
	s, d, c := 1+r.IntN(3), r.IntN(5)-2, []int{1, -1}[r.IntN(2)]
	return window{
		src: "sum(<i, _> in " + span(r, n) + ") { " + affine(d, s, "i") + " -> sum(<k, w> in K) w * x(" +
			affine(0, 1, "i", c, "k") + ") }",
		coords: map[string]*datasets.Coords{"x": vector(r, n), "K": vector(r, m)},
		wrt:    []string{"x", "K"},
	}
}
