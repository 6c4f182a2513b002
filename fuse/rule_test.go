package fuse

import (
	"strings"
	"testing"
)

func TestRulesLoad(t *testing.T) {
	rs := Rules()
	if len(rs) < 30 {
		t.Fatalf("only %d rules", len(rs))
	}
	for _, r := range rs {
		if r.Doc == "" || r.LHS == nil || r.RHS == nil {
			t.Errorf("%s: incomplete rule %s", r.Pos, r.Name)
		}
	}
}

func TestRuleFileErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"# A: doc.\n[A, Normalize]\n$x * 1 => $y\n", "t.rules:3:11: rule A: $y is not bound on the left-hand side"},
		{"# A: doc.\n[A, Normalize]\n$x * 1 => $x\n# A: doc.\n[A, Normalize]\n$x => $x\n", "t.rules:5:2: duplicate rule name A (first on line 2)"},
		{"# A: doc.\n[A, Normalize]\n$x * 1 => $x\n  where bogus($x)\n", "t.rules:4:9: unknown condition \"bogus\""},
		{"# A: doc.\n[A, Frobnicate]\n$x * 1 => $x\n", "t.rules:2:5: unknown tag \"Frobnicate\""},
		{"[A, Normalize]\n$x * 1 => $x\n", "t.rules:1:1: rule A needs a doc comment"},
		{"# A: doc.\n[A, Normalize]\n$x * => $x\n", "t.rules:3:6: left-hand side of A: expected an expression"},
		{"# A: doc.\n[A, Normalize]\n$x * 1  $x\n", "t.rules:3:1: rule A: expected 'lhs => rhs'"},
		{"# A: doc.\n[A, Normalize]\n$x * 1 => $x\n  where notfree($z, $x)\n", "t.rules:4:3: rule A: condition notfree uses $z"},
		{"# A: doc.\n[A, Normalize]\n$x * _y => $x\n", "t.rules:3:6: identifiers starting with '_' are reserved"},
		{"# A: doc.\n[A, Explore]\nsum(<$k, $v> in $d) $b => $b[$k := $d]\n", "rule A: an Explore rule cannot introduce fresh binders or substitute"},
		{"# a: doc.\n[a, Normalize]\n$x => $x\n", "not UpperCamel"},
	} {
		_, err := ParseRules("t.rules", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRules(%q) = %v, want %q", tc.src, err, tc.want)
		}
	}
}
