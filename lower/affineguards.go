package lower

import (
	"strconv"
)

// AffineGuards decides the tests of index arithmetic from what is known
// of the indices, and partitions loops so that their inner loops run
// without tests (bounds inference, as Halide and TACO users expect of
// it). Lowering guards every lookup by its key's range: a convolution
// reads
//
//	for i := 0; i < n; i++ {
//	  for k := 0; k < K_len; k++ {
//	    s += K_val[k] * select(0 <= i + k && i + k < x_len, x_val[i + k], 0.0)
//
// Each integer expression is an affine form over atoms (affine.go), and
// the facts are linear constraints over them: every loop's range (lo <=
// v < hi), the conditions of the enclosing ifs and selects, the lets of
// index arithmetic (t := i - 1), the formats' promises (len(x_val) =
// x_len, a coordinate lies below its mode's extent, a pos entry is not
// negative), the shape check's equal extents, and for a product of an
// extent and an index that lies in a dense matrix's other extent, the
// row offset's range (0 <= U_cols * i <= len(U_val) - U_cols). A test
// the facts imply, by Fourier–Motzkin elimination (fm.go), is dropped; one
// whose negation they imply takes its other side.
//
// A loop whose body still tests its own variable against bounds the loop
// does not change (0 <= i + k is k >= -i, i + k < x_len is k < x_len - i)
// is partitioned where all of those tests hold: the steady state
// [max(lo, L), min(hi, H)), before it a prologue and after it an epilogue
// that keep their tests (L the largest of the lower bounds, H the least of
// the upper):
//
//	e := max(0, min(K_len, x_len - i))
//	for k := 0; k < e; k++ { s += K_val[k] * x_val[i + k] }
//	for k := e; k < K_len; k++ { s += K_val[k] * 0.0 }
//
// The steady state knows the tests, so its loop has none (and a primitive
// can run it), and a prologue or epilogue that tests one bound knows that
// test fails. The other side of a select is kept where a test fails (0
// times an infinite K is NaN, as the interpreter computes it). Only
// loops that can be copied (cloneable) are partitioned, each at most
// once, and not a loop of a prologue or epilogue: the code grows by at
// most three copies per loop of a nest.
func AffineGuards(p *Program) {
	an := newAffineAnalysis(p)
	p.Body = an.stmt(p.Body, true)
	p.affine = an
}

// affineAnalysis is the state of AffineGuards: the atoms, the facts known
// of them, and the variables' definitions.
type affineAnalysis struct {
	f     *facts // what lowering knew of the inputs (Program.facts)
	p     *Program
	atoms *atomTable
	// mutable are the variables the program assigns: never atoms of a
	// fact, their value changes
	mutable map[*Var]bool
	// intDef and boolDef are the expressions variables are let to (once,
	// and never assigned)
	intDef  map[*Var]Expr
	boolDef map[*Var]Expr
	lets    map[*Var]int // how many lets bind each variable
	// facts known wherever their atoms are defined (a variable's range,
	// its definition, the formats' promises), by atom
	facts  []lin
	byAtom map[int][]int
	// scoped are the conditions of the enclosing ifs and selects
	scoped []lin
	// noPart are the loops not to partition (partition's pieces)
	noPart map[*For]bool
	// likely gives, for a split point a partition lets, the conditions
	// under which its loop runs whole (no prologue, no epilogue): the
	// enclosing loop's second round partitions on them
	likely map[*Var][]Expr
	// consts are the variables let to a constant (a split point decided)
	consts map[*Var]*Const
	// steady are the facts a partition made known of its steady
	// state's variable (every test held), for its copies (copySteady)
	steady map[*Var][]lin
	// epoch counts the changes of what is known (a fact, a scope), and
	// memo answers implied's questions asked again in the same epoch
	epoch, memoEpoch int
	memo             map[string]bool
	// locates turns locates certainly found into positions
	// (AffineLocates)
	locates bool
	// live are the variables defined where the analysis stands (the
	// parameters, the enclosing loops' indices, the lets before it): a
	// fact is used only where all its atoms are, since a loop's range,
	// lo <= v < hi, says lo < hi only inside the loop
	live   map[*Var]bool
	params map[*Var]bool
	// budget bounds the statements partitioning may copy
	budget int
	// scratch is factsFrom's, by depth (depth: its calls under way)
	scratch []*factsScratch
	depth   int
}

// partitionBudget bounds the statements AffineGuards copies in all.
const partitionBudget = 2000

func newAffineAnalysis(p *Program) *affineAnalysis {
	f := p.facts
	if f == nil {
		f = &facts{}
	}
	an := &affineAnalysis{f: f, p: p, atoms: newAtomTable(), mutable: map[*Var]bool{},
		intDef: map[*Var]Expr{}, boolDef: map[*Var]Expr{}, lets: map[*Var]int{},
		byAtom: map[int][]int{}, noPart: map[*For]bool{}, budget: partitionBudget,
		live: map[*Var]bool{}, params: map[*Var]bool{}, likely: map[*Var][]Expr{}, consts: map[*Var]*Const{}, steady: map[*Var][]lin{}}
	for _, q := range p.Params {
		if q.Var != nil {
			an.params[q.Var] = true
		}
	}
	an.learn(p.Body)
	return an
}

// learn records the definitions of the variables s lets, and which
// variables it assigns (a copy's accumulators are new variables).
func (an *affineAnalysis) learn(s Stmt) {
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *Assign:
			an.mutable[x.V] = true
			delete(an.intDef, x.V)
			delete(an.boolDef, x.V)
		case *Let:
			an.lets[x.V]++
		}
	})
	WalkStmts(s, func(x Stmt) {
		let, ok := x.(*Let)
		if !ok || an.mutable[let.V] || an.lets[let.V] > 1 {
			return
		}
		switch let.V.Kind {
		case Int:
			an.intDef[let.V] = let.X
		case Bool:
			an.boolDef[let.V] = let.X
		}
	})
}

// stable reports whether a form's atoms keep their values wherever they
// are defined: no assigned variable, no temporary array, no tensor value.
func (an *affineAnalysis) stable(f lin) bool {
	for _, t := range f.ts {
		bad := false
		WalkExpr(an.atoms.exprs[t.a], func(x Expr) {
			switch x := x.(type) {
			case *Ref:
				bad = bad || an.mutable[x.V]
			case *Load:
				bad = bad || x.A.Temp
			case *Len:
				bad = bad || x.A.Temp
			case *ValAt:
				bad = true
			}
		})
		if bad {
			return false
		}
	}
	return true
}

// atomLive reports whether an atom's variables are all defined where the
// analysis stands.
func (an *affineAnalysis) atomLive(a int) bool {
	ok := true
	WalkExpr(an.atoms.exprs[a], func(x Expr) {
		if r, isRef := x.(*Ref); isRef && !an.params[r.V] && !an.live[r.V] {
			ok = false
		}
	})
	return ok
}

// setLive and endLive begin and end a variable's scope.
func (an *affineAnalysis) setLive(v *Var) {
	an.live[v] = true
	an.epoch++
}

func (an *affineAnalysis) endLive(v *Var) {
	delete(an.live, v)
	an.epoch++
}

// usable reports whether a fact's atoms are all live.
func (an *affineAnalysis) usable(f lin) bool {
	for _, t := range f.ts {
		if !an.atomLive(t.a) {
			return false
		}
	}
	return true
}

// know adds a fact f >= 0 true wherever its atoms are defined.
func (an *affineAnalysis) know(f lin) {
	if !an.stable(f) {
		return
	}
	an.epoch++
	i := len(an.facts)
	an.facts = append(an.facts, f)
	for _, t := range f.ts {
		an.byAtom[t.a] = append(an.byAtom[t.a], i)
	}
}

// knowEq adds the facts f = 0.
func (an *affineAnalysis) knowEq(f lin) {
	an.know(f)
	an.know(f.scaled(-1))
}

// atom numbers an atom, recording on first sight what the formats and
// the lowering know of it.
func (an *affineAnalysis) atom(e Expr) int {
	a, isNew := an.atoms.id(e)
	if !isNew {
		return a
	}
	self := atomLin(a)
	l := an.f
	switch x := e.(type) {
	case *Len:
		an.know(self)
		if lf, ok := l.lenOf[x.A]; ok {
			an.knowEq(self.plus(an.refLin(lf.n), -1).plus(constLin(int64(lf.off)), -1))
		}
		if g, ok := l.grid[x.A]; ok {
			prod := Canon(&Binary{Op: Mul, X: &Ref{V: g[0]}, Y: &Ref{V: g[1]}})
			an.knowEq(self.plus(atomLin(an.atom(prod)), -1))
		}
	case *Ref:
		v := x.V
		if d, ok := an.intDef[v]; ok {
			if f, ok := an.linOf(d); ok {
				an.knowEq(self.plus(f, -1))
			}
			an.minMaxFacts(self, d)
		}
		if l.nonneg[v] || len(l.modesOf[v]) > 0 {
			an.know(self)
		}
		for _, n := range l.below[v] {
			an.know(an.refLin(n).plus(self, -1).plus(constLin(1), -1)) // n - v - 1 >= 0
		}
		for _, m := range l.modesOf[v] {
			for _, w := range l.extents[m] {
				if w != v {
					an.knowEq(self.plus(an.refLin(w), -1))
				}
			}
		}
	case *Load:
		if a := x.A; a.Level != nil && !a.Temp {
			switch a.Name {
			case a.Level.Pos:
				an.know(self)
			case a.Level.Idx:
				// a coordinate read at a position variable (a segment's
				// loop) lies below its mode's extent
				if _, isRef := x.Index.(*Ref); !isRef {
					break
				}
				an.know(self)
				for _, n := range l.extents[Mode{a.Level.Tensor, a.Level.Mode}] {
					an.know(an.refLin(n).plus(self, -1).plus(constLin(1), -1))
				}
			}
		}
	}
	return a
}

// refLin is the form of a variable.
func (an *affineAnalysis) refLin(v *Var) lin { return atomLin(an.atom(&Ref{V: v})) }

// minMaxFacts records what a let of a maximum or a minimum says of the
// variable: m := select(a < b, b, a) is at least a and b, select(a < b,
// a, b) at most both (the split points of a partition, a union's end).
func (an *affineAnalysis) minMaxFacts(self lin, d Expr) {
	s, ok := d.(*Select)
	if !ok {
		return
	}
	c, ok := s.Cond.(*Binary)
	if !ok || c.Op != Lt && c.Op != Le {
		return
	}
	x, y := CanonString(c.X), CanonString(c.Y)
	t, e := CanonString(s.Then), CanonString(s.Else)
	var sign int64
	switch {
	case t == y && e == x:
		sign = 1 // max: self - a >= 0
	case t == x && e == y:
		sign = -1 // min: a - self >= 0
	default:
		return
	}
	for _, side := range []Expr{c.X, c.Y} {
		if f, ok := an.linOf(side); ok {
			an.know(self.plus(f, -1).scaled(sign))
		}
	}
}

// implied reports whether what is known where the analysis stands
// implies f >= 0.
func (an *affineAnalysis) implied(f lin) bool {
	if f.isConst() {
		return f.c >= 0
	}
	// the same question where nothing changed has the same answer
	if an.memo == nil || an.memoEpoch != an.epoch {
		an.memo, an.memoEpoch = map[string]bool{}, an.epoch
	}
	k := f.key() + "|" + strconv.FormatInt(f.c, 10)
	if v, ok := an.memo[k]; ok {
		return v
	}
	v := impliedByConnected(an.relevantFacts(f), f)
	an.memo[k] = v
	return v
}

// relevantFacts gathers the facts reachable from f's atoms through shared
// atoms: the global facts by atom, the scoped ones by a scan, and the
// ranges of products of an extent and an index (productFacts).
func (an *affineAnalysis) relevantFacts(f lin) []lin { return an.factsFrom(f, true) }

// factsFrom is relevantFacts, with the products' facts or without them.
// Which atoms and facts it has met are stamps in scratch slices of the
// analysis (one set per depth: the products' facts ask factsFrom again),
// so that a query allocates no sets.
func (an *affineAnalysis) factsFrom(f lin, products bool) []lin {
	if an.depth == len(an.scratch) {
		an.scratch = append(an.scratch, &factsScratch{})
	}
	sc := an.scratch[an.depth]
	an.depth++
	defer func() { an.depth-- }()
	sc.stamp++
	if sc.stamp == 0 { // wrapped: old stamps could read as this one's
		clear(sc.atomSeen)
		clear(sc.factUsed)
		clear(sc.scopedUsed)
		sc.stamp = 1
	}
	stamp := sc.stamp
	// the atoms, facts and scoped facts met; atoms and facts can be
	// added during the query (a product's atom, numbered on first sight)
	mark := func(s *[]uint32, i int) bool {
		if i >= len(*s) {
			*s = append(*s, make([]uint32, i+1-len(*s))...)
		}
		if (*s)[i] == stamp {
			return true
		}
		(*s)[i] = stamp
		return false
	}
	seen := func(a int) bool { return mark(&sc.atomSeen, a) }
	var out []lin
	queue := sc.queue[:0]
	push := func(g lin) {
		out = append(out, g)
		for _, t := range g.ts {
			if !seen(t.a) {
				queue = append(queue, t.a)
			}
		}
	}
	for _, t := range f.ts {
		if !seen(t.a) {
			queue = append(queue, t.a)
		}
	}
	for q := 0; q < len(queue) && len(out) < fmMaxConstraints; q++ {
		a := queue[q]
		for _, i := range an.byAtom[a] {
			if !mark(&sc.factUsed, i) && an.usable(an.facts[i]) {
				push(an.facts[i])
			}
		}
		for i, g := range an.scoped {
			if g.coef(a) != 0 && !mark(&sc.scopedUsed, i) {
				push(g)
			}
		}
		if products {
			for _, g := range an.productFacts(a) {
				push(g)
			}
		}
	}
	sc.queue = queue
	return out
}

// factsScratch is factsFrom's scratch at one depth: the stamp of its
// current query, which atoms (by number), facts and scoped facts (by
// index) it has met in that query (marked with its stamp), and its queue
// of atoms.
type factsScratch struct {
	stamp                          uint32
	atomSeen, factUsed, scopedUsed []uint32
	queue                          []int
}

// productFacts bounds a product atom n * x, n an extent (not negative)
// and x an index, by what is known of x where the analysis stands: c·n <=
// n * x where c <= x, n * x <= c·n where x <= c, and n * x <= m·n - d·n
// where x <= m - d for m the other extent of a dense matrix whose extents
// are n and m (the row offset of a row below m - d + 1).
func (an *affineAnalysis) productFacts(a int) []lin {
	b, ok := an.atoms.exprs[a].(*Binary)
	if !ok || b.Op != Mul || b.Kind() != Int {
		return nil
	}
	self := atomLin(a)
	var out []lin
	for _, pair := range [][2]Expr{{b.X, b.Y}, {b.Y, b.X}} {
		r, ok := pair[0].(*Ref)
		if !ok || len(an.f.modesOf[r.V]) == 0 {
			continue
		}
		x, ok := an.linOf(pair[1])
		if !ok {
			continue
		}
		n := an.refLin(r.V)
		if c, ok := an.lowerConst(x); ok {
			out = append(out, self.plus(n, -c)) // n*x - c*n >= 0
		}
		if c, ok := an.lowerConst(x.scaled(-1)); ok {
			out = append(out, n.scaled(-c).plus(self, -1)) // -c*n - n*x >= 0 (x <= -c)
		}
		for _, g := range an.f.grid {
			var m *Var
			switch {
			case g[0] == r.V:
				m = g[1]
			case g[1] == r.V:
				m = g[0]
			default:
				continue
			}
			// x <= m - d gives n * x <= n * m - d * n
			if d, ok := an.lowerConst(an.refLin(m).plus(x, -1)); ok {
				mn := atomLin(an.atom(Canon(&Binary{Op: Mul, X: &Ref{V: r.V}, Y: &Ref{V: m}})))
				out = append(out, mn.plus(self, -1).plus(n, -d))
			}
		}
	}
	return out
}

// lowerConst is the greatest constant known to bound f from below, from
// the facts without the products' (shallowFacts).
func (an *affineAnalysis) lowerConst(f lin) (int64, bool) {
	if f.isConst() {
		return f.c, true
	}
	return lowerBound(an.shallowFacts(f), f)
}

// shallowFacts gathers the facts reachable from f's atoms as
// relevantFacts does, without the products' facts (one level of them is
// enough for a row offset, and it cannot recurse).
func (an *affineAnalysis) shallowFacts(f lin) []lin { return an.factsFrom(f, false) }

// decide says whether a condition holds (+1), fails (-1) or cannot be
// told (0) from what is known.
func (an *affineAnalysis) decide(c Expr) int {
	if k, ok := c.(*Const); ok && k.K == Bool {
		if k.I != 0 {
			return 1
		}
		return -1
	}
	if fs, ok := an.cmpLin(c, false); ok {
		all := true
		for _, f := range fs {
			if !an.implied(f) {
				all = false
				break
			}
		}
		if all {
			return 1
		}
		if len(fs) == 2 {
			// an equality fails where one side is known below the other
			for _, f := range fs {
				if an.implied(f.scaled(-1).plus(constLin(1), -1)) {
					return -1
				}
			}
			return 0
		}
		if neg, ok := an.cmpLin(c, true); ok && len(neg) == 1 && an.implied(neg[0]) {
			return -1
		}
	}
	return 0
}

// assume pushes a condition's linear conjuncts as scoped facts (holds)
// or, for a single comparison, its negation; it returns the mark to pop
// back to.
func (an *affineAnalysis) assume(c Expr, holds bool) int {
	mark := len(an.scoped)
	if holds {
		for _, x := range Conjuncts(c) {
			if fs, ok := an.cmpLin(x, false); ok {
				for _, f := range fs {
					if an.stable(f) {
						an.scoped = append(an.scoped, f)
						an.epoch++
					}
				}
			}
		}
		return mark
	}
	if fs, ok := an.cmpLin(c, true); ok && len(fs) == 1 && an.stable(fs[0]) {
		an.scoped = append(an.scoped, fs[0])
		an.epoch++
	}
	return mark
}

func (an *affineAnalysis) pop(mark int) {
	if mark != len(an.scoped) {
		an.epoch++
	}
	an.scoped = an.scoped[:mark]
}

// cond simplifies a condition: conjuncts that hold are dropped, one that
// fails makes it false; the later conjuncts are decided knowing the
// earlier ones (&& evaluates them in order).
func (an *affineAnalysis) cond(c Expr) Expr {
	mark := len(an.scoped)
	defer an.pop(mark)
	var keep []Expr
	for _, x := range Conjuncts(c) {
		switch an.decide(x) {
		case 1:
			continue
		case -1:
			return boolConst(false)
		}
		x = an.expr(x)
		if k, ok := x.(*Const); ok && k.K == Bool {
			if k.I == 0 {
				return boolConst(false)
			}
			continue
		}
		keep = append(keep, x)
		an.assume(x, true)
	}
	if len(keep) == 0 {
		return boolConst(true)
	}
	return andOf(keep)
}

// expr simplifies the tests inside an expression.
func (an *affineAnalysis) expr(e Expr) Expr {
	switch x := e.(type) {
	case *Ref:
		if k, ok := an.consts[x.V]; ok {
			return k
		}
		return e
	case *Select:
		if y, ok := an.minMax(x); ok {
			return an.expr(y)
		}
		c := an.cond(x.Cond)
		if k, ok := c.(*Const); ok {
			if k.I != 0 {
				return an.expr(x.Then)
			}
			return an.expr(x.Else)
		}
		mark := an.assume(c, true)
		then := an.expr(x.Then)
		an.pop(mark)
		mark = an.assume(c, false)
		els := an.expr(x.Else)
		an.pop(mark)
		y := &Select{Cond: c, Then: then, Else: els}
		if z, ok := an.minMax(y); ok {
			return z
		}
		return y
	case *Binary:
		switch x.Op {
		case And:
			return an.cond(x)
		case Lt, Le, Eq:
			switch an.decide(x) {
			case 1:
				return boolConst(true)
			case -1:
				return boolConst(false)
			}
		case Or:
			a, b := an.expr(x.X), an.expr(x.Y)
			if k, ok := a.(*Const); ok {
				if k.I != 0 {
					return a
				}
				return b
			}
			if k, ok := b.(*Const); ok && k.I == 0 {
				return a
			}
			return &Binary{Op: Or, X: a, Y: b}
		}
	case *Unary:
		if x.Op == Not {
			switch an.decide(x.X) {
			case 1:
				return boolConst(false)
			case -1:
				return boolConst(true)
			}
		}
	}
	return rebuild(e, an.expr)
}

// minMax decides a maximum or minimum, select(a < b, b, a) or
// select(a < b, a, b), where a <= b is known (or b <= a): where a == b
// both sides are equal, so the side of the strict test is the value.
func (an *affineAnalysis) minMax(s *Select) (Expr, bool) {
	if _, _, _, ok := an.minMaxOf(s); !ok {
		return nil, false
	}
	c := s.Cond.(*Binary)
	switch {
	case an.atMost(c.X, c.Y): // a <= b: the test's then side
		return s.Then, true
	case an.atMost(c.Y, c.X): // b <= a: its else side
		return s.Else, true
	}
	return nil, false
}

// atMost reports whether a <= b is known, reading a maximum or minimum
// on either side by its operands: max(p, q) <= b when both are, a <=
// min(p, q) when a is at most both, and either one where the other side
// is bounded by one of them.
func (an *affineAnalysis) atMost(a, b Expr) bool {
	return an.atMostDepth(a, b, 0)
}

func (an *affineAnalysis) atMostDepth(a, b Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	if p, q, isMax, ok := an.minMaxOf(b); ok {
		if isMax {
			return an.atMostDepth(a, p, depth+1) || an.atMostDepth(a, q, depth+1)
		}
		return an.atMostDepth(a, p, depth+1) && an.atMostDepth(a, q, depth+1)
	}
	if p, q, isMax, ok := an.minMaxOf(a); ok {
		if isMax {
			return an.atMostDepth(p, b, depth+1) && an.atMostDepth(q, b, depth+1)
		}
		return an.atMostDepth(p, b, depth+1) || an.atMostDepth(q, b, depth+1)
	}
	f, ok1 := an.linOf(a)
	g, ok2 := an.linOf(b)
	return ok1 && ok2 && an.implied(g.plus(f, -1))
}

// minMaxOf matches max(p, q) = select(p < q, q, p) and min(p, q) =
// select(p < q, p, q), also through a variable let to one.
func (an *affineAnalysis) minMaxOf(e Expr) (p, q Expr, isMax, ok bool) {
	if r, isRef := e.(*Ref); isRef {
		if d, isDef := an.intDef[r.V]; isDef {
			e = d
		}
	}
	s, isSel := e.(*Select)
	if !isSel {
		return nil, nil, false, false
	}
	c, isBin := s.Cond.(*Binary)
	if !isBin || c.Op != Lt {
		return nil, nil, false, false
	}
	x, y := CanonString(c.X), CanonString(c.Y)
	t, el := CanonString(s.Then), CanonString(s.Else)
	switch {
	case t == y && el == x:
		return c.X, c.Y, true, true
	case t == x && el == y:
		return c.X, c.Y, false, true
	}
	return nil, nil, false, false
}

// stmt simplifies the tests of s; part allows partitioning its loops.
// The variables s defines for the statements after it (a let, an
// insert's position) are live when it returns; the enclosing block ends
// them.
func (an *affineAnalysis) stmt(s Stmt, part bool) Stmt {
	switch x := s.(type) {
	case *Block:
		out := make([]Stmt, 0, len(x.List))
		var defined []*Var
		for _, y := range x.List {
			y = an.stmt(y, part)
			for _, z := range blockList(y) {
				switch z := z.(type) {
				case *Let:
					defined = append(defined, z.V)
				case *Insert:
					defined = append(defined, z.Pos)
				}
			}
			if b, ok := y.(*Block); ok {
				out = append(out, b.List...)
			} else if y != nil {
				out = append(out, y)
			}
		}
		for _, v := range defined {
			an.endLive(v)
		}
		x.List = out
		return x
	case *Let:
		x.X = an.expr(x.X)
		an.setLive(x.V)
		if k, ok := x.X.(*Const); ok && k.K == Int && !an.mutable[x.V] && an.lets[x.V] <= 1 {
			an.consts[x.V] = k // read as the constant from here on
		}
		if x.V.Kind == Int && !an.mutable[x.V] && an.lets[x.V] <= 1 {
			// what the simplified definition says (a split point
			// decided to one side)
			self := an.refLin(x.V)
			if f, ok := an.linOf(x.X); ok {
				an.knowEq(self.plus(f, -1))
			}
			an.minMaxFacts(self, x.X)
		}
		return x
	case *Insert:
		mapOwnExprs(x, an.expr)
		an.setLive(x.Pos)
		return x
	case *If:
		c := an.cond(x.Cond)
		if k, ok := c.(*Const); ok {
			if k.I != 0 {
				return an.stmt(x.Then, part)
			}
			if x.Else == nil {
				return &Block{}
			}
			return an.stmt(x.Else, part)
		}
		x.Cond = c
		mark := an.assume(c, true)
		x.Then = an.scoped1(x.Then, part)
		an.pop(mark)
		if x.Else != nil {
			mark = an.assume(c, false)
			x.Else = an.scoped1(x.Else, part)
			an.pop(mark)
		}
		return x
	case *For:
		x.Lo, x.Hi = an.expr(x.Lo), an.expr(x.Hi)
		if lo, ok := an.linOf(x.Lo); ok {
			if hi, ok := an.linOf(x.Hi); ok && an.implied(lo.plus(hi, -1)) {
				return &Block{} // hi <= lo: the loop never runs
			}
		}
		return an.forStmt(x, part)
	case *ForLevel:
		x.Parent = an.expr(x.Parent)
		an.setLive(x.Key)
		if x.Pos != nil {
			an.setLive(x.Pos)
		}
		switch x.T.Levels[x.Level].Storage {
		case Dense, Sparse, Diagonal:
			an.know(an.refLin(x.Key))
		}
		x.Body = an.scoped1(x.Body, part)
		an.endLive(x.Key)
		if x.Pos != nil {
			an.endLive(x.Pos)
		}
		return x
	case *Search:
		x.Lo, x.Hi, x.Key = an.expr(x.Lo), an.expr(x.Hi), an.expr(x.Key)
		an.setLive(x.Pos)
		an.loopFacts(x.Pos, x.Lo, x.Hi)
		x.Body = an.scoped1(x.Body, part)
		an.endLive(x.Pos)
		return x
	case *Locate:
		x.Parent, x.Key = an.expr(x.Parent), an.expr(x.Key)
		if pos, ok := an.directLocate(x); ok {
			// the key is certainly there: its position, and the body
			let := &Let{V: x.Pos, X: pos}
			an.learn(let)
			return an.stmt(&Block{List: append([]Stmt{let}, blockList(x.Body)...)}, part)
		}
		an.setLive(x.Pos)
		x.Body = an.scoped1(x.Body, part)
		an.endLive(x.Pos)
		return x
	}
	mapOwnExprs(s, an.expr)
	return s
}

// scoped1 is stmt for a statement that is a body of its own (a branch, a
// loop's body): what it defines ends with it.
func (an *affineAnalysis) scoped1(s Stmt, part bool) Stmt {
	if _, ok := s.(*Block); ok || s == nil {
		return an.stmt(s, part)
	}
	b := an.stmt(&Block{List: []Stmt{s}}, part).(*Block)
	return stmtsOf(b.List)
}

// loop simplifies a loop's body, its variable live and in its range.
func (an *affineAnalysis) loop(f *For, part bool) {
	an.setLive(f.V)
	an.loopFacts(f.V, f.Lo, f.Hi)
	f.Body = an.scoped1(f.Body, part)
	an.endLive(f.V)
}

// loopFacts records that v lies in lo..hi-1.
func (an *affineAnalysis) loopFacts(v *Var, lo, hi Expr) {
	self := an.refLin(v)
	if f, ok := an.linOf(lo); ok {
		an.know(self.plus(f, -1))
	}
	if f, ok := an.linOf(hi); ok {
		an.know(f.plus(self, -1).plus(constLin(1), -1))
	}
}

// guardBound is a test of a loop's variable v against bounds the loop
// does not change: v >= b (lower) or v < b (upper, b exclusive).
type guardBound struct {
	lower bool
	b     lin
	test  lin // the test as f >= 0
}

// forStmt simplifies a loop and, with part, partitions it, outermost
// first: its body's tests are decided, the loop is split where the tests
// of its variable hold (split), and the loops inside the steady state are
// partitioned in turn, knowing its facts; the split points they add
// (min(K_len, x_len - i)) may partition the loop once more, so that its
// steady state runs their whole ranges. Prologues and epilogues are
// simplified, not partitioned.
func (an *affineAnalysis) forStmt(f *For, part bool) Stmt {
	if !part || an.noPart[f] {
		an.loop(f, part)
		return f
	}
	an.noPart[f] = true
	an.loop(f, false)
	steady, out := an.split(f, false)
	an.loop(steady, true)
	steady2, out2 := an.split(steady, true)
	if steady2 == steady {
		return out
	}
	if b, ok := out.(*Block); ok {
		for i, x := range b.List {
			if x == steady {
				list := append(append(append([]Stmt(nil), b.List[:i]...), blockList(out2)...), b.List[i+1:]...)
				return &Block{List: list}
			}
		}
	}
	return out2
}

// split divides loop f (its body simplified) into a prologue, the steady
// state where every test of its variable against invariant bounds holds,
// and an epilogue (AffineGuards), each simplified knowing what holds
// there. It returns the steady state and what replaces f; f itself, twice,
// when there is nothing to split on.
func (an *affineAnalysis) split(f *For, likely bool) (*For, Stmt) {
	bounds := an.loopGuards(f, likely)
	if len(bounds) == 0 || !cloneable(f.Body) {
		return f, f
	}
	size := 0
	WalkStmts(f.Body, func(Stmt) { size++ })
	if 2*size > an.budget {
		return f, f
	}
	an.budget -= 2 * size
	var lows, highs []guardBound
	for _, g := range bounds {
		if g.lower {
			lows = append(lows, g)
		} else {
			highs = append(highs, g)
		}
	}
	// a bound another one implies is left out of the maximum (minimum)
	lows = an.tightest(lows, 1)
	highs = an.tightest(highs, -1)
	var list []Stmt
	var defined []*Var
	// bind lets x to a new variable, so that a bound read twice (a
	// maximum's test and side) is computed once
	bind := func(name string, x Expr) Expr {
		x = an.expr(x)
		switch x.(type) {
		case *Const, *Ref:
			return x
		}
		v := an.p.NewVar(name, Int)
		let := &Let{V: v, X: x}
		list = append(list, let)
		an.learn(let)
		an.setLive(v)
		defined = append(defined, v)
		return &Ref{V: v}
	}
	lo, hi := f.Lo, f.Hi
	s1, s2 := lo, hi
	// the conditions under which a split point leaves the loop whole: no
	// prologue (each lower bound at most lo), no epilogue (hi at most
	// each upper bound)
	var whole []Expr
	if len(lows) > 0 {
		var l Expr
		for _, g := range lows {
			b := an.linExpr(g.b)
			l = bind("lo", maxOf(l, b))
			whole = append(whole, &Binary{Op: Le, X: b, Y: lo})
		}
		s1 = bind("lo", maxOf(lo, bind("lo", minOf(hi, l))))
	}
	if len(highs) > 0 {
		var h Expr
		for _, g := range highs {
			b := an.linExpr(g.b)
			h = bind("hi", minOf(h, b))
			whole = append(whole, &Binary{Op: Le, X: hi, Y: b})
		}
		s2 = bind("hi", maxOf(s1, bind("hi", minOf(hi, h))))
	}
	for _, v := range defined {
		an.likely[v] = whole
	}
	// the copies first: the steady state is simplified in place
	type pieceOf struct {
		g      *For
		steady bool
		fails  []guardBound
	}
	var pieces []pieceOf
	var steady *For
	add := func(lo, hi Expr, isSteady bool, fails []guardBound) {
		v, body := f.V, f.Body
		if !isSteady {
			v = an.p.NewVar(f.V.Name, Int)
			renamed := map[*Var]Expr{f.V: &Ref{V: v}}
			body = cloneStmt(an.p, f.Body, renamed)
			an.copySteady(renamed)
			an.learn(body)
		}
		g := &For{V: v, Lo: lo, Hi: hi, Body: body, Steady: isSteady}
		an.noPart[g] = true
		pieces = append(pieces, pieceOf{g, isSteady, fails})
		list = append(list, g)
		if isSteady {
			steady = g
		}
	}
	if len(lows) > 0 {
		add(lo, s1, false, lows)
	}
	add(s1, s2, true, nil)
	if len(highs) > 0 {
		add(s2, hi, false, highs)
	}
	for _, pc := range pieces {
		self := an.refLin(pc.g.V)
		if pc.steady {
			for _, b := range bounds {
				an.know(b.test)
				an.steady[pc.g.V] = append(an.steady[pc.g.V], b.test)
			}
		} else if len(pc.fails) == 1 {
			// below the one lower bound (or from the one upper bound on)
			// its test fails
			b := pc.fails[0]
			if b.lower {
				an.know(b.b.plus(self, -1).plus(constLin(1), -1)) // v <= b - 1
			} else {
				an.know(self.plus(b.b, -1)) // v >= b
			}
		}
		an.loop(pc.g, false)
	}
	for _, v := range defined {
		an.endLive(v)
	}
	return steady, &Block{List: list}
}

// tightest keeps of the bounds those no other one is known to be at least
// as tight as: for lower bounds (sign 1) the greatest, for upper bounds
// (sign -1) the least; of equal ones the first.
func (an *affineAnalysis) tightest(bs []guardBound, sign int64) []guardBound {
	var out []guardBound
	for i, b := range bs {
		redundant := false
		for j, c := range bs {
			if i == j {
				continue
			}
			// c at least as tight as b: sign·(c - b) >= 0
			if an.implied(c.b.plus(b.b, -1).scaled(sign)) {
				// of two equal bounds keep the first
				if j < i || !an.implied(b.b.plus(c.b, -1).scaled(sign)) {
					redundant = true
					break
				}
			}
		}
		if !redundant {
			out = append(out, b)
		}
	}
	return out
}

// copySteady gives the loops of a copy what was known of the steady
// states they copy: each fact of a steady loop's variable, its variables
// renamed as the copy renamed them (renamed: cloneStmt's map).
func (an *affineAnalysis) copySteady(renamed map[*Var]Expr) {
	for old, to := range renamed {
		fs := an.steady[old]
		nv, ok := to.(*Ref)
		if len(fs) == 0 || !ok {
			continue
		}
		for _, f := range fs {
			g := constLin(f.c)
			for _, t := range f.ts {
				e := Canon(substLets(an.atoms.exprs[t.a], renamed))
				g = g.plus(an.mustLin(e), t.k)
			}
			an.know(g)
			an.steady[nv.V] = append(an.steady[nv.V], g)
		}
	}
}

// mustLin is the form of an int expression, an opaque atom when it is
// not affine.
func (an *affineAnalysis) mustLin(e Expr) lin {
	if f, ok := an.linOf(e); ok {
		return f
	}
	return atomLin(an.atom(e))
}

// loopGuards finds the tests in f's body of f's variable against bounds
// f does not change, with coefficient 1 or -1 (i + k < x_len in a loop
// over k is k < x_len - i): the conjuncts of the conditions of its ifs
// and selects, anywhere in its body, with the index arithmetic the body
// lets (t := k - 1) read through.
func (an *affineAnalysis) loopGuards(f *For, likely bool) []guardBound {
	changed, _ := loopEffects(f)
	self, _ := an.atoms.id(&Ref{V: f.V})
	// expand reads the body's own int lets through, and reports whether
	// the form is then over f's variable and invariant atoms only
	var expand func(g lin, depth int) (lin, bool)
	expand = func(g lin, depth int) (lin, bool) {
		out := constLin(g.c)
		for _, t := range g.ts {
			if t.a == self {
				out = out.plus(atomLin(t.a), t.k)
				continue
			}
			e := an.atoms.exprs[t.a]
			variant := false
			WalkExpr(e, func(x Expr) {
				if r, ok := x.(*Ref); ok && changed[r.V] {
					variant = true
				}
			})
			if !variant {
				out = out.plus(atomLin(t.a), t.k)
				continue
			}
			r, ok := e.(*Ref)
			d, isDef := an.intDef[r2v(r, ok)]
			if !ok || !isDef || depth > 8 || an.mutable[r.V] {
				return lin{}, false
			}
			h, ok := an.linOf(d)
			if !ok {
				return lin{}, false
			}
			h, ok = expand(h, depth+1)
			if !ok {
				return lin{}, false
			}
			out = out.plus(h, t.k)
		}
		return out, true
	}
	var out []guardBound
	seen := map[string]bool{}
	consider := func(c Expr) {
		for _, x := range Conjuncts(c) {
			fs, ok := an.cmpLin(x, false)
			if !ok || len(fs) != 1 {
				continue
			}
			g, ok := expand(fs[0], 0)
			if !ok || !an.stable(g) {
				continue
			}
			k := g.coef(self)
			if k != 1 && k != -1 {
				continue
			}
			rest := g.without(self)
			// g = k*v + rest >= 0: v >= -rest (k = 1) or v < rest + 1 (k = -1)
			var gb guardBound
			if k == 1 {
				gb = guardBound{lower: true, b: rest.scaled(-1), test: g}
			} else {
				gb = guardBound{b: rest.plus(constLin(1), 1), test: g}
			}
			key := g.key() + "|" + strconv.FormatInt(g.c, 10)
			if seen[key] || an.implied(g) {
				continue
			}
			seen[key] = true
			out = append(out, gb)
		}
	}
	if likely {
		// the conditions under which the split points the body lets
		// leave their loops whole (partition's second round)
		WalkStmts(f.Body, func(s Stmt) {
			if x, ok := s.(*Let); ok {
				for _, c := range an.likely[x.V] {
					consider(c)
				}
			}
		})
		return out
	}
	WalkStmts(f.Body, func(s Stmt) {
		if x, ok := s.(*If); ok {
			consider(x.Cond)
		}
	})
	WalkStmtExprs(f.Body, func(e Expr) {
		// a lookup's guard, not a maximum or minimum (either side of
		// which is as likely)
		if x, ok := e.(*Select); ok {
			if _, _, _, mm := an.minMaxOf(x); !mm {
				consider(x.Cond)
			}
		}
	})
	return out
}

// r2v is the variable of a reference (nil when there is none).
func r2v(r *Ref, ok bool) *Var {
	if !ok {
		return nil
	}
	return r.V
}

// maxOf and minOf are max(a, b) and min(a, b) of ints, a nil a standing
// for no bound.
func maxOf(a, b Expr) Expr {
	if a == nil {
		return b
	}
	if CanonString(a) == CanonString(b) {
		return a
	}
	return &Select{Cond: &Binary{Op: Lt, X: a, Y: b}, Then: b, Else: a}
}

func minOf(a, b Expr) Expr {
	if a == nil {
		return b
	}
	if CanonString(a) == CanonString(b) {
		return a
	}
	return &Select{Cond: &Binary{Op: Lt, X: a, Y: b}, Then: a, Else: b}
}
