package lower

// GatherScatters transposes a scatter into a gather where the cost model
// prefers it (paper 002, section 5: the derivative of x(i + k) as a sum
// over the solved index, with exact bounds, rather than a scatter). Reverse
// mode turns a lookup x(i + k) into a scatter into x's cotangent:
//
//	for i := 0; i < n; i++ {
//	  c := ybar[i]
//	  for k := 0; k < K_len; k++ {
//	    q := insert(xbar.level0[0], i + k)
//	    xbar.val[q] += K_val[k] * c
//
// whose iterations write the same keys (a parallel loop must give each
// worker a copy of xbar and add them up) and whose stores go where the
// key leads. The gather form visits each key once and sums what the
// scatter would have added there:
//
//	for j := 0; j < n + K_len - 1; j++ {
//	  acc := 0.0
//	  for k := 0; k < K_len; k++ {
//	    i := j - k
//	    if 0 <= i && i < n { c := ybar[i]; acc += K_val[k] * c }
//	  }
//	  q := insert(xbar.level0[0], j)
//	  xbar.val[q] += acc
//
// The key a·α + c of the nest's variables α is solved with the Smith
// normal form of the row a (snf.go): the keys are c + g·t for the image
// coordinate t (g the gcd of a), and the α that reach a key are V·(t, z)
// for the kernel coordinates z, which the inner loops run over the box
// of α's ranges; the test that α lies in its box is then turned into the
// inner loops' bounds by AffineGuards (Fourier–Motzkin), so the gather's
// inner loop has no test where the kernel's coefficients are 1 or -1.
//
// It applies to a nest of range loops over a box (bounds the nest does not
// change) whose innermost body adds one value into a dense vector the
// program builds (level 0, real, not an input) at an affine key, whose
// other statements only compute local values, and which is the vector's
// only writer; the vector must not be read in the nest, and its keys must
// not matter beyond their values (it is not iterated, or its level is
// full): the gather stores a key (a zero) where no α reaches. The
// statements of the outer loops move into the inner one, computed again
// for every α: the cost model (gatherCost) weighs that against the
// scatter's insert per α and its copies when it runs in parallel.
func GatherScatters(p *Program) {
	iterated := map[*Tensor]bool{}
	inserts := map[*Tensor]int{}
	WalkStmts(p.Body, func(s Stmt) {
		switch x := s.(type) {
		case *ForLevel:
			iterated[x.T] = true
		case *Insert:
			inserts[x.T]++
		}
	})
	if p.ResultTensor != nil {
		iterated[p.ResultTensor] = true
	}
	reads := readRanges(p)
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt {
		n := scatterNestOf(f)
		if n == nil || n.t.Input || inserts[n.t] != 1 || iterated[n.t] && !n.t.Levels[0].Full {
			return f
		}
		n.read = reads[n.t]
		if n.t.Levels[0].Storage != Dense && n.read == nil {
			return f // hashed keys (some negative): kept unless clipped to where they are read
		}
		g := n.gather(p)
		if g == nil {
			return f
		}
		return g
	})
}

// scatterNest is a nest of range loops whose innermost body scatters one
// value into a dense vector (GatherScatters).
type scatterNest struct {
	loops []*For
	// pre[d] are the statements of loop d's body before its inner loop
	// (before the insert for the innermost)
	pre [][]Stmt
	ins *Insert
	st  *Store
	t   *Tensor
	// read is the range of keys the vector is read at (readRanges), nil
	// when unknown: the gather computes those keys only
	read *keyRange
}

// keyRange is a range lo..hi-1 of keys.
type keyRange struct{ lo, hi Expr }

// readRanges finds, for each vector the program builds, the range its
// keys are read in, where every read is a locate at the variable of a
// loop over one range of non-negative constant start and an end made of
// parameters (a gradient restricted to its input's positions reads x̄(i)
// for i < x_len): its keys outside are never read.
func readRanges(p *Program) map[*Tensor]*keyRange {
	params := map[*Var]bool{}
	for _, q := range p.Params {
		if q.Var != nil {
			params[q.Var] = true
		}
	}
	paramsOnly := func(e Expr) bool {
		ok := true
		WalkExpr(e, func(x Expr) {
			switch x := x.(type) {
			case *Ref:
				ok = ok && params[x.V]
			case *Const, *Binary, *Unary:
			default:
				ok = false
			}
		})
		return ok
	}
	out := map[*Tensor]*keyRange{}
	bad := map[*Tensor]bool{}
	var loops []*For
	var walk func(s Stmt)
	walk = func(s Stmt) {
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				walk(y)
			}
		case *If:
			walk(x.Then)
			walk(x.Else)
		case *For:
			loops = append(loops, x)
			walk(x.Body)
			loops = loops[:len(loops)-1]
		case *ForLevel:
			walk(x.Body)
		case *Search:
			walk(x.Body)
		case *Locate:
			t := x.T
			var r *keyRange
			for _, f := range loops {
				lo, ok := f.Lo.(*Const)
				if isRefTo(x.Key, f.V) && ok && lo.I >= 0 && paramsOnly(f.Hi) {
					r = &keyRange{f.Lo, f.Hi}
				}
			}
			switch {
			case x.Level != 0 || r == nil:
				bad[t] = true
			case out[t] == nil:
				out[t] = r
			case CanonString(out[t].lo) != CanonString(r.lo) || CanonString(out[t].hi) != CanonString(r.hi):
				bad[t] = true
			}
			walk(x.Body)
		}
	}
	walk(p.Body)
	for t := range bad {
		delete(out, t)
	}
	return out
}

// scatterNestOf matches a scatter nest rooted at f, of at least two
// loops, or returns nil.
func scatterNestOf(f *For) *scatterNest {
	n := &scatterNest{}
	cur := f
	for {
		if cur.Par != nil || cur.Prim != nil {
			return nil
		}
		list := blockList(cur.Body)
		if len(list) == 0 {
			return nil
		}
		if inner, ok := list[len(list)-1].(*For); ok {
			n.loops = append(n.loops, cur)
			n.pre = append(n.pre, list[:len(list)-1])
			cur = inner
			continue
		}
		if len(list) < 2 {
			return nil
		}
		ins, ok1 := list[len(list)-2].(*Insert)
		st, ok2 := list[len(list)-1].(*Store)
		if !ok1 || !ok2 {
			return nil
		}
		n.loops = append(n.loops, cur)
		n.pre = append(n.pre, list[:len(list)-2])
		n.ins, n.st, n.t = ins, st, ins.T
		break
	}
	t := n.t
	if len(n.loops) < 2 || n.st.T != t || !isRefTo(n.st.Pos, n.ins.Pos) || n.st.Op != AddTo || n.ins.Level != 0 ||
		len(t.Levels) != 1 || t.Levels[0].Storage != Dense && t.Levels[0].Storage != Hash || t.Leaf != Real || n.ins.At != nil || !isConst(n.ins.Parent, 0) {
		return nil
	}
	// what the nest defines: its loops' variables and its statements'
	defined := map[*Var]bool{}
	for _, lp := range n.loops {
		defined[lp.V] = true
	}
	for _, ss := range n.pre {
		for _, s := range ss {
			WalkStmts(s, func(x Stmt) { defines(x, func(v *Var) { defined[v] = true }) })
		}
	}
	// a box: bounds the nest does not change
	for _, lp := range n.loops {
		if readsAny(lp.Lo, defined) || readsAny(lp.Hi, defined) {
			return nil
		}
	}
	// local statements: lets, assignments and stores of nothing but
	// their own variables, no loops, no writes to tensors, no reads of t
	for _, ss := range n.pre {
		for _, s := range ss {
			if !localStmt(s, defined, t) {
				return nil
			}
		}
	}
	if readsTensorExpr(n.st.X, t) || readsTensorExpr(n.ins.Key, t) {
		return nil
	}
	return n
}

// localStmt reports whether s only computes values of variables the nest
// defines (defined): lets, assignments to those, and ifs and locates
// around them; t is not read.
func localStmt(s Stmt, defined map[*Var]bool, t *Tensor) bool {
	ok := true
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *Block, *Let:
		case *Assign:
			ok = ok && defined[x.V]
		case *If:
		case *Locate:
			ok = ok && x.T != t
		default:
			ok = false
		}
	})
	WalkStmtExprs(s, func(e Expr) {
		if v, isVal := e.(*ValAt); isVal && v.T == t {
			ok = false
		}
	})
	return ok
}

// readsTensorExpr reports whether e reads a value of t.
func readsTensorExpr(e Expr, t *Tensor) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if v, ok := x.(*ValAt); ok && v.T == t {
			found = true
		}
	})
	return found
}

// The cost model's unit costs per innermost iteration (gatherCost), in
// the spirit of fuse's (an array read, an operation, a call): an insert
// into a dense level reads, tests and writes; a store adds where the key
// leads; a parallel scatter's workers each add into their own copy of the
// vector, merged after; a store whose key moves by more than one as the
// innermost loop runs is strided; a gather whose kernel coefficients are
// not 1 or -1 keeps its tests in the inner loop (its bounds need a
// division).
const (
	costInsertDense = 3
	costStore       = 2
	costParallelSum = 2
	costStrided     = 3
	costAccumulate  = 1
	costGuarded     = 3
)

// exprCost is an expression's operations: reads and arithmetic 1 each, a
// call 4; a select its test and its dearer side.
func exprCost(e Expr) int {
	switch x := e.(type) {
	case nil, *Const, *Ref:
		return 0
	case *Len:
		return 0
	case *Load:
		return 1 + exprCost(x.Index)
	case *ValAt:
		return 1 + exprCost(x.Pos)
	case *Unary:
		return 1 + exprCost(x.X)
	case *Binary:
		return 1 + exprCost(x.X) + exprCost(x.Y)
	case *Call:
		c := 4
		for _, a := range x.Args {
			c += exprCost(a)
		}
		return c
	case *Select:
		return exprCost(x.Cond) + max(exprCost(x.Then), exprCost(x.Else))
	}
	return 1
}

// stmtCost is the operations of local statements (localStmt): a locate
// costs a search's few reads.
func stmtCost(s Stmt) int {
	c := 0
	WalkStmts(s, func(x Stmt) {
		switch x.(type) {
		case *Locate:
			c += 3
		case *If:
			c++
		}
		ownExprs(x, func(e *Expr) { c += exprCost(*e) })
	})
	return c
}

// gather builds the nest's gather form (GatherScatters), or returns nil
// when the key is not affine in the nest's variables, solving it leaves
// no kernel to sum over, or the cost model prefers the scatter.
func (n *scatterNest) gather(p *Program) Stmt {
	d := len(n.loops)
	// the key as Σ a_k·α_k + c, the lets of the nest's statements read
	// through
	lets := map[*Var]Expr{}
	for _, ss := range n.pre {
		for _, s := range ss {
			WalkStmts(s, func(x Stmt) {
				if let, ok := x.(*Let); ok && let.V.Kind == Int {
					lets[let.V] = substLets(let.X, lets)
				}
			})
		}
	}
	key := Canon(substLets(n.ins.Key, lets))
	f := affine(key)
	a := make([]int64, d)
	loopVar := map[string]int{}
	for k, lp := range n.loops {
		loopVar[ExprString(&Ref{V: lp.V})] = k
	}
	var rest []*term
	for s, tm := range f.terms {
		if k, ok := loopVar[s]; ok {
			a[k] = int64(tm.coef)
			continue
		}
		rest = append(rest, tm)
	}
	defined := map[*Var]bool{}
	for _, lp := range n.loops {
		defined[lp.V] = true
	}
	cf := &affineForm{terms: map[string]*term{}, c: f.c}
	for _, tm := range rest {
		if readsAny(tm.x, defined) {
			return nil // a product of loop variables: not affine
		}
		cf.addTerm(tm.x, tm.coef)
	}
	c := cf.expr()
	if readsAny(c, n.defined()) {
		return nil
	}
	s, u, v, r := smith([][]int64{a})
	if r != 1 || d-r < 1 {
		return nil
	}
	w := inverseUnimodular(v)
	if w == nil {
		return nil
	}
	step := u[0][0] * s[0][0] // the key moves by step per image coordinate
	if !n.gatherPays(a, v, step) {
		return nil
	}
	// bounds of a form Σ w_k·α_k over the box, inclusive
	boxBound := func(row []int64, upper bool) Expr {
		var e Expr = intConst(0)
		for k, lp := range n.loops {
			if row[k] == 0 {
				continue
			}
			lo, hi := lp.Lo, &Binary{Op: Sub, X: lp.Hi, Y: intConst(1)}
			var at Expr = lo
			if (row[k] > 0) == upper {
				at = hi
			}
			e = &Binary{Op: Add, X: e, Y: &Binary{Op: Mul, X: intConst(int(row[k])), Y: at}}
		}
		return Canon(e)
	}
	plus1 := func(e Expr) Expr { return Canon(&Binary{Op: Add, X: e, Y: intConst(1)}) }
	// the outer loop: over the keys when the step is 1 or -1, else over
	// the image coordinate t with the key let from it
	var outer *For
	var body []Stmt
	var tExpr, keyExpr Expr
	tlo, thi := boxBound(w[0], false), boxBound(w[0], true)
	switch step {
	case 1:
		j := p.NewVar("j", Int)
		outer = &For{V: j, Lo: Canon(&Binary{Op: Add, X: c, Y: tlo}), Hi: plus1(&Binary{Op: Add, X: c, Y: thi})}
		tExpr, keyExpr = Canon(&Binary{Op: Sub, X: &Ref{V: j}, Y: c}), &Ref{V: j}
	case -1:
		j := p.NewVar("j", Int)
		outer = &For{V: j, Lo: Canon(&Binary{Op: Sub, X: c, Y: thi}), Hi: plus1(&Binary{Op: Sub, X: c, Y: tlo})}
		tExpr, keyExpr = Canon(&Binary{Op: Sub, X: c, Y: &Ref{V: j}}), &Ref{V: j}
	default:
		t := p.NewVar("t", Int)
		outer = &For{V: t, Lo: tlo, Hi: plus1(thi)}
		tExpr = &Ref{V: t}
		kv := p.NewVar("key", Int)
		body = append(body, &Let{V: kv, X: Canon(&Binary{Op: Add, X: c, Y: &Binary{Op: Mul, X: intConst(int(step)), Y: tExpr}})})
		keyExpr = &Ref{V: kv}
	}
	if n.read != nil && (step == 1 || step == -1) {
		// only the keys the vector is read at: a dense level of them
		outer.Lo = maxOf(n.read.lo, outer.Lo)
		outer.Hi = minOf(n.read.hi, outer.Hi)
		lv := n.t.Levels[0]
		lv.Storage, lv.Size = Dense, n.read.hi
	} else if n.t.Levels[0].Storage != Dense {
		return nil
	}
	if _, isRef := tExpr.(*Ref); !isRef {
		tv := p.NewVar("t", Int)
		body = append(body, &Let{V: tv, X: tExpr})
		tExpr = &Ref{V: tv}
	}
	acc := p.NewVar("acc", Real)
	body = append(body, &Let{V: acc, X: realConst(0)})
	// the kernel coordinates' loops, innermost last
	zs := make([]Expr, d)
	zs[0] = tExpr
	var loops []*For
	for j := 1; j < d; j++ {
		z := p.NewVar("z", Int)
		zs[j] = &Ref{V: z}
		loops = append(loops, &For{V: z, Lo: boxBound(w[j], false), Hi: plus1(boxBound(w[j], true))})
	}
	// innermost: α = V·(t, z), in its box, then the nest's statements,
	// copied over new variables (what lowering knew of the loops'
	// variables, their ranges, is not true of α)
	var inner []Stmt
	var box []Expr
	renamed := map[*Var]Expr{}
	for k, lp := range n.loops {
		var e Expr = intConst(0)
		for j := 0; j < d; j++ {
			if v[k][j] != 0 {
				e = &Binary{Op: Add, X: e, Y: &Binary{Op: Mul, X: intConst(int(v[k][j])), Y: zs[j]}}
			}
		}
		av := p.NewVar(lp.V.Name, Int)
		inner = append(inner, &Let{V: av, X: Canon(e)})
		ref := &Ref{V: av}
		renamed[lp.V] = ref
		box = append(box, &Binary{Op: Le, X: lp.Lo, Y: ref}, &Binary{Op: Lt, X: ref, Y: lp.Hi})
	}
	var guarded []Stmt
	for _, ss := range n.pre {
		for _, s := range ss {
			guarded = append(guarded, cloneStmt(p, s, renamed))
		}
	}
	guarded = append(guarded, &Assign{V: acc, Op: AddTo, X: substLets(n.st.X, renamed)})
	inner = append(inner, &If{Cond: andOf(box), Then: &Block{List: guarded}})
	var nest Stmt = &Block{List: inner}
	for k := len(loops) - 1; k >= 0; k-- {
		loops[k].Body = nest
		nest = loops[k]
	}
	body = append(body, nest)
	q := p.NewVar(n.ins.Pos.Name, Int)
	body = append(body,
		&Insert{Pos: q, T: n.t, Level: 0, Parent: intConst(0), Key: keyExpr},
		&Store{T: n.t, Pos: &Ref{V: q}, Op: AddTo, X: &Ref{V: acc}})
	outer.Body = &Block{List: body}
	return outer
}

// defined is what the nest's loops and statements define.
func (n *scatterNest) defined() map[*Var]bool {
	out := map[*Var]bool{}
	for _, lp := range n.loops {
		out[lp.V] = true
	}
	for _, ss := range n.pre {
		for _, s := range ss {
			WalkStmts(s, func(x Stmt) { defines(x, func(v *Var) { out[v] = true }) })
		}
	}
	return out
}

// gatherPays is the cost model: per innermost iteration the scatter
// costs its insert and store, a strided store when the key moves by more
// than one along the innermost loop, and its copies' merge when its loop
// runs in parallel (it can, adding up: MarkParallel); the gather costs the
// outer loops' statements computed again, its accumulation, and its
// tests where a kernel coefficient is not 1 or -1 (AffineGuards splits
// only on unit coefficients).
func (n *scatterNest) gatherPays(a []int64, v [][]int64, step int64) bool {
	d := len(n.loops)
	scatter := costInsertDense + costStore + costParallelSum
	if x := a[d-1]; x != 1 && x != -1 {
		scatter += costStrided
	}
	gather := costAccumulate
	for k := 0; k < d-1; k++ {
		for _, s := range n.pre[k] {
			gather += stmtCost(s)
		}
	}
	for k := 0; k < d; k++ {
		for j := 1; j < d; j++ {
			if x := v[k][j]; x != 0 && x != 1 && x != -1 {
				gather += costGuarded
				k = d
				break
			}
		}
	}
	if step != 1 && step != -1 {
		gather += costGuarded
	}
	return gather < scatter
}
