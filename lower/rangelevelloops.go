package lower

// RangeLevelLoops makes a loop over the keys of a tensor's dense level 0
// whose body runs only for keys below a bound the parameters give a loop
// over that range, locating each key:
//
//	for k, q := range T.level0[0] {     // a dense level the kernel built
//	  if k < H { body }                 // H reads only parameters
//	}
//
// becomes
//
//	for k := 0; k < H; k++ {
//	  if q := locate(T.level0[0], k); found { body }
//	}
//
// Both visit the keys of T below H in ascending order, so the body runs
// as before, provided it does not write T (a key it added past the extent
// the loop over the level started with would be visited). The loop over a range is what MarkParallel can split among
// goroutines (by the rows its body reads, RowSegment), and what the
// back ends run without a test per key past H: a gradient on a sparse
// input's rows computed from a workspace of column sums (SMMM's second
// pass) is such a loop. It runs after DropImpliedGuards, which leaves the
// guard k < H alone once 0 <= k is known, and before MarkParallel.
func RangeLevelLoops(p *Program) {
	params := map[*Var]bool{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			params[pa.Var] = true
		}
	}
	p.Body = rangeLevelStmt(p, p.Body, params)
}

// rangeLevelStmt rewrites the outer level loops of s (RangeLevelLoops). It
// walks blocks and ifs by hand, not with mapBodies, since it must not
// descend into a loop's body.
func rangeLevelStmt(p *Program, s Stmt, params map[*Var]bool) Stmt {
	switch s := s.(type) {
	case *Block:
		for i, x := range s.List {
			s.List[i] = rangeLevelStmt(p, x, params)
		}
	case *If:
		s.Then = rangeLevelStmt(p, s.Then, params)
		if s.Else != nil {
			s.Else = rangeLevelStmt(p, s.Else, params)
		}
	case *ForLevel:
		if f := rangeLevel(p, s, params); f != nil {
			return f
		}
	}
	// loops nested in other loops stay: only a pass's outer loop gains
	return s
}

// rangeLevel rewrites s as RangeLevelLoops says, or returns nil.
func rangeLevel(p *Program, s *ForLevel, params map[*Var]bool) Stmt {
	if s.T.Input || s.Level != 0 || s.T.Levels[0].Storage != Dense || !isConst(s.Parent, 0) || s.Key == nil {
		return nil
	}
	body := s.Body
	if b, ok := body.(*Block); ok && len(b.List) == 1 {
		body = b.List[0]
	}
	guard, ok := body.(*If)
	if !ok || guard.Else != nil {
		return nil
	}
	lt, ok := guard.Cond.(*Binary)
	if !ok || lt.Op != Lt || !isRefTo(lt.X, s.Key) || !onlyParams(lt.Y, params) {
		return nil
	}
	if writesTensor(guard.Then, s.T) {
		return nil // keys it adds past the extent the loop started with would be visited
	}
	pos := s.Pos
	if pos == nil {
		pos = p.NewVar("q", Int)
	}
	return &For{V: s.Key, Lo: intConst(0), Hi: lt.Y,
		Body: &Locate{Pos: pos, T: s.T, Level: 0, Parent: intConst(0), Key: &Ref{V: s.Key}, Body: guard.Then}}
}
