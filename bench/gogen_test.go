package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/internal/gorun"
	nexec "github.com/nablasd/nablasd/internal/legacyexec"
	"github.com/nablasd/nablasd/sdql"
)

// genCase is a program to generate Go for, with its bindings.
type genCase struct {
	name     string
	prog     sdql.Expr
	bindings map[string]sdql.Value
	shape    []int
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
		cases = append(cases, genCase{kf.Name + "_shaped", cs.Prog, cs.Bindings, cs.Shape})
		cases = append(cases, genCase{kf.Name, cs.Prog, cs.Bindings, nil})
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
	for _, name := range []string{"paper_vvd_coo", "paper_batax_none", "paper_batax", "paper_smmm", "paper_dot"} {
		prog, err := sdql.Parse(name, paper[name])
		if err != nil {
			t.Fatal(err)
		}
		b := batax.Bindings
		if name == "paper_vvd_coo" {
			b = coo
			cases = append(cases, genCase{name + "_shaped", prog, b, []int{8}})
		} else if name != "paper_smmm" && name != "paper_dot" {
			cases = append(cases, genCase{name + "_shaped", prog, b, batax.Shape})
		}
		cases = append(cases, genCase{name, prog, b, nil})
	}
	return cases
}

// expectValue lists the cases no specialized layout expresses, which
// the general translation (GoValue) takes, and why; every other case must
// keep its specialized layout.
var expectValue = map[string]string{
	"batax":            "a matrix result off the inputs' positions needs the shape",
	"paper_batax":      "a matrix result off the inputs' positions needs the shape",
	"paper_batax_none": "a matrix result off the inputs' positions needs the shape",
}

// TestGeneratedGo generates Go for every benchmark kernel and the paper's
// examples, builds and runs them all (internal/gorun: one build) and
// compares each result with the reference interpreter.
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
		fn := fmt.Sprintf("%s%d", strings.ReplaceAll(c.name, "_", ""), i)
		k, err := nexec.GenerateGoKernel(c.prog, nil, c.bindings, fn, nexec.GoOptions{ResultShape: c.shape, Package: "main", Workspace: i%2 == 0})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if why, ok := expectValue[c.name]; ok != (k.Layout == nexec.GoValue) {
			if ok {
				t.Errorf("%s: generated as %s, expected the general translation (%s)", c.name, k.Layout, why)
			} else {
				t.Errorf("%s: fell back to the general translation", c.name)
			}
		}
		if strings.Contains(string(k.Source), "interface") || strings.Contains(string(k.Source), "any") {
			t.Errorf("%s: interface values in generated code", c.name)
		}
		cases = append(cases, gorun.Case{Name: c.name, Kernel: k, Inputs: c.bindings, Shape: c.shape})
		wants = append(wants, want)
	}
	gorun.Check(t, cases, wants, nil)
}

// TestCheckedInGenerated runs the checked-in kernels of bench/gen against
// the reference interpreter.
func TestCheckedInGenerated(t *testing.T) {
	m := small(t)
	for _, kf := range Kernels {
		name := kf.Name + "_" + kf.Format
		mk := gen.Shaped[name]
		if mk == nil {
			t.Logf("%s: not generated", name)
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
		run, value := mk(cs.Bindings, cs.Shape)
		run()
		run() // a second run into the reused destination
		if got := value(); !sdql.Equal(got, want) {
			t.Errorf("%s: checked-in generated Go disagrees with the interpreter", name)
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
	dir := t.TempDir()
	for _, f := range []string{"value.go"} {
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
// hand-written loops side by side over the benchmark inputs.
func BenchmarkGenerated(b *testing.B) {
	eachCase(b, func(cs *Case) {
		mk := gen.Shaped[cs.Kernel+"_"+cs.Format]
		if mk == nil {
			return
		}
		run, _ := mk(cs.Bindings, cs.Shape)
		run() // sizes the destination, as NewCase's first run of Hand does
		b.Run(cs.Name()+"/impl=gen", func(b *testing.B) {
			for b.Loop() {
				run()
			}
		})
		b.Run(cs.Name()+"/impl=hand", func(b *testing.B) {
			for b.Loop() {
				cs.Hand()
			}
		})
	})
}
