package lower

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/internal/physbind"
	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

func randomCount(def int) int {
	if s := os.Getenv("NABLASD_LOWER_N"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	if testing.Short() {
		return def / 5
	}
	return def
}

// lowerAndRun lowers prog over the bindings (with the formats of the
// tensors bound as arrays) and runs the IR interpreter.
func lowerAndRun(prog sdql.Expr, b map[string]sdql.Value, types map[string]sdql.Type, fs map[string]Format) (sdql.Value, *Program, error) {
	if types == nil {
		types = map[string]sdql.Type{}
		for n, v := range b {
			types[n] = sdql.TypeOfValue(v)
		}
	}
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		return nil, nil, fmt.Errorf("check: %v", err)
	}
	p, err := Lower(prog, info, Options{Formats: fs})
	if err != nil {
		return nil, nil, err
	}
	v, err := Eval(p, b)
	return v, p, err
}

// TestLowerRandom: random logical programs over dictionary inputs, and
// their fuse-optimized physical programs over every storage format,
// lowered and interpreted, give the reference interpreter's dictionary.
func TestLowerRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := randomCount(1500)
	checked, positions, fullPositions, hoists, appended, transposes := 0, 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		g := &sdqlgen.Gen{R: r}
		typ := []string{"real", "vec", "mat"}[r.IntN(3)]
		src := g.Program(typ, 4)
		in := sdqlgen.GenInputs(r)
		prog, err := sdql.Parse("gen.sdql", src)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]sdql.Type{"V": sdql.Tensor(1), "W": sdql.Tensor(1), "M": sdql.Tensor(2), "s": sdql.RealType}
		want, err := physbind.EvalTyped(prog, in, types)
		if err != nil {
			continue
		}
		got, p, err := lowerAndRun(prog, in, types, nil)
		if err != nil {
			t.Fatalf("program %d: %v\n%s", i, err, src)
		}
		if d := sdql.DiffDicts(got, want, 1e-9); d != "" {
			t.Fatalf("program %d over dictionaries: %s\ngot  %s\nwant %s\n%s\n%s", i, d, sdql.FormatValue(got), sdql.FormatValue(want), src, Print(p))
		}
		checked++
		// the optimized physical program over formats
		round := i % 7
		ts := map[string]*formats.Tensor{}
		for j, name := range []string{"M", "V", "W"} {
			shape := []int{5}
			if name == "M" {
				shape = []int{4, 5}
			}
			fs := formats.ForOrder(len(shape))
			ts[name] = physbind.TensorFrom(t, in[name], shape, fs[(round+j)%len(fs)])
		}
		phys, logical, cfg := physbind.BindFormats(t, ts, in["s"])
		want, err = physbind.EvalTyped(prog, logical, types)
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
		got, p, err = lowerAndRun(res.Program, phys, nil, fs)
		if err != nil {
			t.Fatalf("program %d optimized: %v\n%s\n%s", i, err, src, sdql.Print(res.Program))
		}
		if d := sdql.DiffDicts(got, want, 1e-9); d != "" {
			t.Fatalf("program %d optimized over %v: %s\ngot  %s\nwant %s\n%s\n%s\n%s", i, ts, d, sdql.FormatValue(got),
				sdql.FormatValue(want), src, sdql.Print(res.Program), Print(p))
		}
		checked++
		for _, x := range p.Tensors {
			for _, lv := range x.Levels {
				switch lv.Storage {
				case Positions:
					positions++
					if lv.Full {
						fullPositions++
					}
				case Appended:
					appended++
				}
			}
		}
		if hoisted(p) {
			hoists++
		}
		WalkStmts(p.Body, func(s Stmt) {
			if _, ok := s.(*Transpose); ok {
				transposes++
			}
		})
	}
	if checked < n {
		t.Fatalf("only %d runs checked", checked)
	}
	// the storages and passes this test is meant to exercise do occur
	t.Logf("%d levels on an input's positions (%d full), %d appended levels, %d transpositions, %d programs with hoisted code",
		positions, fullPositions, appended, transposes, hoists)
	if positions == 0 || fullPositions == 0 || hoists == 0 || appended == 0 || transposes == 0 {
		t.Fatalf("a storage or pass not exercised by the random programs: %d positions levels (%d full), %d appended, %d transpositions, %d hoists",
			positions, fullPositions, appended, transposes, hoists)
	}
}

// hoisted reports whether HoistInvariants moved code out of a loop: a
// loop guarded by its own bounds.
func hoisted(p *Program) bool {
	found := false
	WalkStmts(p.Body, func(s Stmt) {
		if x, ok := s.(*If); ok {
			if b, ok := x.Then.(*Block); ok && len(b.List) > 0 {
				if f, ok := b.List[len(b.List)-1].(*For); ok {
					if c, ok := x.Cond.(*Binary); ok && c.Op == Lt && c.X == f.Lo && c.Y == f.Hi {
						found = true
					}
				}
			}
		}
	})
	return found
}
