package gogen

import "github.com/nablasd/nablasd/lower"

// Facts. Inside an if's then side, each conjunct of its condition holds.
// lower.VersionLoops writes a loop once for each combination of the
// conditions its body tests, each copy under an if on its combination;
// an inner loop whose range that if says is not empty needs no range test
// of its own (loop's "if lo < hi"), which is a compare and a branch each
// time the inner loop starts: every entry of the factorization's rows.

// holdsFact reports whether an enclosing if's condition has c as a
// conjunct.
func (g *gen) holdsFact(c lower.Expr) bool {
	return g.facts[lower.CanonString(c)] > 0
}

// pushFacts records the conjuncts of cond as facts (for an if's then
// side), and returns what popFacts takes to forget them.
func (g *gen) pushFacts(cond lower.Expr) []string {
	var keys []string
	for _, c := range lower.Conjuncts(cond) {
		k := lower.CanonString(c)
		g.facts[k]++
		keys = append(keys, k)
	}
	return keys
}

// popFacts forgets the facts pushFacts recorded.
func (g *gen) popFacts(keys []string) {
	for _, k := range keys {
		g.facts[k]--
	}
}
