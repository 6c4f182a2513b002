package sdql_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

// TestExtentsSound: on random programs over random inputs, every key of
// the result at every level lies within the bound AnalyzeExtents gives
// for that level, numerically and, for a symbolic bound, among the keys
// the named input stores at that mode.
func TestExtentsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	g := &sdqlgen.Gen{R: r}
	dims := map[string][]int{"V": {5}, "W": {5}, "M": {4, 5}}
	n := 3000
	if testing.Short() {
		n = 500
	}
	checked := 0
	for i := 0; i < n; i++ {
		src := g.Program([]string{"vec", "mat", "real"}[i%3], 4)
		e, err := sdql.Parse("gen.sdql", src)
		if err != nil {
			t.Fatal(err)
		}
		inputs := sdqlgen.GenInputs(r)
		types := map[string]sdql.Type{}
		for n, v := range inputs {
			types[n] = sdql.TypeOfValue(v)
		}
		x, err := sdql.AnalyzeExtents(e, types, dims)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		v, err := sdql.Eval(e, inputs)
		if err != nil {
			continue
		}
		keys := inputKeys(inputs)
		var walk func(v sdql.Value, level int, path string)
		walk = func(v sdql.Value, level int, path string) {
			sdql.Entries(v, func(k int, c sdql.Value) bool {
				p := fmt.Sprintf("%s[%d]", path, k)
				if level < len(x.Result) {
					b := x.Result[level]
					if b.Empty || b.Known && (k < b.Lo || k > b.Hi) {
						t.Fatalf("key %s outside the bound %s of level %d\n%s\n= %s", p, b, level, src, sdql.FormatValue(v))
					}
					if b.KeysOf != "" && !keys[fmt.Sprintf("%s/%d", b.KeysOf, b.Mode)][k] {
						t.Fatalf("key %s is not a key of %s/%d\n%s", p, b.KeysOf, b.Mode, src)
					}
					checked++
				}
				walk(c, level+1, p)
				return true
			})
		}
		walk(v, 0, "")
	}
	if checked < 1000 {
		t.Fatalf("only %d keys checked", checked)
	}
}

// inputKeys lists, for "NAME/m", the keys stored at mode m of input NAME.
func inputKeys(inputs map[string]sdql.Value) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	for name, v := range inputs {
		var walk func(v sdql.Value, m int)
		walk = func(v sdql.Value, m int) {
			sdql.Entries(v, func(k int, c sdql.Value) bool {
				id := fmt.Sprintf("%s/%d", name, m)
				if out[id] == nil {
					out[id] = map[int]bool{}
				}
				out[id][k] = true
				walk(c, m+1)
				return true
			})
		}
		walk(v, 0)
	}
	return out
}
