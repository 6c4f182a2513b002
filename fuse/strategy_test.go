package fuse

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

func runStrategy(t *testing.T, s Strategy, src string) (string, bool) {
	t.Helper()
	e := sdql.MustParse(src)
	c := NewCtx(e, map[string]sdql.Type{"x": sdql.RealType, "n": sdql.IntType, "V": vecT})
	out, ok := s(c, e)
	return sdql.PrintFlat(out), ok
}

// TestStrategies checks the combinators of the rewrite-strategies paper.
func TestStrategies(t *testing.T) {
	one := Apply(RuleByName("MulOneRight"))
	zero := Apply(RuleByName("AddZeroRight"))
	for _, tc := range []struct {
		name string
		s    Strategy
		src  string
		want string
		ok   bool
	}{
		{"apply at the root", one, "x * 1", "x", true},
		{"apply keeps the type", Apply(RuleByName("MulOneLeft")), "1.0 * n", "1.0 * n", false},
		{"apply at a real", Apply(RuleByName("MulOneLeft")), "1.0 * x", "x", true},
		{"apply fails below the root", one, "(x * 1) + 0.0", "(x * 1) + 0.0", false},
		{"id", Id, "x * 1", "x * 1", true},
		{"fail", Fail, "x", "x", false},
		{"seq", Seq(zero, one), "x * 1 + 0.0", "x", true},
		{"seq fails", Seq(one, zero), "x * 1 + 0.0", "x * 1 + 0.0", false},
		{"left choice", Choice(one, zero), "x * 1 + 0.0", "x * 1", true},
		{"try", Try(one), "x + 0.0", "x + 0.0", true},
		{"repeat", Repeat(one), "x * 1 * 1 * 1", "x", true},
		{"one", One(one), "(x * 1) + (x * 1)", "x + x * 1", true},
		{"all", All(one), "(x * 1) + (x * 1)", "x + x", true},
		{"all fails", All(one), "(x * 1) + x", "(x * 1) + x", false},
		{"topDown", TopDown(one), "((x * 1) * 1) + 0.0", "x * 1 + 0.0", true},
		{"bottomUp", BottomUp(one), "((x * 1) * 1) + 0.0", "x * 1 + 0.0", true},
		{"innermost", Innermost(Choice(one, zero)), "((x * 1) * 1) + 0.0", "x", true},
		{"normalize", Normalize(Choice(one, zero)), "sum(<k, v> in V) { k -> (v * 1) + 0.0 } (2) * 1", "sum(<k, v> in V) { k -> v }(2)", true},
		{"fresh names", Apply(RuleByName("OuterToSum")), "V * V", "sum(<i, v> in V) { i -> v * V }", true},
	} {
		got, ok := runStrategy(t, tc.s, tc.src)
		want := sdql.PrintFlat(sdql.MustParse(tc.want))
		if got != want || ok != tc.ok {
			t.Errorf("%s: %s => %s, %v; want %s, %v", tc.name, tc.src, got, ok, want, tc.ok)
		}
	}
	// fresh binders avoid every name in use
	got, _ := runStrategy(t, Apply(RuleByName("OuterToSum")), "let i = 1 in let v = 2 in V * V")
	if got == "" {
		t.Fatal("no output")
	}
	e := sdql.MustParse("sum(<i, v> in V) V * V")
	c := NewCtx(e, map[string]sdql.Type{"V": vecT})
	out, _ := TopDown(Apply(RuleByName("OuterToSum")))(c, e)
	s := out.(*sdql.SumExpr).Body.(*sdql.SumExpr)
	if s.Key.Name == "i" || s.Val.Name == "v" {
		t.Errorf("fresh binders capture: %s", sdql.PrintFlat(out))
	}
}
