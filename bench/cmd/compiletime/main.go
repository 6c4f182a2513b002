// Command compiletime measures how compile time grows with a program's
// size, over the generated families of bench.Families (tanh stacks let-
// bound and inline, sums of n different terms, a subterm repeated n
// times, random programs), and writes the results page with its plot:
//
//	go run ./bench/cmd/compiletime [-reps 3] [-seeds 6] [-doc doc/compile-time.md]
//	    [-figures doc/figures] [-csv bench/results/compile-time.csv] [-families tanh,...]
//
// Each program is prepared and its gradient compiled (Prepare, then
// Compile: the whole pipeline, including the Go source the JIT's cache is
// asked for), -reps times on one core (GOMAXPROCS=1); a program's time is
// the least over the repetitions of the process's CPU time, which other
// work on a shared machine does not inflate, by stage (Kernel.Times) and
// in all. A family's growth exponent is the slope of log time
// against log size (the logical program's nodes) fitted over its three
// largest programs (the random programs: those of the three largest n). The page also times the program of issue 33, which once never
// finished compiling.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// stages are Kernel.Times' steps, with Prepare's first.
var stages = []string{"prepare", "structure", "differentiate", "optimize", "check", "lower", "compile", "source"}

// point is one program's measurement.
type point struct {
	family string
	n      int
	seed   uint64
	nodes  int
	stage  map[string]float64 // ms, least over the repetitions
	cpu    float64            // ms of CPU, least over the repetitions
	err    string
}

func main() {
	reps := flag.Int("reps", 3, "repetitions of each program (the least time counts)")
	seeds := flag.Int("seeds", 6, "random programs of each depth")
	docPath := flag.String("doc", "doc/compile-time.md", "the results page to write")
	figDir := flag.String("figures", "doc/figures", "where to write compile-time.svg and .png")
	csvPath := flag.String("csv", "bench/results/compile-time.csv", "the measurements, one a line")
	only := flag.String("families", "", "comma-separated name prefixes of the families to run (default all)")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	if err := run(*reps, *seeds, *docPath, *figDir, *csvPath, *only); err != nil {
		fmt.Fprintln(os.Stderr, "compiletime:", err)
		os.Exit(1)
	}
}

func run(reps, seeds int, docPath, figDir, csvPath, only string) error {
	a, err := nablasd.Load("synthetic:rows=2000,cols=2000,density=0.002,seed=1", nil)
	if err != nil {
		return err
	}
	x := make([]float64, 2000)
	for i := range x {
		x[i] = float64(i%7)/7 - 0.4
	}
	matrixInputs := nablasd.Inputs{"A": a, "x": x}
	randomInputs := nablasd.Inputs{"V": []float64{0.5, -1, 0, 2, 1.5}, "W": []float64{1, 0, -0.5, 0.25, 3},
		"M": [][]float64{{1, 0, 2, 0, -1}, {0, 0, 0, 0, 0}, {0.5, 1, 0, 0, 2}, {0, -2, 0, 1, 0}}, "s": 0.75}
	var points []point
	for _, f := range bench.Families {
		if !selected(f.Name, only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s:", f.Name)
		for _, n := range f.Params {
			if f.Program == nil {
				for s := range uint64(seeds) {
					src := bench.RandomProgram(s, n)
					wrt := "V"
					if !strings.Contains(src, "V") {
						wrt = ""
					}
					points = append(points, measure(f.Name, n, s, src, wrt, randomInputs, reps))
				}
				fmt.Fprintf(os.Stderr, " %d", n)
				continue
			}
			src, wrt := f.Program(n)
			p := measure(f.Name, n, 0, src, wrt, matrixInputs, reps)
			points = append(points, p)
			fmt.Fprintf(os.Stderr, " %d (%.0f ms)", n, p.cpu)
		}
		fmt.Fprintln(os.Stderr)
	}
	issue := measureIssue(reps)
	if err := writeCSV(csvPath, append(points, issue)); err != nil {
		return err
	}
	fits := map[string]fit{}
	for _, f := range bench.Families {
		if selected(f.Name, only) {
			fits[f.Name] = fitFamily(points, f.Name)
		}
	}
	figs, err := plotPoints(points, fits, figDir)
	if err != nil {
		return err
	}
	return writeDoc(docPath, points, fits, issue, figs, reps)
}

func selected(name, only string) bool {
	if only == "" {
		return true
	}
	for _, p := range strings.Split(only, ",") {
		if strings.HasPrefix(name, strings.TrimSpace(p)) {
			return true
		}
	}
	return false
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// measure prepares src and compiles its gradient with respect to wrt (its
// value for "") reps times.
func measure(family string, n int, seed uint64, src, wrt string, inputs nablasd.Inputs, reps int) point {
	p := point{family: family, n: n, seed: seed, stage: map[string]float64{}, cpu: math.Inf(1)}
	if e, err := sdql.Parse("", src); err == nil {
		sdql.Inspect(e, func(sdql.Expr) bool { p.nodes++; return true })
	}
	for range reps {
		runtime.GC()
		c0 := bench.ProcessCPU()
		q, err := nablasd.Prepare(src, inputs, &nablasd.Options{NoShapeCheck: true})
		if err != nil {
			p.err = err.Error()
			return p
		}
		prepared := bench.ProcessCPU() - c0
		var wrts []string
		if wrt != "" {
			wrts = []string{wrt}
		}
		k, err := q.Compile(wrts...)
		if err != nil {
			p.err = err.Error()
			return p
		}
		p.cpu = min(p.cpu, ms(bench.ProcessCPU()-c0))
		times := map[string]float64{"prepare": ms(prepared)}
		for _, st := range k.Times() {
			times[st.Stage] = ms(st.CPU)
		}
		for _, s := range stages {
			if old, ok := p.stage[s]; !ok || times[s] < old {
				p.stage[s] = times[s]
			}
		}
	}
	return p
}

// issueProgram is the program of issue 33 whose gradient with respect to
// A once never finished compiling: the pretty-printer, exponential in the
// nesting of its derivative's lets, printed it into the native kernel's
// doc comment.
const issueProgram = `sum(<i, r> in ((sum(<i, r> in (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in A) {i -> sum(<j, a> in r) sum(<k, b> in B(j)) {k -> a * b}})) sum(<j, a> in r) {i -> a * A(j)})) sum(<j, a> in r) {i -> {j -> a * exp(a)}})) {i -> sum(<j, a> in r) {j -> a * x(j)}}) / (1 + (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in A) {i -> sum(<j, a> in r) sum(<k, b> in B(j)) {k -> a * b}})) {i -> sum(<j, a> in r) {j -> a * y(j)}})) {i -> sum(<j, a> in r) {j -> log(1 + a * a)}})) sum(<j, a> in r) if i == j then a) * (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in A) {i -> sum(<j, a> in r) sum(<k, b> in B(j)) {k -> a * b}})) {i -> sum(<j, a> in r) {j -> a * y(j)}})) {i -> sum(<j, a> in r) {j -> log(1 + a * a)}})) sum(<j, a> in r) if i == j then a)))) sum(<j, a> in r) {j -> {i -> a}}`

// measureIssue times the issue's program over its inputs: A an empty 3×4
// CSR matrix, B a 4×3 array bound CSR, x a 4-vector with 3 entries bound
// dense, y a 3-vector bound dense.
func measureIssue(reps int) point {
	a, _ := formats.FromCoords([]int{3, 4}, [][]int{nil, nil}, nil, formats.CSR)
	b, _ := formats.FromCoords([]int{4, 3}, [][]int{{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}, {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}},
		[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, formats.CSR)
	x, _ := formats.FromCoords([]int{4}, [][]int{{0, 1, 3}}, []float64{0.5, -1.5, 2}, formats.Dense)
	y, _ := formats.FromCoords([]int{3}, [][]int{{0, 1, 2}}, []float64{0.3, -0.7, 1.1}, formats.Dense)
	return measure("issue 33", 0, 0, issueProgram, "A", nablasd.Inputs{"A": a, "B": b, "x": x, "y": y}, reps)
}

// fit is a family's fitted growth: time ∝ nodes^exponent.
type fit struct {
	exponent float64
	from, to int // the sizes fitted over
	points   int
}

// fitFamily fits the family's three largest programs (the random
// programs of its three largest n).
func fitFamily(points []point, family string) fit {
	var ps []point
	for _, p := range points {
		if p.family == family && p.err == "" && p.nodes > 0 {
			ps = append(ps, p)
		}
	}
	if len(ps) < 2 {
		return fit{exponent: math.NaN()}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].nodes < ps[j].nodes })
	if family == "random programs" {
		maxN := 0
		for _, p := range ps {
			maxN = max(maxN, p.n)
		}
		var big []point
		for _, p := range ps {
			if p.n >= maxN/4 {
				big = append(big, p)
			}
		}
		if len(big) >= 2 {
			ps = big
		}
	} else if len(ps) > 3 {
		ps = ps[len(ps)-3:]
	}
	var sx, sy, sxx, sxy float64
	for _, p := range ps {
		lx, ly := math.Log(float64(p.nodes)), math.Log(p.cpu)
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	k := float64(len(ps))
	return fit{exponent: (k*sxy - sx*sy) / (k*sxx - sx*sx), from: ps[0].nodes, to: ps[len(ps)-1].nodes, points: len(ps)}
}

func writeCSV(path string, points []point) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("family,n,seed,nodes," + strings.Join(stages, ",") + ",cpu_ms,error\n")
	for _, p := range points {
		fmt.Fprintf(&b, "%q,%d,%d,%d", p.family, p.n, p.seed, p.nodes)
		for _, s := range stages {
			fmt.Fprintf(&b, ",%.3f", p.stage[s])
		}
		fmt.Fprintf(&b, ",%.3f,%q\n", p.cpu, p.err)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
