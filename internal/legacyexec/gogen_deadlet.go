package legacyexec

import "github.com/nablasd/nablasd/sdql"

// dropDeadLets removes the bindings of lets whose names nothing uses,
// bottom-up, so that a binding used only by a dead one goes too. The
// language is pure, so this keeps the program's value; the generated Go
// needs it because Go refuses a local that is declared and never used.
// It returns e itself when nothing is dead.
func dropDeadLets(e sdql.Expr) sdql.Expr {
	changed := false
	out := sdql.Transform(e, func(n sdql.Expr) sdql.Expr {
		let, ok := n.(*sdql.LetExpr)
		if !ok {
			return n
		}
		live := map[string]bool{}
		for _, v := range sdql.FreeVars(let.Body) {
			live[v] = true
		}
		keep := make([]bool, len(let.Names))
		kept := 0
		for j := len(let.Names) - 1; j >= 0; j-- {
			name := let.Names[j].Name
			if name == "_" || !live[name] {
				continue
			}
			keep[j] = true
			kept++
			delete(live, name)
			for _, v := range sdql.FreeVars(let.Values[j]) {
				live[v] = true
			}
		}
		if kept == len(let.Names) {
			return n
		}
		changed = true
		if kept == 0 {
			return let.Body
		}
		c := &sdql.LetExpr{Let: let.Let, Body: let.Body}
		for j, k := range keep {
			if k {
				c.Names = append(c.Names, let.Names[j])
				c.Values = append(c.Values, let.Values[j])
			}
		}
		return c
	})
	if !changed {
		return e
	}
	return out
}

// dropDeadValues drops the values of let-bound dictionaries that nothing
// reads: when every use of a let-bound t = sum(<a, b> in S) { K -> V } is
// a sum over t that ignores its values (sum(<k, _> in t) or a value name
// its body does not use), V becomes the literal 1.0. t keeps its keys,
// which is all those sums see, so the program's value is the same; and
// the lets only V used become dead for dropDeadLets (Go refuses the
// locals they would declare).
func dropDeadValues(e sdql.Expr, info *sdql.Info) sdql.Expr {
	changed := false
	out := sdql.Transform(e, func(n sdql.Expr) sdql.Expr {
		let, ok := n.(*sdql.LetExpr)
		if !ok || len(let.Names) != 1 {
			return n
		}
		name := let.Names[0].Name
		s, ok := let.Values[0].(*sdql.SumExpr)
		if !ok || name == "_" {
			return n
		}
		d, ok := s.Body.(*sdql.DictExpr)
		if !ok || len(d.Entries) != 1 {
			return n
		}
		if _, lit := d.Entries[0].Val.(*sdql.RealLit); lit || !onlyKeysRead(let.Body, name) {
			return n
		}
		if t := info.Types[d.Entries[0].Val]; t != sdql.RealType {
			return n // only a real value is replaced by a real literal
		}
		changed = true
		body := &sdql.DictExpr{Lbrace: d.Lbrace, Entries: []sdql.Entry{{Key: d.Entries[0].Key, Val: &sdql.RealLit{Value: 1}}}}
		v := &sdql.SumExpr{Sum: s.Sum, Key: s.Key, Val: s.Val, Src: s.Src, Body: body}
		return &sdql.LetExpr{Let: let.Let, Names: let.Names, Values: []sdql.Expr{v}, Body: let.Body}
	})
	if !changed {
		return e
	}
	return out
}

// onlyKeysRead reports whether every free occurrence of name in e is the
// source of a sum whose body does not use the sum's value name.
func onlyKeysRead(e sdql.Expr, name string) bool {
	ok, used := true, false
	var walk func(e sdql.Expr, shadowed bool)
	walk = func(e sdql.Expr, shadowed bool) {
		if !ok {
			return
		}
		if id, isID := e.(*sdql.Ident); isID && id.Name == name && !shadowed {
			ok = false // a use other than a sum's source
			return
		}
		if s, isSum := e.(*sdql.SumExpr); isSum && !shadowed {
			if id, isID := s.Src.(*sdql.Ident); isID && id.Name == name {
				used = true
				if s.Val.Name != "_" && mentionsName(s.Body, s.Val.Name) {
					ok = false
					return
				}
				walk(s.Body, s.Key.Name == name || s.Val.Name == name)
				return
			}
		}
		for i, k := range sdql.Children(e) {
			sh := shadowed
			for _, b := range sdql.Binders(e, i) {
				if b == name {
					sh = true
				}
			}
			walk(k, sh)
		}
	}
	walk(e, false)
	return ok && used
}

func mentionsName(e sdql.Expr, name string) bool {
	for _, v := range sdql.FreeVars(e) {
		if v == name {
			return true
		}
	}
	return false
}
