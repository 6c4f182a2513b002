package fuse

import (
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// TestScaledCondition checks scaled($e) in both matchers: the tree
// matcher of the normalizing strategies and the e-matcher of saturation,
// which sees a class holding the product (and what it was rewritten to).
func TestScaledCondition(t *testing.T) {
	rules, err := ParseRules("t.rules", `
# SwapScaled: a test rule, firing on a scaled left operand.
[SwapScaled, Explore]
$e + $f  =>  $f + $e
  where scaled($e)

# InlineScaledTest: a test rule, substituting a scaled let.
[InlineScaledTest, Normalize]
let $x = $e in $b  =>  $b[$x := $e]
  where scaled($e)
`)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]sdql.Type{"x": sdql.RealType, "y": sdql.RealType, "n": sdql.IntType,
		"V": &sdql.DictType{Key: sdql.IntType, Val: sdql.RealType}}
	for _, tc := range []struct {
		sum  string // SwapScaled's operand
		want bool
	}{
		{"x * 0.5", true},
		{"0.5 * x", true},
		{"2 * n", true},
		{"x * y", false},
		{"x + 0.5", false},
		{"(x * y) * 0.5", false},
		{"0.5 * 2.0", false},
	} {
		prog := sdql.MustParse("(" + tc.sum + ") + y")
		_, rep := Saturate(prog, rules[:1], types, nil, nil, RunnerConfig{IterLimit: 1, TimeLimit: time.Minute})
		if got := rep.Fired["SwapScaled"] > 0; got != tc.want {
			t.Errorf("e-matcher: scaled(%s) = %v, want %v", tc.sum, got, tc.want)
		}
		let := sdql.MustParse("let s = " + tc.sum + " in s + s")
		c := NewCtx(let, types)
		out, _ := Normalize(ApplyAny(rules[1:]))(c, let)
		if got := c.Fired["InlineScaledTest"] > 0; got != tc.want {
			t.Errorf("tree matcher: scaled(%s) = %v, want %v (%s)", tc.sum, got, tc.want, sdql.PrintFlat(out))
		}
	}
	// A dictionary scaled is not a number: the condition asks for one.
	let := sdql.MustParse("let d = V * 2.0 in d + d")
	c := NewCtx(let, types)
	if _, _ = Normalize(ApplyAny(rules[1:]))(c, let); c.Fired["InlineScaledTest"] > 0 {
		t.Errorf("scaled(V * 2.0) held for a dictionary V")
	}
}
