package lower

import "math"

// A temporary kept in the result. A gradient with respect to a dense
// vector x accumulates x̄ in a temporary vector T and ends with a loop
// from 0 copying T into the result R (a copy loop: out(i) = T(i), or
// T(i) defaulting to zero past T's keys), where a hand-written gradient
// adds into its result directly. When nothing else reads T, and nothing
// touches R from R's Init to that copy, T can be the start of R's own
// memory: a back end then clears R's first len(T) entries where it would
// clear T, accumulates there, and the copy has nothing left to move but
// the zeros of the keys T does not hold. Whether T fits in R is known
// only at run time (T's extent and R's are the program's sizes): T's
// Init tests it, and where T does not fit T has its own memory and the
// copy loop runs as it would have (gogen/inresult.go, exec/inresult.go).
//
// The conditions, on the program's structure (TempsInResult):
//   - R is the result, a vector of reals in a full dense level; T an
//     intermediate vector of reals in a dense level that never grows (its
//     extent is sized at its Init: Level.Size) and keeps no presence
//     (Unmarked), so every key below its extent holds a value;
//   - T and R each have one Init, both statements of the program's top
//     level, R's first; the copy loop is a later statement of the top
//     level, and the only statement that reads T; no statement between
//     R's Init and the copy touches R (T's Init clears R's first keys),
//     none after the copy touches T;
//   - R's Init is not a clear deferred to a parallel loop's workers.
//
// The copy loop reads T(i) at position i and stores it at R's position
// i, in ascending i: run over T kept in R, each entry is copied onto
// itself, so the loop stays right (if slow) wherever the quick path's
// conditions fail at run time.

// TempInResult is a temporary T a back end may keep at the start of the
// result R.
type TempInResult struct {
	T, R *Tensor
	Init *Init // T's
	Copy *For  // the copy loop
	// Zero: the copy reads zero past T's extent (a locate); otherwise it
	// reads T's values directly (the loop fails past T's extent)
	Zero bool
}

// TempsInResult finds the temporaries that may be kept in the result
// (above); deferred are the back end's clears moved into parallel loops
// (FindDeferredClears).
func TempsInResult(p *Program, deferred DeferredClears) []TempInResult {
	r := p.ResultTensor
	top, ok := p.Body.(*Block)
	if r == nil || !ok || r.Order() != 1 || r.Leaf != Real {
		return nil
	}
	if l := r.Levels[0]; l.Storage != Dense || !l.Full {
		return nil
	}
	var out []TempInResult
	for i, s := range top.List {
		f, ok := s.(*For)
		if !ok {
			continue
		}
		t, _, zero := CopyFrom(f, r)
		if t == nil || t.Input || t.Order() != 1 || t.Leaf != Real {
			continue
		}
		if l := t.Levels[0]; l.Storage != Dense || !l.Unmarked || l.Size == nil {
			continue
		}
		if in := tempInitAt(p, top.List, i, t, r, deferred); in != nil {
			out = append(out, TempInResult{T: t, R: r, Init: in, Copy: f, Zero: zero})
		}
	}
	return out
}

// tempInitAt checks the conditions on the statements of the top level
// around the copy loop list[at] from t into r, and returns t's Init when
// they hold.
func tempInitAt(p *Program, list []Stmt, at int, t, r *Tensor, deferred DeferredClears) *Init {
	var tInit, rInit *Init
	inits := 0
	WalkStmts(p.Body, func(s Stmt) {
		if in, ok := s.(*Init); ok && (in.T == t || in.T == r) {
			inits++
		}
	})
	ti, ri := -1, -1
	for i, s := range list {
		if in, ok := s.(*Init); ok {
			switch in.T {
			case t:
				tInit, ti = in, i
			case r:
				rInit, ri = in, i
			}
		}
	}
	if tInit == nil || rInit == nil || inits != 2 || !(ri < ti && ti < at) || deferred.Init[rInit] {
		return nil
	}
	for i, s := range list {
		if i == ti || i == ri || i == at {
			continue
		}
		read, written := TensorUses(s)
		usesT, usesR := read[t] || written[t], read[r] || written[r]
		switch {
		case usesT && (i < ti || i > at):
			return nil // T is used outside its Init..copy
		case usesR && i > ri && i < at:
			return nil // R is touched between its Init and the copy (T's Init clears R's first keys)
		case read[t] && i != at:
			return nil // another statement reads T
		}
	}
	return tInit
}

// TensorUses lists the tensors a statement reads (their values, or
// locates or iterates their keys) and those it writes (inserts, stores,
// initializes).
func TensorUses(s Stmt) (read, written map[*Tensor]bool) {
	read, written = map[*Tensor]bool{}, map[*Tensor]bool{}
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *Insert:
			written[x.T] = true
		case *Store:
			written[x.T] = true
		case *Init:
			written[x.T] = true
		case *Locate:
			read[x.T] = true
		case *ForLevel:
			read[x.T] = true
		}
	})
	WalkStmtExprs(s, func(e Expr) {
		WalkExpr(e, func(x Expr) {
			if v, ok := x.(*ValAt); ok {
				read[v.T] = true
			}
		})
	})
	return read, written
}

// CopyFrom returns the vector T a loop from 0 copies into a row of r,
// the insert into r, and whether the copy reads zero past T's keys (T
// nil when the loop is not such a copy):
//
//	x := 0.0; if q := locate(T.level0[0], i); found { x = T.val[q] }   // zero
//	x := T.val[i]                                                      // or directly
//	q2 := insert(r.levelL[p], i); r.val[q2] = x
//
// (T a dense vector: its position at key i is i).
func CopyFrom(f *For, r *Tensor) (*Tensor, *Insert, bool) {
	if c, ok := f.Lo.(*Const); !ok || c.K != Int || c.I != 0 {
		return nil, nil, false
	}
	b, ok := f.Body.(*Block)
	if !ok || len(b.List) < 2 || len(b.List) > 4 {
		return nil, nil, false
	}
	refTo := func(e Expr, v *Var) bool {
		x, ok := e.(*Ref)
		return ok && x.V == v
	}
	ins, ok1 := b.List[len(b.List)-2].(*Insert)
	st, ok2 := b.List[len(b.List)-1].(*Store)
	if !ok1 || !ok2 || ins.T != r || !refTo(ins.Key, f.V) || st.T != r || st.Op != Set || !refTo(st.Pos, ins.Pos) {
		return nil, nil, false
	}
	// the value stored: T.val[i], or a let of it
	direct := func(e Expr) *Tensor {
		if va, ok := e.(*ValAt); ok && refTo(va.Pos, f.V) && va.T != r && DenseVector(va.T) {
			return va.T
		}
		return nil
	}
	var t *Tensor
	zero := false
	switch len(b.List) {
	case 2:
		t = direct(st.X)
	case 3:
		if let, ok := b.List[0].(*Let); ok && refTo(st.X, let.V) {
			t = direct(let.X)
		}
	case 4:
		let, ok1 := b.List[0].(*Let)
		loc, ok2 := b.List[1].(*Locate)
		if !ok1 || !ok2 || !refTo(st.X, let.V) || !defaultOf(let, loc) {
			return nil, nil, false
		}
		pc, isConst := loc.Parent.(*Const)
		if loc.T != r && DenseVector(loc.T) && loc.Level == 0 && isConst && pc.K == Int && pc.I == 0 && refTo(loc.Key, f.V) {
			t, zero = loc.T, true
		}
	}
	if t == nil {
		return nil, nil, false
	}
	return t, ins, zero
}

// defaultOf reports whether let and loc are a lookup defaulting to zero,
// x := 0.0; if q := locate(...); found { x = T.val[q] }, of loc's T.
func defaultOf(let *Let, loc *Locate) bool {
	// a lookup's default is its type's zero (+0: a copy then a clear)
	if c, ok := let.X.(*Const); !ok || let.V.Kind != Real || c.F != 0 || math.Signbit(c.F) {
		return false
	}
	body := loc.Body
	if bb, ok := body.(*Block); ok && len(bb.List) == 1 {
		body = bb.List[0]
	}
	as, ok := body.(*Assign)
	if !ok || as.V != let.V || as.Op != Set {
		return false
	}
	va, ok := as.X.(*ValAt)
	return ok && va.T == loc.T && va.Pos != nil && isRef(va.Pos, loc.Pos)
}

func isRef(e Expr, v *Var) bool {
	r, ok := e.(*Ref)
	return ok && r.V == v
}

// DenseVector reports whether t is a vector of reals in a dense level
// that keeps no presence: its position at key k is k, and every key
// below its extent is present.
func DenseVector(t *Tensor) bool {
	l := t.Levels[0]
	return t.Order() == 1 && t.Leaf == Real && l.Storage == Dense && (l.Full || l.Unmarked)
}
