package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// genCase is a program to generate Go for, with its bindings.
type genCase struct {
	name     string
	prog     sdql.Expr
	bindings map[string]sdql.Value
	formats  map[string]lower.Format
	shape    []int
	cs       *Case // a benchmark kernel's case (generated as cs.GenerateGo)
}

// genCases are the benchmark kernels (the pipeline's programs), each with
// and without the result's shape, and the paper's examples of section 5.5.
func genCases(t *testing.T) []genCase {
	m := small(t)
	var cases []genCase
	var batax *Case
	for _, kf := range Kernels {
		cs, err := NewCase(kf.Name, kf.Format, "small", m)
		if err != nil {
			t.Fatal(err)
		}
		if kf.Name == "batax" {
			batax = cs
		}
		cases = append(cases, genCase{kf.Name + "_shaped", cs.Prog, cs.Bindings, cs.Formats(), cs.Shape, cs})
		cases = append(cases, genCase{kf.Name, cs.Prog, cs.Bindings, cs.Formats(), nil, nil})
	}
	paper := map[string]string{
		// Example 1: VVD w.r.t. V1, V2 a sparse vector (section 5.3)
		"paper_vvd_coo": "sum(<_, i> in (0:V2_len)) { V2_row(i) -> V2_val(i) }",
		// Example 4: BATAx w.r.t. x before and after multiplication normalization
		"paper_batax_none": "beta * sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> A_val(p) } in r * r",
		"paper_batax":      "sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> A_val(p) } in sum(<i1, v1> in r) { i1 -> sum(<i2, v2> in r) { i2 -> beta * v1 * v2 } }",
		// SMMM w.r.t. B on B's positions, in the shape of section 7
		"paper_smmm": "let s = sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) } in sum(<_, k> in (0:A_len)) { unique(k) -> sum(<q, j> in A_idx(A_pos(k):A_pos(k+1))) { unique(j) -> s(k) } }",
		"paper_dot":  "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) A_val(p) * A_val(p) + beta",
	}
	coo := map[string]sdql.Value{"V2_len": sdql.Int(4), "V2_row": sdql.IntArray{3, 0, 7, 3}, "V2_val": sdql.RealArray{1.5, 2, -1, 0.25}}
	cooFormats := map[string]lower.Format{"V2": {Format: formats.COO, Order: 1}}
	for _, name := range []string{"paper_vvd_coo", "paper_batax_none", "paper_batax", "paper_smmm", "paper_dot"} {
		prog, err := sdql.Parse(name, paper[name])
		if err != nil {
			t.Fatal(err)
		}
		b, fs := batax.Bindings, batax.Formats()
		if name == "paper_vvd_coo" {
			b, fs = coo, cooFormats
			cases = append(cases, genCase{name + "_shaped", prog, b, fs, []int{8}, nil})
		} else if name != "paper_smmm" && name != "paper_dot" {
			cases = append(cases, genCase{name + "_shaped", prog, b, fs, batax.Shape, nil})
		}
		cases = append(cases, genCase{name, prog, b, fs, nil, nil})
	}
	return cases
}

// TestGeneratedGo generates Go for every benchmark kernel and the paper's
// examples, builds and runs them all (internal/gorun: one build) and
// compares each result with the reference interpreter's. Over the
// formats' arrays the kernels use no Go maps.
func TestGeneratedGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated Go")
	}
	var cases []gorun.Case
	var wants []sdql.Value
	for i, c := range genCases(t) {
		want, err := sdql.Eval(c.prog, c.bindings)
		if err != nil {
			t.Fatal(err)
		}
		opts := gogen.Options{Func: fmt.Sprintf("%s%d", strings.ReplaceAll(c.name, "_", ""), i), Package: "main", Workspace: i%2 == 0}
		var k *gogen.Kernel
		if c.cs != nil {
			k, err = c.cs.GenerateGo(opts)
		} else {
			k, _, err = gorun.Generate(c.prog, gorun.TypesOf(c.bindings), lower.Options{Formats: c.formats, ResultShape: c.shape}, opts)
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		// no maps and no interface values (a type parameter's constraint,
		// [T any], is no value: PFXRoom's)
		src := strings.ReplaceAll(string(k.Source), "[T any]", "[T]")
		for _, bad := range []string{"map[", "interface", "any"} {
			if strings.Contains(src, bad) {
				t.Errorf("%s: %q in the generated code", c.name, bad)
			}
		}
		// a gradient completed to its input's positions may hold zeros at
		// more of them than the program builds (lower.Options.CompletedOn)
		completed := c.cs != nil && c.cs.completedOn != ""
		cases = append(cases, gorun.Case{Name: c.name, Kernel: k, Inputs: c.bindings, AsFunctions: c.shape != nil || completed})
		wants = append(wants, want)
	}
	gorun.Check(t, cases, wants, nil)
}

// TestCheckedInGenerated runs the checked-in kernels of bench/gen, twice
// into their destination, against the reference interpreter, on inputs
// of another size than they were generated for.
func TestCheckedInGenerated(t *testing.T) {
	m := small(t)
	for _, kf := range Kernels {
		name := kf.Name + "_" + kf.Format
		mk := gen.Bind[name]
		if mk == nil {
			t.Errorf("%s: not generated", name)
			continue
		}
		cs, err := NewCase(kf.Name, kf.Format, "small", m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(cs.Prog, cs.Bindings)
		if err != nil {
			t.Fatal(err)
		}
		run, value := mk(cs.Bindings)
		run()
		run() // a second run into the reused destination
		if got := value(); !sdql.Equal(got, want) {
			t.Errorf("%s: checked-in generated Go %s, the interpreter %s", name, sdql.FormatValue(got), sdql.FormatValue(want))
		}
	}
}

// TestGeneratedUpToDate fails when bench/gen differs from what
// go run ./bench/cmd/gengo writes.
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gengo")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if wd, _ := WorkloadDir(); wd == "" {
		t.Skip("no workloads folder: gengo would leave the workloads' kernels out")
	}
	dir := t.TempDir()
	for _, f := range []string{"value.go", "bind.go"} {
		src, err := os.ReadFile(filepath.Join("gen", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gobin, "run", "./cmd/gengo", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gengo: %v\n%s", err, out)
	}
	want, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	have, _ := filepath.Glob(filepath.Join("gen", "*.go"))
	if len(want) != len(have) {
		t.Errorf("bench/gen has %d files, gengo writes %d: run go run ./bench/cmd/gengo", len(have), len(want))
	}
	for _, w := range want {
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join("gen", filepath.Base(w)))
		if err != nil || string(a) != string(b) {
			t.Errorf("bench/gen/%s is stale: run go run ./bench/cmd/gengo", filepath.Base(w))
		}
	}
}

// BenchmarkGenerated runs the checked-in generated kernels and the
// hand-written loops side by side over the benchmark inputs (cpu-ns/op:
// the process's CPU time per run, steadier than the wall time on a
// loaded machine).
func BenchmarkGenerated(b *testing.B) {
	eachCase(b, func(cs *Case) {
		mk := gen.Bind[cs.Kernel+"_"+cs.Format]
		if mk == nil {
			return
		}
		run, _ := mk(cs.Bindings)
		run() // sizes the destination, as NewCase's first run of Hand does
		b.Run(cs.Name()+"/impl=gen", func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				run()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
		b.Run(cs.Name()+"/impl=hand", func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				cs.Hand()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	})
}
