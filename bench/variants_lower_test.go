package bench

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestVariantsLowerAlike checks that every spelled variant lowers to the
// same primitives as its original: the same loop primitives (lower.Rules),
// the same storage for every level of the tensors it builds, the same
// statements that shape the loops (transpositions, searches), and as
// many real operations in its innermost loops (but for extraArithmetic).
// How a program is written must not decide how fast it runs.
func TestVariantsLowerAlike(t *testing.T) {
	all, err := Variants()
	if err != nil {
		t.Fatal(err)
	}
	m := small(t)
	for _, v := range all {
		name := strings.TrimSuffix(v.File, ".sdql")
		t.Run(name, func(t *testing.T) {
			switch v.Kind {
			case OfWorkload:
				w, ok := WorkloadByName(v.Original)
				if !ok {
					t.Fatalf("no workload %s", v.Original)
				}
				osrc, why, err := v.OriginalSource()
				if err != nil {
					t.Fatal(err)
				}
				if why != "" {
					t.Skipf("skipping: %s", why)
				}
				d := smallWorkloadData(t, w)
				for _, wrt := range []string{"", w.Wrt} {
					want := workloadShape(t, osrc, w.Name+".sdql", d, wrt)
					got := workloadShape(t, v.Src, v.File, d, wrt)
					if got != want {
						t.Errorf("wrt %q: the variant lowers to\n%s\nthe original to\n%s", wrt, got, want)
					}
				}
			case OfIndex:
				osrc, _, err := v.OriginalSource()
				if err != nil {
					t.Fatal(err)
				}
				w, d := smallIndexData(t, v.Original)
				for _, wrt := range append([]string{""}, w.Wrt...) {
					want := indexShape(t, osrc, w.Name+".sdql", d, wrt)
					got := indexShape(t, v.Src, v.File, d, wrt)
					if got != want {
						t.Errorf("wrt %q: the variant lowers to\n%s\nthe original to\n%s", wrt, got, want)
					}
				}
			case OfExample:
				osrc, _, err := v.OriginalSource()
				if err != nil {
					t.Fatal(err)
				}
				w, _ := WorkloadByName("mlp2") // its data: A square, x
				d := smallWorkloadData(t, w)
				for _, wrt := range []string{"", ExampleWrt} {
					want := workloadShape(t, osrc, v.Original+".sdql", d, wrt)
					got := workloadShape(t, v.Src, v.File, d, wrt)
					if got != want {
						t.Errorf("wrt %q: the variant lowers to\n%s\nthe original to\n%s", wrt, got, want)
					}
				}
			case OfKernel:
				format := kernelFormat(v.Original)
				orig, err := NewCase(v.Original, format, "small", m)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := NewVariantCase(v.Original, format, "small", m, v)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := caseShape(t, cs, 0), caseShape(t, orig, extraArithmetic[name]); got != want {
					t.Errorf("the variant lowers to\n%s\nthe original to\n%s", got, want)
				}
			case OfPhysical:
				kernel, format, _ := strings.Cut(v.Original, "_")
				orig, err := OriginalCase(kernel, format, "small", m)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := NewVariantCase(kernel, format, "small", m, v)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := caseShape(t, cs, 0), caseShape(t, orig, extraArithmetic[name]); got != want {
					t.Errorf("the variant lowers to\n%s\nthe original to\n%s", got, want)
				}
			}
		})
	}
}

// workloadShape plans a workload program (its gradient with respect to
// wrt, or its value) over the data and describes its loops.
func workloadShape(t *testing.T, src, file string, d *WorkloadData, wrt string) string {
	t.Helper()
	prog, err := sdql.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := d.Inputs(sdql.FreeVars(prog))
	if err != nil {
		t.Fatal(err)
	}
	q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	return planShape(t, q, wrt)
}

// planShape describes the loops of q's value (wrt "") or gradient.
func planShape(t *testing.T, q *nablasd.Query, wrt string) string {
	t.Helper()
	var p *nablasd.Plan
	var err error
	if wrt == "" {
		p, err = q.Plan()
	} else {
		p, err = q.Plan(wrt)
	}
	if err != nil {
		t.Fatal(err)
	}
	if p.Loops == nil {
		t.Fatal("no loops")
	}
	return loopShape(p.Loops, 0)
}

// indexShape is workloadShape for an index workload's inputs, with the
// generated Go's wide rows, row segments and backward segments counted
// (gogen's reads and stores at offsets, which the loops' shape alone
// does not show).
func indexShape(t *testing.T, src, file string, d *IndexData, wrt string) string {
	t.Helper()
	q, err := nablasd.Prepare(src, d.Inputs(), &nablasd.Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	shape := planShape(t, q, wrt)
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: wrt})
	if err != nil {
		t.Fatal(err)
	}
	count := func(kind string) int {
		return len(regexp.MustCompile(kind+`[0-9]* := `).FindAllString(string(k.Source), -1))
	}
	return shape + fmt.Sprintf("\ngenerated Go: %d wide rows, %d row segments, %d segments, %d backward segments\n",
		count("Wide"), count("Row"), count("Seg"), count("Back"))
}

// extraArithmetic are the variants known to keep more real operations in
// their innermost loops than their originals, each with how many and
// why; the test fails when the count changes either way. There are none:
// batax.loops_swapped, with k outside j, kept one multiply more in its
// inner loop ((A(i,j) * A(i,k)) * beta, beta last) until the pipeline
// moved invariant terms out of loops (sdql.Hoist); it now lowers as the
// original does.
var extraArithmetic = map[string]int{}

// caseShape lowers a kernel case's program as it is compiled and
// describes its loops, extra added to the count of innermost-loop
// arithmetic (extraArithmetic).
func caseShape(t *testing.T, cs *Case, extra int) string {
	t.Helper()
	types := map[string]sdql.Type{}
	for n, v := range cs.Bindings {
		types[n] = sdql.TypeOfValue(v)
	}
	info, err := sdql.Check(cs.Prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := lower.Lower(cs.Prog, info, lower.Options{Formats: cs.formats, ResultShape: cs.Shape})
	if err != nil {
		t.Fatal(err)
	}
	return loopShape(p, extra)
}

// loopShape is what must not depend on the spelling: the primitives of
// the loops, the storage of each level of each tensor built (tensors in
// the order of their storage descriptions, names aside), and the
// transpositions and searches, as sorted lists; and the count of real
// operations in the innermost loops (innerArithmetic) plus extra.
func loopShape(p *lower.Program, extra int) string {
	var prims, others, tensors []string
	lower.WalkStmts(p.Body, func(s lower.Stmt) {
		switch x := s.(type) {
		case *lower.For:
			if x.Prim != nil {
				prims = append(prims, x.Prim.Name)
			}
		case *lower.Transpose:
			others = append(others, "transpose")
		case *lower.Search:
			others = append(others, "search")
		}
	})
	for _, x := range p.Tensors {
		if x.Input {
			continue
		}
		var ls []string
		for _, l := range x.Levels {
			ls = append(ls, l.Storage.String())
		}
		tensors = append(tensors, strings.Join(ls, " × "))
	}
	sort.Strings(prims)
	sort.Strings(others)
	sort.Strings(tensors)
	return fmt.Sprintf("primitives %v, tensors %v, %v, real arithmetic in innermost loops %d", prims, tensors, others, innerArithmetic(p)+extra)
}

// innerArithmetic counts the real operations (+, -, *, /, negation,
// calls) in the bodies of the innermost loops, where a program spends
// its time: a spelling that leaves one more multiply there (0.5 * a + 0.5
// * a for a) is slower however its loops are shaped.
func innerArithmetic(p *lower.Program) int {
	n := 0
	lower.WalkStmts(p.Body, func(s lower.Stmt) {
		var body lower.Stmt
		switch x := s.(type) {
		case *lower.For:
			body = x.Body
		case *lower.ForLevel:
			body = x.Body
		default:
			return
		}
		inner := true
		lower.WalkStmts(body, func(y lower.Stmt) {
			switch y.(type) {
			case *lower.For, *lower.ForLevel:
				inner = false
			}
		})
		if !inner {
			return
		}
		lower.WalkStmtExprs(body, func(e lower.Expr) {
			switch x := e.(type) {
			case *lower.Binary:
				if x.Kind() == lower.Real {
					n++
				}
			case *lower.Unary:
				if x.Op == lower.Neg && x.Kind() == lower.Real {
					n++
				}
			case *lower.Call:
				n++
			}
		})
	})
	return n
}
