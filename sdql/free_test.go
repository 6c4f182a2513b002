package sdql_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// usesOf is the oracle of FreeIndex: a walk that counts name's free
// occurrences in e and whether one is inside a sum's body.
func usesOf(e sdql.Expr, name string) (count int, inLoop bool) {
	var walk func(e sdql.Expr, loop bool)
	walk = func(e sdql.Expr, loop bool) {
		if id, ok := e.(*sdql.Ident); ok {
			if id.Name == name {
				count++
				inLoop = inLoop || loop
			}
			return
		}
		_, isSum := e.(*sdql.SumExpr)
		for i, k := range sdql.Children(e) {
			if slices.Contains(sdql.Binders(e, i), name) {
				continue
			}
			walk(k, loop || isSum && i == 1)
		}
	}
	walk(e, false)
	return count, inLoop
}

// TestFreeIndex: on random programs, for every node, FreeIndex gives the
// free variables FreeVars does, with their counts (up to 2) and whether
// one is in a loop as a walk finds them; and its Subst of each let's value
// into its body gives a program alpha-equivalent to Subst's.
func TestFreeIndex(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	for seed := range uint64(n) {
		g := &sdqltest.Gen{R: rand.New(rand.NewPCG(seed, 5)), Funcs: sdqltest.AllFuncs, Structured: true}
		e, err := sdql.Parse("", g.Program([]string{"real", "vec", "mat"}[seed%3], 4))
		if err != nil {
			t.Fatal(err)
		}
		progs := []sdql.Expr{e, sdqltest.InlineLets(e)} // the second repeats terms
		if seed == 0 {
			// a let's value whose variable the body binds again: captured
			// but for a renaming
			for _, src := range []string{
				"let y = s * 2.0 in sum(<s, v> in V) y * v + s",
				"let y = V(1) in let <a, y> = <y + 1.0, (sum(<k, y1> in W) y * y1)> in a + y",
				"let y = sum(<k, v> in V) v * s in sum(<y1, s> in M) sum(<k, v> in s) v * y",
			} {
				progs = append(progs, sdql.MustParse(src))
			}
		}
		for _, p := range progs {
			idx := sdql.NewFreeIndex()
			sdql.Inspect(p, func(x sdql.Expr) bool {
				var names []string
				for _, f := range idx.Free(x) {
					names = append(names, f.Name)
					c, l := usesOf(x, f.Name)
					if f.Count != min(c, 2) || f.InLoop != l {
						t.Fatalf("seed %d: %s in %s: count %d in loop %v, want %d %v", seed, f.Name, sdql.PrintFlat(x), f.Count, f.InLoop, c, l)
					}
				}
				want := sdql.FreeVars(x)
				slices.Sort(want)
				if !slices.Equal(names, want) {
					t.Fatalf("seed %d: free in %s: %v, want %v", seed, sdql.PrintFlat(x), names, want)
				}
				if l, ok := x.(*sdql.LetExpr); ok && len(l.Names) == 1 {
					s := map[string]sdql.Expr{l.Names[0].Name: l.Values[0]}
					got, want := idx.Subst(l.Body, s), sdql.Subst(l.Body, s)
					if !sdql.AlphaEqual(got, want) {
						t.Fatalf("seed %d: Subst in %s:\n%s\nwant\n%s", seed, sdql.PrintFlat(x), sdql.Print(got), sdql.Print(want))
					}
				}
				return true
			})
		}
	}
}
