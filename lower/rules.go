package lower

// Primitives are named IR rules: a loop whose body has a rule's shape is
// marked with the rule's name and what it matched, and a back end may run
// the whole loop as one native loop instead of statement by statement
// (the closure runtime does; the Go generator prints the loop as it is,
// which Go compiles as well). The rules match the canonical IR, so the
// spelling of the program does not matter; they are tried in order, and
// the first that matches marks the loop.
//
// Each rule's factors: a product F of factors, each one of A[p] (a real
// array read at the loop's position), X[j] (a real array read at the
// coordinate j := I[p]), that gather guarded as select(0 <= j && j < n,
// X[j], 0), or any expression that reads neither p nor j (the same in
// every iteration).

// Rule is one primitive.
type Rule struct {
	Name  string
	Doc   string
	match func(f *For) *Prim
}

// Rules is the table of primitives, in the order they are tried.
var Rules = []*Rule{
	{Name: "Dot", Doc: "for i in lo..hi { [v := F]; acc += v }, F = A[a + s·i] [* B[b + t·i]] * invariant factors, s and t non-zero constants: a dense dot product (two rows of dense matrices at offsets a and b the loop does not change; s = -1 reads backward, a convolution's transpose; A or B may be a tensor's values read by position)", match: matchDot},
	{Name: "Fill", Doc: "for i in lo..hi { [v := F]; q := insert(T.levelL[Q], i); T.val[q] (+)= v }, level L the last, dense and full, F the same in every iteration: a row of a dense result set to one value (assigned when each position is written once, WriteOnce), or that value added to it: a broadcast", match: matchFill},
	{Name: "MapRow", Doc: "for i in lo..hi { [v := F]; q := insert(T.levelL[Q], k + i); T.val[q] (+)= v }, level L the last, dense and full (or a vector's unmarked level, grown as its inserts would), k not read by the loop (KeyOff, nil for 0), F = A[a + s·i] [* B[b + t·i]] * invariant factors (as Dot's): a scaled row added into row Q of a dense matrix (or into a dense vector, level 0, when an array is read at an offset): at k + i, a strided scatter's window; assigned when each position is written once (WriteOnce)", match: matchMapRow},
	{Name: "SegDot", Doc: "for p in lo..hi { [j := I[p]]; acc += F }: a sum over a segment (a row's dot product with a dense vector)", match: matchSegDot},
	{Name: "Map", Doc: "for i in lo..hi { [v := F]; q := insert(T.level0[0], i); [q := insert(T.level1[q], i)]; T.val[q] (+)= v }: an elementwise map into a dense vector (or a diagonal matrix's values), F's arrays read at i; assigned when each position is written once (WriteOnce)", match: matchMap},
	{Name: "SegScatter", Doc: "for p in lo..hi { [j := I[p]]; [v := F]; q := insert(T.level0[0], j); T.val[q] += v }: adding a segment, scaled, into a dense vector", match: matchSegScatter},
	{Name: "SegAccum", Doc: "for p in lo..hi { j := I[p]; [v := F]; q := insert(T.levelL[Q], j); T.val[q] += v }: adding a segment, scaled, into one parent of a result's last level (a Gustavson workspace row)", match: matchSegAccum},
	{Name: "SegStoreAt", Doc: "for p in lo..hi { [j := I[p]]; [v := F]; q := insert(T.levelL[Q], j) at p; T.val[q] (+)= v }: adding (or, stored once, assigning) a segment, scaled, into a result stored on the same positions", match: matchSegStoreAt},
}

// Prim is what a primitive rule matched in a loop.
type Prim struct {
	Name string
	// The segment: the loop's position variable is the For's V; Coord is
	// j := Idx[p] when the body reads a coordinate (else nil).
	Coord *Var
	Idx   *Array
	// The product F: Vals[p] (nil: no such factor), Gather[j] (nil: none)
	// guarded by Bound (nil: unguarded), and the other Factors.
	Vals    *Array
	Gather  *Array
	Bound   Expr
	Factors []Expr
	// SegDot adds F into Acc; SegScatter into the dense level 0 of Dst;
	// Fill sets (Set) or adds F (its one factor) along the row Parent of
	// Dst's last level;
	// SegAccum into the last level of Dst under the parent position
	// Parent; SegStoreAt into the last level of Dst, a Positions level,
	// at p.
	Acc    *Var
	Dst    *Tensor
	Parent Expr
	// Set: the loop assigns its values (a Fill, Map, MapRow or SegStoreAt whose every
	// position is written once, WriteOnce) rather than adding them.
	Set bool
	// Dot, MapRow: A[Off + Stride·i] (Vals, Off, Stride) times
	// B[Off2 + Stride2·i] (Vals2, Off2, Stride2; nil: no second
	// operand), the offsets the loop does not change, the strides
	// non-zero constants (1: forward; -1: backward, a convolution's
	// transpose, x̄(j) += ȳ(j - k)·K(k)). An operand is an array, or the
	// values of a tensor the loop does not write, read by position
	// (ValAt: ValsOf, ValsOf2 set and Vals, Vals2 nil).
	// MapRow: the row's key is KeyOff + i (nil: i), KeyOff not read by
	// the loop (a strided scatter's window, x̄(2j + k) += ȳ(j)·K(k)).
	KeyOff          Expr
	Off, Off2       Expr
	Vals2           *Array
	Stride, Stride2 int
	ValsOf, ValsOf2 *Tensor
}

// segment splits a loop body into its optional coordinate j := I[p] and
// the rest.
func segment(f *For) (coord *Var, idx *Array, rest []Stmt) {
	list := bodyList(f)
	if len(list) > 0 {
		if let, ok := list[0].(*Let); ok {
			if ld, ok := let.X.(*Load); ok && isRefTo(ld.Index, f.V) && ld.A.Kind == Int {
				return let.V, ld.A, list[1:]
			}
		}
	}
	return nil, nil, list
}

// bodyList is the statements of a loop's body.
func bodyList(f *For) []Stmt {
	if b, ok := f.Body.(*Block); ok {
		return b.List
	}
	return []Stmt{f.Body}
}

// OffsetIndex matches an index v or off + v (v + off), v a variable and
// off an int expression not reading it: it returns v and off (nil for v
// alone), or nil. A loop over v reads such an index's array as a segment
// shifted by off (a dense matrix's row: U[c + k]).
func OffsetIndex(e Expr) (*Var, Expr) {
	if r, ok := e.(*Ref); ok {
		return r.V, nil
	}
	b, ok := e.(*Binary)
	if !ok || b.Op != Add || b.Kind() != Int {
		return nil, nil
	}
	for _, side := range [][2]Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if r, ok := side[1].(*Ref); ok && !reads(side[0], r.V) {
			return r.V, side[0]
		}
	}
	return nil, nil
}

// OffsetOf matches an index v + off for the variable v, off an int
// expression not reading it, in any spelling of the sum (i + k - b is k
// + (i - b) for k): it returns off (the constant 0 for v alone).
func OffsetOf(e Expr, v *Var) (Expr, bool) {
	if w, off := OffsetIndex(e); w == v {
		if off == nil {
			off = intConst(0)
		}
		return off, true
	}
	if e.Kind() != Int || !reads(e, v) {
		return nil, false
	}
	f := affine(e)
	key := ExprString(&Ref{V: v})
	t, ok := f.terms[key]
	if !ok || t.coef != 1 {
		return nil, false
	}
	t.coef = 0
	off := f.expr()
	t.coef = 1
	if reads(off, v) {
		return nil, false
	}
	return off, true
}

// SplitConstant writes the int expression e as rest + c, c its constant
// term in any spelling (c3 + 1, i1 - 1 + c3, 2): rest is nil where e is
// the constant alone. Two offsets with the same rest (CanonString) are a
// constant apart: gogen reads a row at both through one slice.
func SplitConstant(e Expr) (rest Expr, c int) {
	f := affine(e)
	c, f.c = f.c, 0
	if len(f.terms) == 0 {
		return nil, c
	}
	rest = f.expr()
	if k, isConst := rest.(*Const); isConst && k.K == Int && k.I == 0 {
		return nil, c
	}
	return rest, c
}

// StrideOf matches an index off + s·v for the variable v, s a non-zero
// constant and off an int expression not reading v, in any spelling
// (j - k is j + -1·k for k): it returns off (the constant 0 for s·v
// alone) and s.
func StrideOf(e Expr, v *Var) (Expr, int, bool) {
	if off, ok := OffsetOf(e, v); ok {
		return off, 1, true
	}
	if e.Kind() != Int || !reads(e, v) {
		return nil, 0, false
	}
	f := affine(e)
	t, ok := f.terms[ExprString(&Ref{V: v})]
	if !ok || t.coef == 0 {
		return nil, 0, false
	}
	s := t.coef
	t.coef = 0
	off := f.expr()
	t.coef = s
	if reads(off, v) {
		return nil, 0, false
	}
	return off, s, true
}

func isRefTo(e Expr, v *Var) bool {
	r, ok := e.(*Ref)
	return ok && r.V == v
}

// reads reports whether e reads one of the variables.
func reads(e Expr, vs ...*Var) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if r, ok := x.(*Ref); ok {
			for _, v := range vs {
				if r.V == v {
					found = true
				}
			}
		}
	})
	return found
}

// product classifies F (into m) as a product of factors over p and j.
func product(e Expr, p, j *Var, m *Prim) bool {
	if b, ok := e.(*Binary); ok && b.Op == Mul && b.Kind() == Real {
		return product(b.X, p, j, m) && product(b.Y, p, j, m)
	}
	if !reads(e, p, j) {
		m.Factors = append(m.Factors, e)
		return true
	}
	switch x := e.(type) {
	case *Load:
		if x.A.Kind != Real {
			return false
		}
		switch {
		case isRefTo(x.Index, p) && m.Vals == nil:
			m.Vals = x.A
			return true
		case j != nil && isRefTo(x.Index, j) && m.Gather == nil:
			m.Gather = x.A
			return true
		}
	case *Select:
		if n, ld := GuardedLoad(x); ld != nil && j != nil && m.Gather == nil &&
			isRefTo(ld.Index, j) && ld.A.Kind == Real && !reads(n, p, j) {
			m.Gather, m.Bound = ld.A, n
			return true
		}
	}
	return false
}

// GuardedLoad matches select(0 <= j && j < n, X[j], 0) (a dense vector's
// guarded lookup), or select(j < n, X[j], 0) where j >= 0 is known, and
// returns n and the load.
func GuardedLoad(s *Select) (Expr, *Load) {
	ld, ok := s.Then.(*Load)
	if !ok {
		return nil, nil
	}
	if c, ok := s.Else.(*Const); !ok || c.K != Real || c.F != 0 {
		return nil, nil
	}
	r, ok := ld.Index.(*Ref)
	if !ok {
		return nil, nil
	}
	cond, ok := s.Cond.(*Binary)
	if !ok {
		return nil, nil
	}
	// j < n alone: 0 <= j is known where the select is (DropImpliedGuards)
	if cond.Op == Lt && isRefTo(cond.X, r.V) {
		return cond.Y, ld
	}
	if v, n := RangeTest(cond); v == r.V {
		return n, ld
	}
	return nil, nil
}

// RangeTest matches 0 <= v && v < n, in either order, over an int
// variable v, and returns v and n (nil, nil for anything else).
func RangeTest(e Expr) (*Var, Expr) {
	cond, ok := e.(*Binary)
	if !ok || cond.Op != And {
		return nil, nil
	}
	var v *Var
	var n Expr
	low := false
	for _, side := range []Expr{cond.X, cond.Y} {
		b, ok := side.(*Binary)
		if !ok {
			return nil, nil
		}
		var r Expr
		switch {
		case b.Op == Le && isConst(b.X, 0) && b.X.Kind() == Int && !low:
			r, low = b.Y, true
		case b.Op == Lt && n == nil:
			r, n = b.X, b.Y
		default:
			return nil, nil
		}
		ref, ok := r.(*Ref)
		if !ok || ref.V.Kind != Int || v != nil && ref.V != v {
			return nil, nil
		}
		v = ref.V
	}
	if !low || n == nil {
		return nil, nil
	}
	return v, n
}

func matchSegDot(f *For) *Prim {
	j, idx, rest := segment(f)
	rest, fold := valueLets(rest)
	if len(rest) != 1 {
		return nil
	}
	as, ok := rest[0].(*Assign)
	if !ok || as.Op != AddTo || as.V.Kind != Real || as.V == f.V || as.V == j {
		return nil
	}
	x, _ := fold(as.X, &Insert{Parent: intConst(0), Key: intConst(0)})
	m := &Prim{Coord: j, Idx: idx, Acc: as.V}
	if !product(x, f.V, j, m) {
		return nil
	}
	return m
}

func matchDot(f *For) *Prim {
	list, fold := valueLets(bodyList(f))
	if len(list) != 1 {
		return nil
	}
	as, ok := list[0].(*Assign)
	if !ok || as.Op != AddTo || as.V.Kind != Real || as.V == f.V {
		return nil
	}
	x, _ := fold(as.X, &Insert{Parent: intConst(0), Key: intConst(0)})
	m := &Prim{Acc: as.V}
	if !offsetProduct(x, f.V, m) {
		return nil
	}
	// a plain segment's sum is SegDot's
	if m.Vals2 == nil && m.ValsOf2 == nil && m.Vals != nil && isConst(m.Off, 0) && m.Stride == 1 {
		return nil
	}
	return m
}

// offsetProduct classifies x (into m) as a product of one or two real
// arrays or tensors' values read at a constant stride from an offset the
// loop over i does not change (Vals or ValsOf at Off + Stride·i, Vals2 or
// ValsOf2 at Off2 + Stride2·i) and factors that do not read i.
func offsetProduct(x Expr, i *Var, m *Prim) bool {
	loads := 0
	var walk func(e Expr) bool
	walk = func(e Expr) bool {
		if b, ok := e.(*Binary); ok && b.Op == Mul && b.Kind() == Real {
			return walk(b.X) && walk(b.Y)
		}
		if !reads(e, i) {
			m.Factors = append(m.Factors, e)
			return true
		}
		var a *Array
		var t *Tensor
		var index Expr
		switch ld := e.(type) {
		case *Load:
			a, index = ld.A, ld.Index
			if a.Kind != Real {
				return false
			}
		case *ValAt:
			t, index = ld.T, ld.Pos
			if t.Leaf != Real {
				return false
			}
		default:
			return false
		}
		off, stride, ok := StrideOf(index, i)
		if !ok || ReadsMemory(off) {
			return false
		}
		loads++
		switch loads {
		case 1:
			m.Vals, m.ValsOf, m.Off, m.Stride = a, t, off, stride
		case 2:
			m.Vals2, m.ValsOf2, m.Off2, m.Stride2 = a, t, off, stride
		default:
			return false
		}
		return true
	}
	return walk(x) && loads > 0
}

// matchMapRow: for i in lo..hi { [v := F]; q := insert(T.levelL[Q],
// k + i); T.val[q] (+)= v }, level L the last, dense and full (or a
// vector's unmarked level 0), Q and k not read by the loop: F
// (offsetProduct) added into row Q of a dense matrix (a gradient's row:
// g(i) += s W(j)) at the keys k + i (a strided scatter's window: x̄(2j +
// i) += ȳ(j)·K(i)), or assigned there where WriteOnce made the store one
// (a gradient's row x̄(i) = y(n - 1 - i) of a partitioned loop).
func matchMapRow(f *For) *Prim {
	list, fold := valueLets(bodyList(f))
	if len(list) != 2 {
		return nil
	}
	ins, ok1 := list[0].(*Insert)
	st, ok2 := list[1].(*Store)
	if !ok1 || !ok2 || ins.Level != len(ins.T.Levels)-1 || reads(ins.Parent, f.V) ||
		ins.At != nil || st.T != ins.T || !isRefTo(st.Pos, ins.Pos) || st.Op != AddTo && st.Op != Set || ins.T.Leaf != Real {
		return nil
	}
	keyOff, ok := OffsetOf(ins.Key, f.V)
	if !ok || ReadsMemory(keyOff) {
		return nil
	}
	if isConst(keyOff, 0) {
		keyOff = nil
	}
	// a full dense level, or a vector's unmarked one (which grows past
	// its end as an insert there would)
	if l := ins.T.Levels[ins.Level]; l.Storage != Dense || !l.Full && !(l.Unmarked && ins.Level == 0 && len(ins.T.Levels) == 1) {
		return nil
	}
	x, ok := fold(st.X, ins)
	if !ok {
		return nil
	}
	m := &Prim{Dst: ins.T, Parent: ins.Parent, KeyOff: keyOff, Set: st.Op == Set}
	if readsValues(x, ins.T) || !offsetProduct(x, f.V, m) {
		return nil
	}
	// a vector's (level 0) elementwise map reading arrays at i is Map's;
	// read at an offset (a correlation's kernel gradient, c·x(i + k) into
	// dK(k)), a stride or from a tensor it is this row's
	at := func(a *Array, off Expr, s int) bool { return a != nil && isConst(off, 0) && s == 1 }
	if ins.Level == 0 && m.KeyOff == nil && at(m.Vals, m.Off, m.Stride) && (m.Vals2 == nil && m.ValsOf2 == nil || at(m.Vals2, m.Off2, m.Stride2)) {
		return nil
	}
	return m
}

// matchFill: for i in lo..hi { [v := F]; q := insert(T.levelL[Q], i);
// T.val[q] (+)= v }, level L the last, dense and full, Q not read by the
// loop, F reading neither i nor T's values (the same in every iteration):
// row Q of a dense result filled with F (a broadcast: SMMM's gradient
// with respect to a dense B is A's column sum k along row k), or F added
// to each of its entries. A vector's store at the loop's key whose insert
// only named the position (DropRowInserts) is the same row.
func matchFill(f *For) *Prim {
	list, fold := valueLets(bodyList(f))
	if len(list) == 1 {
		st, ok := list[0].(*Store)
		if !ok || !isRefTo(st.Pos, f.V) || len(st.T.Levels) != 1 {
			return nil
		}
		list = []Stmt{&Insert{Pos: f.V, T: st.T, Level: 0, Parent: intConst(0), Key: &Ref{V: f.V}}, st}
	}
	if len(list) != 2 {
		return nil
	}
	ins, ok1 := list[0].(*Insert)
	st, ok2 := list[1].(*Store)
	if !ok1 || !ok2 || ins.Level != len(ins.T.Levels)-1 || !isRefTo(ins.Key, f.V) || reads(ins.Parent, f.V) ||
		ins.At != nil || st.T != ins.T || !isRefTo(st.Pos, ins.Pos) || ins.T.Leaf != Real {
		return nil
	}
	if l := ins.T.Levels[ins.Level]; l.Storage != Dense || !l.Full {
		return nil
	}
	x, ok := fold(st.X, ins)
	if !ok || reads(x, f.V, ins.Pos) || readsValues(x, ins.T) {
		return nil
	}
	return &Prim{Dst: ins.T, Parent: ins.Parent, Factors: []Expr{x}, Set: st.Op == Set}
}

// readsValues reports whether e reads a value of t.
func readsValues(e Expr, t *Tensor) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if v, ok := x.(*ValAt); ok && v.T == t {
			found = true
		}
	})
	return found
}

func matchSegScatter(f *For) *Prim {
	j, idx, rest := segment(f)
	if j == nil {
		return nil
	}
	rest, fold := valueLets(rest)
	if len(rest) != 2 {
		return nil
	}
	ins, ok1 := rest[0].(*Insert)
	st, ok2 := rest[1].(*Store)
	if !ok1 || !ok2 || ins.Level != 0 || !isRefTo(ins.Key, j) || !isConst(ins.Parent, 0) ||
		st.T != ins.T || !isRefTo(st.Pos, ins.Pos) || st.Op != AddTo || len(ins.T.Levels) != 1 ||
		ins.T.Levels[0].Storage != Dense || ins.T.Leaf != Real {
		return nil
	}
	x, ok := fold(st.X, ins)
	if !ok {
		return nil
	}
	m := &Prim{Coord: j, Idx: idx, Dst: ins.T}
	if !product(x, f.V, j, m) || m.Gather != nil {
		return nil
	}
	return m
}

func matchSegStoreAt(f *For) *Prim {
	j, idx, rest := segment(f)
	rest, fold := valueLets(rest)
	if len(rest) != 2 {
		return nil
	}
	ins, ok1 := rest[0].(*Insert)
	st, ok2 := rest[1].(*Store)
	if !ok1 || !ok2 || ins.At == nil || !isRefTo(ins.At, f.V) || ins.Level != len(ins.T.Levels)-1 ||
		reads(ins.Parent, f.V) || j != nil && reads(ins.Parent, j) ||
		st.T != ins.T || !isRefTo(st.Pos, ins.Pos) || ins.T.Leaf != Real {
		return nil
	}
	x, ok := fold(st.X, ins)
	if !ok {
		return nil
	}
	m := &Prim{Coord: j, Idx: idx, Dst: ins.T, Set: st.Op == Set}
	if !product(x, f.V, j, m) {
		return nil
	}
	return m
}

func matchSegAccum(f *For) *Prim {
	j, idx, rest := segment(f)
	if j == nil {
		return nil
	}
	rest, fold := valueLets(rest)
	if len(rest) != 2 {
		return nil
	}
	ins, ok1 := rest[0].(*Insert)
	st, ok2 := rest[1].(*Store)
	if !ok1 || !ok2 || ins.At != nil || ins.Level != len(ins.T.Levels)-1 || !isRefTo(ins.Key, j) ||
		reads(ins.Parent, f.V, j) || st.T != ins.T || !isRefTo(st.Pos, ins.Pos) || st.Op != AddTo || ins.T.Leaf != Real {
		return nil
	}
	if ins.Level == 0 && ins.T.Levels[0].Storage == Dense {
		return nil // SegScatter's
	}
	x, ok := fold(st.X, ins)
	if !ok {
		return nil
	}
	m := &Prim{Coord: j, Idx: idx, Dst: ins.T, Parent: ins.Parent}
	if !product(x, f.V, j, m) {
		return nil
	}
	return m
}

func matchMap(f *For) *Prim {
	list, fold := valueLets(bodyList(f))
	if len(list) == 3 {
		// a diagonal level under the row: its position is the row's
		diag, ok := list[1].(*Insert)
		if !ok || diag.Level != 1 || len(diag.T.Levels) != 2 || diag.T.Levels[1].Storage != Diagonal {
			return nil
		}
		ins, ok := list[0].(*Insert)
		st, ok2 := list[2].(*Store)
		if !ok || !ok2 || ins.T != diag.T || !isRefTo(diag.Parent, ins.Pos) || !isRefTo(diag.Key, f.V) || !isRefTo(st.Pos, diag.Pos) {
			return nil
		}
		list = []Stmt{ins, &Store{T: st.T, Pos: &Ref{V: ins.Pos}, Op: st.Op, X: st.X}}
	}
	if len(list) == 1 {
		// a vector's store at the loop's key whose insert only named the
		// position (DropRowInserts)
		st, ok := list[0].(*Store)
		if !ok || !isRefTo(st.Pos, f.V) || len(st.T.Levels) != 1 {
			return nil
		}
		list = []Stmt{&Insert{Pos: f.V, T: st.T, Level: 0, Parent: intConst(0), Key: &Ref{V: f.V}}, st}
	}
	if len(list) != 2 {
		return nil
	}
	ins, ok1 := list[0].(*Insert)
	st, ok2 := list[1].(*Store)
	if !ok1 || !ok2 || ins.Level != 0 || !isRefTo(ins.Key, f.V) || !isConst(ins.Parent, 0) || ins.At != nil ||
		st.T != ins.T || !isRefTo(st.Pos, ins.Pos) || ins.T.Levels[0].Storage != Dense || ins.T.Leaf != Real {
		return nil
	}
	if len(ins.T.Levels) != 1 && (len(ins.T.Levels) != 2 || ins.T.Levels[1].Storage != Diagonal) {
		return nil
	}
	x, ok := fold(st.X, ins)
	if !ok {
		return nil
	}
	// arrays read at i: the first as Vals, a second (or a guarded one)
	// as Gather at i
	m := &Prim{Dst: ins.T, Set: st.Op == Set}
	if !product(x, f.V, f.V, m) {
		return nil
	}
	return m
}

// valueLets splits the lets leading a loop body's statements (the
// values a store adds, bound step by step) from the rest, and returns a
// function that folds them into an expression: fold(x, ins) is x with the
// lets' variables replaced by their expressions, not ok when the insert
// reads one of them (a let then is more than the stored value).
func valueLets(list []Stmt) ([]Stmt, func(Expr, *Insert) (Expr, bool)) {
	lets := map[*Var]Expr{}
	var order []*Var
	for len(list) > 0 {
		let, ok := list[0].(*Let)
		if !ok {
			break
		}
		lets[let.V] = substLets(let.X, lets)
		order = append(order, let.V)
		list = list[1:]
	}
	return list, func(x Expr, ins *Insert) (Expr, bool) {
		if len(order) > 0 && (reads(ins.Parent, order...) || reads(ins.Key, order...) || ins.At != nil && reads(ins.At, order...)) {
			return nil, false
		}
		return substLets(x, lets), true
	}
}

// substLets replaces the variables of lets in e by their expressions.
func substLets(e Expr, lets map[*Var]Expr) Expr {
	if len(lets) == 0 {
		return e
	}
	return replaceExpr(e, func(x Expr) Expr {
		if r, ok := x.(*Ref); ok {
			return lets[r.V]
		}
		return nil
	})
}

// RowSegment finds a row a loop reads: an inner loop over P[v]..P[v+1]
// with v the loop's variable (its bounds possibly let-bound in the body);
// P, a pos array, measures the loop's work by its entries. Nil when the
// loop reads no such row. The back ends split a parallel loop's
// iterations by it, so that rows of unequal length balance.
func RowSegment(f *For) *Array {
	lets := map[*Var]Expr{}
	WalkStmts(f.Body, func(x Stmt) {
		if l, ok := x.(*Let); ok {
			lets[l.V] = l.X
		}
	})
	load := func(e Expr) *Load {
		if r, ok := e.(*Ref); ok && lets[r.V] != nil {
			e = lets[r.V]
		}
		ld, _ := e.(*Load)
		return ld
	}
	var found *Array
	WalkStmts(f.Body, func(x Stmt) {
		in, ok := x.(*For)
		if !ok || found != nil {
			return
		}
		lo, hi := load(in.Lo), load(in.Hi)
		if lo != nil && hi != nil && lo.A == hi.A && isRefTo(lo.Index, f.V) && IsNext(hi.Index, f.V) {
			found = lo.A
		}
	})
	return found
}

// IsNext reports whether e is v + 1 (or 1 + v): the end of row v's
// segment in a pos array.
func IsNext(e Expr, v *Var) bool {
	d, ok := Offset(e, v)
	return ok && d == 1
}

// Offset reports whether e is v plus a constant d, spelled v, v + d,
// d + v or v - d, and d. A nil v matches nothing.
func Offset(e Expr, v *Var) (d int, ok bool) {
	if v == nil {
		return 0, false
	}
	if isRefTo(e, v) {
		return 0, true
	}
	b, isBin := e.(*Binary)
	if !isBin {
		return 0, false
	}
	constInt := func(x Expr) (int, bool) {
		if c, ok := x.(*Const); ok && c.K == Int {
			return c.I, true
		}
		return 0, false
	}
	switch {
	case b.Op == Add && isRefTo(b.X, v):
		return constInt(b.Y)
	case b.Op == Add && isRefTo(b.Y, v):
		return constInt(b.X)
	case b.Op == Sub && isRefTo(b.X, v):
		c, ok := constInt(b.Y)
		return -c, ok
	}
	return 0, false
}
