package lower

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/internal/physbind"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// TestPassTable: the table's names are unique and documented, and its
// ordering rules hold; a table that breaks a rule, or names a pass twice,
// is refused.
func TestPassTable(t *testing.T) {
	if err := checkPasses(passes, passOrders); err != nil {
		t.Fatal(err)
	}
	swapped := Passes()
	at := func(name string) int {
		for i, p := range swapped {
			if p.Name == name {
				return i
			}
		}
		t.Fatalf("no pass %s", name)
		return -1
	}
	i, j := at("markparallel"), at("writeonce")
	swapped[i], swapped[j] = swapped[j], swapped[i]
	if err := checkPasses(swapped, passOrders); err == nil || !strings.Contains(err.Error(), "markparallel must run before writeonce") {
		t.Errorf("a table running writeonce before markparallel: %v, want the ordering rule's error", err)
	}
	twice := append(Passes(), passes[0])
	if err := checkPasses(twice, passOrders); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a table naming %s twice: %v, want an error", passes[0].Name, err)
	}
	if err := checkPasses(passes, append(passOrders, passOrder{"fuseloops", "nosuchpass", "test"})); err == nil {
		t.Errorf("a rule naming no pass was accepted")
	}
}

// TestDisableErrors: an unknown pass name is refused with the closest
// name, and a required pass cannot be disabled.
func TestDisableErrors(t *testing.T) {
	prog := sdql.MustParse("sum(<i, a> in V) a")
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: map[string]sdql.Type{"V": sdql.Tensor(1)}, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"versionloop", `no pass named "versionloop" (did you mean "versionloops"?)`},
		{"nothing like it", `no pass named "nothing like it" (the passes: canonicalize,`},
		{"late-deadcode", `pass "late-deadcode" cannot be disabled`},
	} {
		_, err := Lower(prog, info, Options{Disable: []string{tc.name}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Disable %q: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestTrace: Trace sees the built program, then every pass that runs, in
// the table's order, and none that is disabled or dense under NoDense.
func TestTrace(t *testing.T) {
	prog := sdql.MustParse("sum(<i, r> in M) { i -> sum(<j, a> in r) a * V(j) }")
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: map[string]sdql.Type{"M": sdql.Tensor(2), "V": sdql.Tensor(1)}, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, noDense := range []bool{false, true} {
		var seen []string
		_, err := Lower(prog, info, Options{NoDense: noDense, Disable: []string{"fuseloops"},
			Trace: func(pass string, p *Program) { seen = append(seen, pass) }})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{BuildStep}
		for _, p := range passes {
			if p.Name != "fuseloops" && !(noDense && p.Dense) {
				want = append(want, p.Name)
			}
		}
		if strings.Join(seen, ",") != strings.Join(want, ",") {
			t.Errorf("NoDense %v: traced\n%v\nwant\n%v", noDense, seen, want)
		}
	}
}

// TestPassesOptional: every pass that is not required keeps the
// program's meaning on its own, so that lowering with any one of them
// disabled still gives the reference interpreter's result (the IR
// interpreter runs it), on random programs optimized over every storage
// format. It also shows which passes the sample exercises.
func TestPassesOptional(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := randomCount(600)
	changed := map[string]int{}
	checked := 0
	for i := 0; i < n; i++ {
		g := &sdqltest.Gen{R: r}
		typ := []string{"real", "vec", "mat"}[r.IntN(3)]
		src := g.Program(typ, 4)
		in := sdqltest.GenInputs(r)
		prog, err := sdql.Parse("gen.sdql", src)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]sdql.Type{"V": sdql.Tensor(1), "W": sdql.Tensor(1), "M": sdql.Tensor(2), "s": sdql.RealType}
		ts := map[string]*formats.Tensor{}
		for j, name := range []string{"M", "V", "W"} {
			shape := []int{5}
			if name == "M" {
				shape = []int{4, 5}
			}
			fs := formats.ForOrder(len(shape))
			ts[name] = physbind.TensorFrom(t, in[name], shape, fs[(i+j)%len(fs)])
		}
		phys, logical, cfg := physbind.BindFormats(t, ts, in["s"])
		want, err := physbind.EvalTyped(prog, logical, types)
		if err != nil {
			continue
		}
		res, err := fuse.Optimize(prog, cfg)
		if err != nil {
			t.Fatalf("program %d: optimize: %v\n%s", i, err, src)
		}
		fs := map[string]Format{}
		for n, x := range ts {
			fs[n] = Format{Format: x.Format, Order: x.Order()}
		}
		ptypes := map[string]sdql.Type{}
		for n, v := range phys {
			ptypes[n] = sdql.TypeOfValue(v)
		}
		info, err := sdql.Check(res.Program, &sdql.CheckConfig{Inputs: ptypes, Strict: true})
		if err != nil {
			t.Fatalf("program %d: %v", i, err)
		}
		full, err := Lower(res.Program, info, Options{Formats: fs})
		if err != nil {
			t.Fatalf("program %d: %v\n%s", i, err, src)
		}
		fullText := Print(full)
		checked++
		for _, ps := range passes {
			if ps.Required {
				continue
			}
			p, err := Lower(res.Program, info, Options{Formats: fs, Disable: []string{ps.Name}})
			if err != nil {
				t.Fatalf("program %d without %s: %v\n%s", i, ps.Name, err, src)
			}
			if Print(p) != fullText {
				changed[ps.Name]++
			}
			got, err := Eval(p, phys)
			if err != nil {
				t.Fatalf("program %d without %s: %v\n%s\n%s", i, ps.Name, err, src, Print(p))
			}
			if d := sdql.DiffDicts(got, want, 1e-9); d != "" {
				t.Fatalf("program %d without %s: %s\ngot  %s\nwant %s\n%s\n%s", i, ps.Name, d,
					sdql.FormatValue(got), sdql.FormatValue(want), src, Print(p))
			}
		}
	}
	if checked < n/2 {
		t.Errorf("only %d of %d programs checked", checked, n)
	}
	t.Logf("%d programs, each lowered without each optional pass; programs each pass changed: %v", checked, changed)
}
