package lower

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// What lowering knows of indices, to read arrays without bounds checks
// and to pick storages: a variable is non-negative, lies below a bound,
// or is a position valid for some arrays. The facts come from the loops
// that bind the variables, from conditions the program tests (the guard
// 0 <= j && j < x_len of a dense vector's lookup), and from what the
// formats promise of their arrays once validated (the pos array of a
// compressed level under a dense one has its extent plus one entries).

// facts are the lowerer's knowledge of variables.
type facts struct {
	nonneg  map[*Var]bool
	below   map[*Var][]*Var   // v < each parameter of below[v] (and v >= 0)
	inRange map[*Var][]*Array // v is a valid index of these arrays
	// lenOf gives an array's length as a parameter plus an offset, where
	// the format says so: len(A_pos) = A_len + 1, len(x_val) = x_len.
	lenOf map[*Array]lenFact
	// same lists, for an array, the arrays of its tensor indexed by the
	// same positions (a compressed level's idx and the values below it).
	same map[*Array][]*Array
	// grid gives the two extents of a dense matrix's values array, whose
	// length is their product.
	grid map[*Array][2]*Var
	// extents gives, for a mode of a tensor input, the parameters known
	// to equal its extent: its dense levels' extents, and those of the
	// modes Options.EqualModes says are as large.
	extents map[Mode][]*Var
	// modesOf gives, for a parameter, the modes it is the extent of (a
	// dense level's).
	modesOf map[*Var][]Mode
	// hiOf gives, for a range loop's variable, its loop's end where that
	// is made of parameters and constants (v < n - 1): a bound that can
	// size a tensor before the loop (upperBound)
	hiOf map[*Var]Expr
	// loOf gives, for a range loop's variable, its loop's constant start
	// (i - 1 is not negative in a loop from 1)
	loOf map[*Var]int
	// rangeLoop marks the variables of loops over ranges (dense
	// iteration: not a format level's coordinates)
	rangeLoop map[*Var]bool
}

type lenFact struct {
	n   *Var
	off int
}

// describeArrays records the facts the formats give about the arrays of
// the program's parameters.
func (l *lowerer) describeArrays() {
	byName := map[string]*Array{}
	for _, a := range l.prog.Arrays {
		byName[a.Name] = a
	}
	vars := map[string]*Var{}
	for _, p := range l.prog.Params {
		if p.Var != nil {
			vars[p.Name] = p.Var
		}
	}
	for name, f := range l.opts.Formats {
		ls, err := formats.Levels(f.Format, name, f.Order)
		if err != nil || len(ls) == 0 {
			continue
		}
		val := byName[ls[0].Val]
		// the arrays indexed by the last level's positions
		group := []*Array{}
		if val != nil {
			group = append(group, val)
		}
		for k := len(ls) - 1; k >= 0; k-- {
			if a := byName[ls[k].Idx]; a != nil {
				group = append(group, a)
			}
			if !ls[k].OnePerParent {
				break
			}
		}
		for _, a := range group {
			l.same[a] = group
		}
		top := ls[0]
		if len(ls) == 2 && ls[0].CoordIter && ls[1].CoordIter && val != nil {
			if r, c := vars[ls[0].Extent], vars[ls[1].Extent]; r != nil && c != nil {
				l.grid[val] = [2]*Var{r, c}
			}
		}
		for _, lv := range ls {
			if v := vars[lv.Extent]; lv.CoordIter && v != nil {
				m := Mode{name, lv.Mode}
				l.extents[m] = append(l.extents[m], v)
			}
		}
		n := vars[top.Extent]
		if n == nil {
			continue
		}
		switch {
		case top.CoordIter && len(ls) == 1 && val != nil:
			l.lenOf[val] = lenFact{n, 0}
		case top.CoordIter && len(ls) > 1 && ls[1].Pos != "":
			if pos := byName[ls[1].Pos]; pos != nil {
				l.lenOf[pos] = lenFact{n, 1}
			}
		case top.PosIter:
			for _, a := range group {
				if ls[len(ls)-1].OnePerParent || len(ls) == 1 {
					l.lenOf[a] = lenFact{n, 0}
				}
			}
			if a := byName[top.Idx]; a != nil {
				l.lenOf[a] = lenFact{n, 0}
			}
		}
	}
}

// equateModes adds to each mode's extents those of the modes
// Options.EqualModes groups it with (after describeArrays).
func (l *lowerer) equateModes() {
	modes := slices.SortedFunc(maps.Keys(l.extents), func(a, b Mode) int {
		return cmp.Or(strings.Compare(a.Tensor, b.Tensor), a.Mode-b.Mode)
	})
	for _, m := range modes {
		for _, n := range l.extents[m] {
			l.modesOf[n] = append(l.modesOf[n], m)
		}
	}
	for _, g := range l.opts.EqualModes {
		var all []*Var
		for _, m := range g {
			all = append(all, l.extents[m]...)
		}
		for _, m := range g {
			l.extents[m] = all
		}
	}
}

// keyBelow records that the variable v, a key read from array a, lies
// below the extent of the mode a stores coordinates of, when a is a level's
// coordinate array of a tensor input (validated: its entries lie in
// 0..extent-1).
func (l *lowerer) keyBelow(v *Var, a *Array) {
	if a.Level != nil && a.Level.Idx == a.Name {
		l.addBelow(v, l.extents[Mode{a.Level.Tensor, a.Level.Mode}])
	}
}

// addBelow records v < n for each parameter n of ns.
func (l *lowerer) addBelow(v *Var, ns []*Var) {
	for _, n := range ns {
		if !slices.Contains(l.below[v], n) {
			l.below[v] = append(l.below[v], n)
		}
	}
}

// loopVar records what a range loop's variable is: non-negative when the
// loop starts at a non-negative constant, below hi when hi is a
// parameter.
func (l *lowerer) loopVar(v *Var, lo, hi Expr) {
	if c, ok := lo.(*Const); ok && c.I >= 0 {
		l.nonneg[v] = true
		if r, ok := hi.(*Ref); ok && l.isParam(r.V) {
			l.below[v] = append(l.below[v], r.V)
			for _, m := range l.modesOf[r.V] {
				l.addBelow(v, l.extents[m])
			}
		}
	}
	if r, ok := lo.(*Ref); ok && l.nonneg[r.V] {
		l.nonneg[v] = true
	}
	if ld, ok := lo.(*Load); ok && l.isPosArray(ld.A) {
		l.nonneg[v] = true
	}
	if l.paramsOnly(hi) {
		l.hiOf[v] = hi
	}
	if c, ok := lo.(*Const); ok && c.K == Int {
		l.loOf[v] = c.I
	}
}

// paramsOnly reports whether an int expression reads only parameters
// and constants (no loop's variable, no memory).
func (l *lowerer) paramsOnly(e Expr) bool {
	ok := e.Kind() == Int
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *Ref:
			ok = ok && l.isParam(x.V)
		case *Const, *Binary, *Unary:
		default:
			ok = false
		}
	})
	return ok
}

func (l *lowerer) isParam(v *Var) bool {
	for _, p := range l.prog.Params {
		if p.Var == v {
			return true
		}
	}
	return false
}

// isPosArray reports whether a is a format's pos array (non-negative
// entries once validated).
func (l *lowerer) isPosArray(a *Array) bool {
	return a.Level != nil && a.Level.Pos == a.Name
}

// assume returns env unchanged, recording the bounds cond establishes for
// the code lowered under it (cond's conjuncts 0 <= v and v < n) until the
// end of the enclosing nested block: it is called for a branch's code,
// inside the nested block that branch is lowered into.
func (l *lowerer) assume(env *scope, cond Expr) *scope {
	var lower, upper []*Var
	var walk func(e Expr)
	walk = func(e Expr) {
		b, ok := e.(*Binary)
		if !ok {
			return
		}
		switch b.Op {
		case And:
			walk(b.X)
			walk(b.Y)
		case Le:
			if isConst(b.X, 0) {
				if r, ok := b.Y.(*Ref); ok {
					lower = append(lower, r.V)
				}
			}
		case Lt:
			r, ok := b.X.(*Ref)
			n, ok2 := b.Y.(*Ref)
			if ok && ok2 && l.isParam(n.V) {
				upper = append(upper, r.V, n.V)
			}
		}
	}
	walk(cond)
	for _, v := range lower {
		for i := 0; i+1 < len(upper); i += 2 {
			if upper[i] == v {
				l.below[v] = append(l.below[v], upper[i+1])
				l.undo = append(l.undo, v)
			}
		}
	}
	return env
}

// load reads a[idx]: unchecked when idx is known to be a valid index of
// a, else checked (0 outside a, as a lookup of a missing key).
func (l *lowerer) load(a *Array, idx Expr) Expr {
	if l.validIndex(a, idx) || l.validGridIndex(a, idx) {
		return &Load{A: a, Index: idx}
	}
	return &Select{Cond: inRangeCond(idx, intConst(0), &Len{A: a}), Then: &Load{A: a, Index: idx}, Else: zeroOf(a.Kind)}
}

// validIndex reports whether idx is known to lie in 0..len(a)-1.
func (l *lowerer) validIndex(a *Array, idx Expr) bool {
	v, off := affineVar(idx)
	if v == nil {
		return false
	}
	if off == 0 {
		for _, b := range l.inRange[v] {
			if b == a {
				return true
			}
			for _, s := range l.same[b] {
				if s == a {
					return true
				}
			}
		}
	}
	if lf, ok := l.lenOf[a]; ok && off >= 0 && off <= lf.off {
		for _, n := range l.below[v] {
			if lf.n == n {
				return true
			}
		}
	}
	return false
}

// validGridIndex reports whether idx is n*x + y for the two extents
// {n, m} of the dense matrix whose values a holds, with x below m and y
// below n: an index of a's rows times columns.
func (l *lowerer) validGridIndex(a *Array, idx Expr) bool {
	g, ok := l.grid[a]
	if !ok {
		return false
	}
	f := affine(idx)
	if f.c != 0 || len(f.terms) != 2 {
		return false
	}
	var prod *Binary
	var y *Var
	for _, t := range f.terms {
		if t.coef != 1 {
			return false
		}
		switch x := t.x.(type) {
		case *Binary:
			prod = x
		case *Ref:
			y = x.V
		}
	}
	if prod == nil || y == nil || prod.Op != Mul {
		return false
	}
	a1, ok1 := prod.X.(*Ref)
	a2, ok2 := prod.Y.(*Ref)
	if !ok1 || !ok2 {
		return false
	}
	isBelow := func(v, n *Var) bool {
		for _, b := range l.below[v] {
			if b == n {
				return true
			}
		}
		return false
	}
	for _, pair := range [][2]*Var{{a1.V, a2.V}, {a2.V, a1.V}} {
		n, x := pair[0], pair[1]
		for _, dims := range [][2]*Var{{g[0], g[1]}, {g[1], g[0]}} {
			if n == dims[0] && isBelow(x, dims[1]) && isBelow(y, dims[0]) {
				return true
			}
		}
	}
	return false
}

// affineVar matches v, v + c and c + v for a variable v and a constant c.
func affineVar(e Expr) (*Var, int) {
	switch x := e.(type) {
	case *Ref:
		return x.V, 0
	case *Binary:
		if x.Op != Add {
			return nil, 0
		}
		if r, ok := x.X.(*Ref); ok {
			if c, ok := x.Y.(*Const); ok && c.K == Int {
				return r.V, c.I
			}
		}
		if r, ok := x.Y.(*Ref); ok {
			if c, ok := x.X.(*Const); ok && c.K == Int {
				return r.V, c.I
			}
		}
	}
	return nil, 0
}

// checkSlice emits the check that a sub-array arr(lo:hi) lies in arr (a
// run-time error naming arr and the bounds otherwise: "sub-array
// v(9:5) out of range 0..5"), unless the format promises it: lo and hi
// read the pos array of arr's level at a parent position and the next.
func (l *lowerer) checkSlice(s *sdql.SliceExpr, a *Array, lo, hi Expr) {
	if l.isSegment(a, lo, hi) {
		return
	}
	bad := &Binary{Op: And, X: &Binary{Op: Lt, X: lo, Y: hi},
		Y: &Binary{Op: Or, X: &Binary{Op: Lt, X: lo, Y: intConst(0)}, Y: &Binary{Op: Lt, X: &Len{A: a}, Y: hi}}}
	l.emit(&If{Cond: bad, Then: &Block{List: []Stmt{&Fail{Pos: s.Pos(),
		Msg: "sub-array " + a.Name + "(%d:%d) out of range 0..%d", Args: []Expr{lo, hi, &Len{A: a}}}}}})
}

// isSegment reports whether lo and hi are pos[q] and pos[q+1] of the pos
// array of a's level (its children of parent position q), read directly
// or through variables bound to those loads.
func (l *lowerer) isSegment(a *Array, lo, hi Expr) bool {
	_, q := l.segmentOf(a, lo, hi)
	return q != nil
}

// segmentOf returns the pos array and the parent position q when lo and
// hi are pos[q] and pos[q+1] of a's level (isSegment), else nils.
func (l *lowerer) segmentOf(a *Array, lo, hi Expr) (pos *Array, q Expr) {
	if a.Level == nil || a.Level.Idx != a.Name || a.Level.Pos == "" {
		return nil, nil
	}
	lo, hi = l.deref(lo), l.deref(hi)
	ll, ok1 := lo.(*Load)
	hl, ok2 := hi.(*Load)
	if !ok1 || !ok2 || ll.A != hl.A || ll.A.Name != a.Level.Pos {
		return nil, nil
	}
	q1 := CanonString(&Binary{Op: Add, X: ll.Index, Y: intConst(1)})
	if CanonString(hl.Index) != q1 || CanonString(ll.Index) == "" {
		return nil, nil
	}
	return ll.A, ll.Index
}

// deref follows a variable bound by Let to its expression (lo and hi of a
// slice are hoisted into variables).
func (l *lowerer) deref(e Expr) Expr {
	if r, ok := e.(*Ref); ok {
		if x, ok := l.letOf[r.V]; ok {
			return x
		}
	}
	return e
}
