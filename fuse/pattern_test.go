package fuse

import (
	"math/rand"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestRootMayMatch checks the root test Apply runs before it allocates a
// match: over every node of generated programs and of their optimized
// stages, and every rule, a left-hand side that matches a node must pass
// rootMayMatch there (it only ever saves work; matchTree starting from it
// keeps the two one test). It must also reject most pairs, or it saves
// nothing, and some pairs must match.
func TestRootMayMatch(t *testing.T) {
	n := genCount(1000)
	r := rand.New(rand.NewSource(3))
	kinds := []string{"real", "vec", "mat"}
	rules := Rules()
	pairs, rejected, matched := 0, 0, 0
	for i := 0; i < n; i++ {
		g := &gen{r: r}
		prog, err := sdql.Parse("", g.expr(kinds[r.Intn(3)]))
		if err != nil {
			t.Fatal(err)
		}
		progs := []sdql.Expr{prog}
		for _, st := range optimizeGenerated(prog, genTypes, i%4 == 0) {
			progs = append(progs, st.Program)
		}
		for _, p := range progs {
			c := NewCtx(p, genTypes)
			sdql.Inspect(p, func(e sdql.Expr) bool {
				for _, rule := range rules {
					pairs++
					may := rootMayMatch(rule.LHS, e)
					if !may {
						rejected++
					}
					if matchTree(rule.LHS, e, &treeMatch{c: c}) {
						matched++
						if !may {
							t.Fatalf("rule %s (%s) matches %s, but rootMayMatch rejects it", rule.Name, rule.Pos, sdql.PrintFlat(e))
						}
					}
				}
				return true
			})
		}
	}
	t.Logf("%d rule-node pairs: %d matched, %d rejected at the root", pairs, matched, rejected)
	if matched == 0 || 2*rejected < pairs {
		t.Errorf("%d of %d pairs rejected at the root, %d matched: want most rejected and some matches", rejected, pairs, matched)
	}
}
