package fuse

import (
	"slices"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// A Strategy rewrites an expression, or fails (the Stratego/ELEVATE model
// of the rewrite-strategies paper): it returns the result and whether it
// succeeded. Strategies share a context with the fresh-name supply, the
// types of the current program and the trace of rule firings.
type Strategy func(c *Ctx, e sdql.Expr) (sdql.Expr, bool)

// Ctx is the state strategies run in.
type Ctx struct {
	// Inputs gives the types of the program's inputs.
	Inputs map[string]sdql.Type
	// Dense names the inputs that store every index of their dimension.
	Dense map[string]bool
	// Dims gives the extents of the inputs' modes, when known (the
	// inextent condition).
	Dims map[string][]int
	// Disabled rules never fire.
	Disabled map[string]bool
	// Fired counts the firings of each rule (and named Go passes).
	Fired map[string]int
	// Trace, when non-nil, receives one line per firing.
	Trace func(rule string, before, after sdql.Expr)
	// MaxSteps bounds the rewrites of one Normalize (0: 100,000); hitting
	// it is reported in Exhausted.
	MaxSteps  int
	Exhausted bool

	names *sdql.Names
	types map[sdql.Expr]sdql.Type
	// free memoizes the free variables of the nodes conditions and
	// InlineLet ask about (freeVars)
	free    map[sdql.Expr][]freeVar
	extents *extentFacts // nil until facts() analyzes root
	root    sdql.Expr
	steps   int
}

// facts returns the extent facts of the current program, analyzing it on
// first use (after Dense and Dims are set).
func (c *Ctx) facts() *extentFacts {
	if c.extents == nil {
		c.extents = analyzeExtents(c.root, c.Inputs, c.Dims, c.Dense)
		if c.extents == nil {
			c.extents = &extentFacts{} // nothing known: every key unknown
		}
	}
	return c.extents
}

// NewCtx returns a context for rewriting prog.
func NewCtx(prog sdql.Expr, inputs map[string]sdql.Type) *Ctx {
	c := &Ctx{Inputs: inputs, Dense: map[string]bool{}, Disabled: map[string]bool{}, Fired: map[string]int{}}
	c.names = sdql.NewNames(prog)
	for n := range inputs {
		c.names.Use(n)
	}
	c.retype(prog)
	return c
}

func (c *Ctx) fresh(base string) string { return c.names.Fresh(base) }

// freeIn reports whether name occurs free in e.
func (c *Ctx) freeIn(name string, e sdql.Expr) bool {
	_, ok := c.freeUse(name, e)
	return ok
}

// freeUse returns how name occurs free in e, if it does.
func (c *Ctx) freeUse(name string, e sdql.Expr) (freeVar, bool) {
	fv := c.freeVars(e)
	i, found := slices.BinarySearchFunc(fv, name, func(f freeVar, n string) int { return strings.Compare(f.name, n) })
	if !found {
		return freeVar{}, false
	}
	return fv[i], true
}

// A freeVar is a variable occurring free in a term: how often (counted
// up to 2) and whether an occurrence is inside a sum's body (a loop) in
// the term.
type freeVar struct {
	name   string
	n      int8
	inLoop bool
}

// freeVars returns e's free variables sorted by name, computed once per
// node from its children's: a rule's condition, or InlineLet's count of a
// let's uses, costs a lookup, not a walk of the term. Nodes are never
// changed in place, so a node's free variables are its own.
func (c *Ctx) freeVars(e sdql.Expr) []freeVar {
	if fv, ok := c.free[e]; ok {
		return fv
	}
	var fv []freeVar
	if id, ok := e.(*sdql.Ident); ok {
		fv = []freeVar{{name: id.Name, n: 1}}
	}
	_, isSum := e.(*sdql.SumExpr)
	for i, k := range sdql.Children(e) {
		bound := sdql.Binders(e, i)
		for _, f := range c.freeVars(k) {
			if slices.Contains(bound, f.name) {
				continue
			}
			if isSum && i == 1 {
				f.inLoop = true
			}
			fv = addFree(fv, f)
		}
	}
	if c.free == nil {
		c.free = map[sdql.Expr][]freeVar{}
	}
	c.free[e] = fv
	return fv
}

// addFree adds f's occurrences to the sorted set fv.
func addFree(fv []freeVar, f freeVar) []freeVar {
	i, found := slices.BinarySearchFunc(fv, f.name, func(g freeVar, n string) int { return strings.Compare(g.name, n) })
	if !found {
		return slices.Insert(fv, i, f)
	}
	fv[i].n = min(fv[i].n+f.n, 2)
	fv[i].inLoop = fv[i].inLoop || f.inLoop
	return fv
}

// retype re-infers the types of the current program.
func (c *Ctx) retype(root sdql.Expr) {
	c.root = root
	c.names.Reserve(root)
	info, _ := sdql.Check(root, &sdql.CheckConfig{Inputs: c.Inputs})
	if info != nil {
		c.types = info.Types
	} else {
		c.types = map[sdql.Expr]sdql.Type{}
	}
	c.extents = nil
}

func (c *Ctx) typeOf(e sdql.Expr) sdql.Type {
	if t, ok := c.types[e]; ok {
		return t
	}
	switch e := e.(type) {
	case *sdql.RealLit:
		return sdql.RealType
	case *sdql.BoolLit:
		return sdql.BoolType
	case *sdql.ZeroExpr:
		return e.T
	case *sdql.Ident:
		if t, ok := c.Inputs[e.Name]; ok {
			return t
		}
	}
	return nil
}

func (c *Ctx) fire(name string, before, after sdql.Expr) {
	c.Fired[name]++
	if t := c.typeOf(before); t != nil {
		c.types[after] = t
	}
	if c.Trace != nil {
		c.Trace(name, before, after)
	}
}

// Apply returns the strategy that applies rule r at the root. It fails
// where the rule's instance would change the term's type (typesAgree):
// 1 * $e => $e at 1.0 * n, n an int, is no equality of the typed language.
func Apply(r *Rule) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		if c.Disabled[r.Name] || !rootMayMatch(r.LHS, e) {
			return e, false
		}
		m := &treeMatch{c: c}
		if !matchTree(r.LHS, e, m) || !checkConds(r, m) {
			return e, false
		}
		out, ok := instantiate(r, m, c.typeOf(e))
		if !ok || !typesAgree(c.typeOf(e), c.typeOf(out)) {
			return e, false
		}
		c.fire(r.Name, e, out)
		return out, true
	}
}

// ApplyAny tries the rules in order at the root (a left choice of Apply).
func ApplyAny(rules []*Rule) Strategy {
	ss := make([]Strategy, len(rules))
	for i, r := range rules {
		ss[i] = Apply(r)
	}
	return Choice(ss...)
}

// Id always succeeds without change.
func Id(c *Ctx, e sdql.Expr) (sdql.Expr, bool) { return e, true }

// Fail always fails.
func Fail(c *Ctx, e sdql.Expr) (sdql.Expr, bool) { return e, false }

// Seq applies the strategies one after the other; it fails if any fails.
func Seq(ss ...Strategy) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		for _, s := range ss {
			var ok bool
			if e, ok = s(c, e); !ok {
				return e, false
			}
		}
		return e, true
	}
}

// Choice is left choice (<+): the first strategy that succeeds.
func Choice(ss ...Strategy) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		for _, s := range ss {
			if out, ok := s(c, e); ok {
				return out, true
			}
		}
		return e, false
	}
}

// Try applies s, succeeding unchanged when s fails.
func Try(s Strategy) Strategy { return Choice(s, Id) }

// Repeat applies s until it fails; it always succeeds.
func Repeat(s Strategy) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		for {
			out, ok := s(c, e)
			if !ok || c.overBudget() {
				return e, true
			}
			e = out
		}
	}
}

func (c *Ctx) overBudget() bool {
	c.steps++
	max := c.MaxSteps
	if max == 0 {
		max = 100000
	}
	if c.steps > max {
		c.Exhausted = true
		return true
	}
	return false
}

// One applies s to the first child (left to right) where it succeeds.
func One(s Strategy) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		kids := sdql.Children(e)
		for i, k := range kids {
			if out, ok := s(c, k); ok {
				nk := append([]sdql.Expr(nil), kids...)
				nk[i] = out
				return rebuild(c, e, nk), true
			}
		}
		return e, false
	}
}

// All applies s to every child; it fails if s fails on any.
func All(s Strategy) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		kids := sdql.Children(e)
		if len(kids) == 0 {
			return e, true
		}
		nk := make([]sdql.Expr, len(kids))
		changed := false
		for i, k := range kids {
			out, ok := s(c, k)
			if !ok {
				return e, false
			}
			nk[i] = out
			changed = changed || out != k
		}
		if !changed {
			return e, true
		}
		return rebuild(c, e, nk), true
	}
}

// rebuild is WithChildren that keeps the node's known type.
func rebuild(c *Ctx, e sdql.Expr, kids []sdql.Expr) sdql.Expr {
	out := sdql.WithChildren(e, kids)
	if t, ok := c.types[e]; ok {
		c.types[out] = t
	}
	return out
}

// TopDown applies s at the first position, in pre-order, where it succeeds:
// s <+ one(topDown s).
func TopDown(s Strategy) Strategy {
	var td Strategy
	td = func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		if out, ok := s(c, e); ok {
			return out, true
		}
		return One(td)(c, e)
	}
	return td
}

// BottomUp applies s at the first position, in post-order, where it
// succeeds: one(bottomUp s) <+ s.
func BottomUp(s Strategy) Strategy {
	var bu Strategy
	bu = func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		if out, ok := One(bu)(c, e); ok {
			return out, true
		}
		return s(c, e)
	}
	return bu
}

// Everywhere applies try(s) once at every node, top-down; it always
// succeeds (a single sweep, cheaper than repeated TopDown).
func Everywhere(s Strategy) Strategy {
	var ev Strategy
	ev = func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		e, _ = Try(s)(c, e)
		return All(ev)(c, e)
	}
	return ev
}

// EverywhereBottomUp applies try(s) once at every node, children first;
// it always succeeds.
func EverywhereBottomUp(s Strategy) Strategy {
	var ev Strategy
	ev = func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		e, _ = All(ev)(c, e)
		return Try(s)(c, e)
	}
	return ev
}

// Innermost rewrites with s until no redex is left, innermost first.
func Innermost(s Strategy) Strategy { return Repeat(BottomUp(s)) }

// Normalize rewrites with s until no redex is left: repeat(topDown s). It
// re-infers the types of the whole program between steps, so it must be
// applied to the whole program.
func Normalize(s Strategy) Strategy { return normalize(s, Everywhere) }

// NormalizeInnermost is Normalize with sweeps that rewrite children before
// their parents (innermost first).
func NormalizeInnermost(s Strategy) Strategy { return normalize(s, EverywhereBottomUp) }

func normalize(s Strategy, everywhere func(Strategy) Strategy) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		for {
			c.retype(e)
			// a sweep rewrites every redex it meets once; repeat until none
			changed := false
			sweep := everywhere(func(c *Ctx, x sdql.Expr) (sdql.Expr, bool) {
				out, ok := s(c, x)
				if ok {
					changed = true
				}
				return out, ok
			})
			e, _ = sweep(c, e)
			if !changed || c.overBudget() {
				if e != c.root { // a sweep that rewrote nothing keeps the typed tree
					c.retype(e)
				}
				return e, true
			}
		}
	}
}

// Named wraps a Go-coded pass so that its firings are counted like a rule's.
func Named(name string, f func(c *Ctx, e sdql.Expr) (sdql.Expr, bool)) Strategy {
	return func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		if c.Disabled[name] {
			return e, false
		}
		out, ok := f(c, e)
		if ok {
			c.fire(name, e, out)
		}
		return out, ok
	}
}
