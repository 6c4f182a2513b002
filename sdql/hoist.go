package sdql

import "sort"

// Hoist moves loop-invariant terms out of loops (invariant code motion,
// GHC's let-floating): a term in the body of a sum whose free variables
// the sum does not bind, nor anything between the sum and the term, is
// let-bound just outside the outermost such sum, and the term is read
// through the let. A dictionary built inside a loop and only looked up
// there is such a term too:
//
//	sum(<i, r> in A) sum(<j, a> in r) a * (sum(<k, s> in A) { k -> f(s) })(j)
//
// becomes
//
//	let inv1 = sum(<k, s> in A) { k -> f(s) } in
//	sum(<i, r> in A) sum(<j, a> in r) a * inv1(j)
//
// The terms it moves are those that do work — that contain a loop, a
// dictionary or a call, or read a let whose value does (x - s, x the name
// of a sum, as the sum written in place) — lookups, which may search a
// sparse dictionary, and the value of a let, however cheap (a let in a
// loop's body keeps the optimizer's rules from fusing the loop). Other
// arithmetic is left to lowering, which hoists its loops' invariant
// arithmetic itself. It never moves work out of a conditional that guards
// it (an if's branch, the right operand of && and ||): there the term may
// never have been computed; a term that is total and cheap (arithmetic
// and lookups, which read zero for a key they do not find) leaves it too.
// It does not move a variable or a literal, a truth value, a view of an
// array (a sub-array, a range), nor a term with unique(...) (which speaks
// of the sum around it), and it never duplicates work: each moved term is
// computed once where it lands. A let whose value it moves becomes a name
// for the new let, and is dropped. A let whose name is not used is dropped
// first: its value, never computed, does not keep a term in its loop; and
// the lets in a let's value end before it (flattenLets). It takes time
// linear in the program's size (times the number of variables a term
// refers to) and a pass per level of nesting that a moved term opens up
// for another.
func Hoist(e Expr) Expr {
	e = dropDeadLets(e)
	for range 8 {
		t := analyze(e)
		h := &hoister{t: t, fresh: newFreshNames(t.names)}
		out := h.rebuild(0, nil, 0)
		if !h.moved {
			break
		}
		e = inlineAliases(out, h.fresh.made)
	}
	return flattenLets(e)
}

// flattenLets moves the lets of a let's value before it:
//
//	let x = (let y = a in b) in c   becomes   let y = a in let x = b in c
//
// (y renamed where c reads another y), so that the lets a pass binds
// around a let's value, or a program writes there, do not nest: a let is
// a let wherever it was written.
func flattenLets(e Expr) Expr {
	idx := NewFreeIndex()
	var names *Names
	var flat func(l *LetExpr) Expr
	flat = func(l *LetExpr) Expr {
		in, ok := l.Values[0].(*LetExpr)
		if !ok || len(in.Names) != 1 || in.Names[0].Name == "_" {
			return l
		}
		y, b := in.Names[0], in.Body
		if idx.Use(l.Body, y.Name).Count > 0 || y.Name == l.Names[0].Name {
			if names == nil {
				names = NewNames(e)
			}
			ny := Binder{NamePos: y.NamePos, Name: names.Fresh(y.Name)}
			b = idx.Subst(b, map[string]Expr{y.Name: &Ident{NamePos: y.NamePos, Name: ny.Name}})
			y = ny
		}
		outer := flat(&LetExpr{Let: l.Let, Names: l.Names, Values: []Expr{b}, Body: l.Body})
		return &LetExpr{Let: in.Let, Names: []Binder{y}, Values: in.Values, Body: outer}
	}
	return Transform(e, func(x Expr) Expr {
		if l, ok := x.(*LetExpr); ok && len(l.Names) == 1 {
			return flat(l)
		}
		return x
	})
}

// dropDeadLets drops the single lets whose name is not used.
func dropDeadLets(e Expr) Expr {
	idx := NewFreeIndex()
	return Transform(e, func(x Expr) Expr {
		if l, ok := x.(*LetExpr); ok && len(l.Names) == 1 && idx.Use(l.Body, l.Names[0].Name).Count == 0 {
			return l.Body
		}
		return x
	})
}

// hoister moves the invariant terms of one analysis.
type hoister struct {
	t     *terms
	fresh *freshNames
	moved bool
}

// loop is a sum a term is in the body of, with the lets to put just
// outside it.
type loop struct {
	key  int32 // its key's binder: a term whose binders are all below it is invariant
	lets []Binder
	vals []Expr
}

// rebuild returns node i rewritten, inside loops (outermost first) of
// which the first barrier are outside a condition around i.
func (h *hoister) rebuild(i int32, loops []*loop, barrier int) Expr {
	t := h.t
	if len(loops) > 0 && t.bindable(i) && (t.work[i] || t.looks[i] || h.letValue(i)) {
		// the outermost loop that binds none of i's free variables, and
		// is inside the conditions around i; out of those too where i is
		// total and cheap (no loop, dictionary or call: arithmetic and
		// lookups, which give zero for a key they do not find)
		k := sort.Search(len(loops), func(k int) bool { return loops[k].key > t.maxFree[i] })
		if t.work[i] {
			k = max(k, barrier)
		}
		if k < len(loops) {
			v := h.rebuildKids(i, loops[:k], min(barrier, k))
			name := h.fresh.fresh("inv")
			loops[k].lets = append(loops[k].lets, Binder{Name: name})
			loops[k].vals = append(loops[k].vals, v)
			h.moved = true
			return &Ident{NamePos: t.nodes[i].Pos(), Name: name}
		}
	}
	return h.rebuildKids(i, loops, barrier)
}

// letValue reports whether node i is the value of a let: a let inside a
// loop whose value does not depend on it leaves it, however cheap (a let
// in a loop's body keeps the optimizer's rules from fusing the loop).
func (h *hoister) letValue(i int32) bool {
	p := h.t.parent[i]
	if p < 0 {
		return false
	}
	if _, ok := h.t.nodes[p].(*LetExpr); !ok {
		return false
	}
	kids := h.t.kids(p)
	return i != kids[len(kids)-1] // not the body
}

// rebuildKids returns node i with its children rewritten.
func (h *hoister) rebuildKids(i int32, loops []*loop, barrier int) Expr {
	t := h.t
	e := t.nodes[i]
	kids := t.kids(i)
	if len(kids) == 0 {
		return e
	}
	if s, ok := e.(*SumExpr); ok {
		src := h.rebuild(kids[0], loops, barrier)
		l := &loop{key: t.binder[i]}
		inner := append(loops[:len(loops):len(loops)], l)
		body := h.rebuild(kids[1], inner, barrier)
		var out Expr = s
		if src != s.Src || body != s.Body {
			c := *s
			c.Src, c.Body = src, body
			out = &c
		}
		for j := len(l.lets) - 1; j >= 0; j-- {
			out = h.letFlat(s.Sum, l.lets[j], l.vals[j], out)
		}
		return out
	}
	nk := make([]Expr, len(kids))
	changed := false
	for n, c := range kids {
		b := barrier
		if t.edge[c] == edgeCond {
			b = len(loops)
		}
		nk[n] = h.rebuild(c, loops, b)
		changed = changed || nk[n] != t.nodes[c]
	}
	if !changed {
		return e
	}
	return WithChildren(e, nk)
}

// letFlat returns let b = v in body, with the lets of the terms v brought
// with it (let inv1 = ... in ...) moved before it: their names are fresh,
// so nothing in body can be captured.
func (h *hoister) letFlat(pos Pos, b Binder, v, body Expr) Expr {
	if in, ok := v.(*LetExpr); ok && len(in.Names) == 1 && h.fresh.made[in.Names[0].Name] {
		return &LetExpr{Let: in.Let, Names: in.Names, Values: in.Values, Body: h.letFlat(pos, b, in.Body, body)}
	}
	return &LetExpr{Let: pos, Names: []Binder{b}, Values: []Expr{v}, Body: body}
}

// inlineAliases substitutes the lets whose value is a name a pass made
// (ours), aliases the pass left behind: let h = inv1 in ... h(j) ...
// reads inv1(j). A name a pass made is bound once, outside its uses, so
// the substitution captures nothing.
func inlineAliases(e Expr, ours map[string]bool) Expr {
	var walk func(e Expr, ren map[string]string) Expr
	walk = func(e Expr, ren map[string]string) Expr {
		switch x := e.(type) {
		case *Ident:
			if n, ok := ren[x.Name]; ok {
				return &Ident{NamePos: x.NamePos, Name: n}
			}
			return x
		case *LetExpr:
			if len(x.Names) == 1 {
				v := walk(x.Values[0], ren)
				if id, ok := v.(*Ident); ok && ours[id.Name] && x.Names[0].Name != "_" {
					return walk(x.Body, withName(ren, x.Names[0].Name, id.Name))
				}
				b := walk(x.Body, withoutName(ren, x.Names[0].Name))
				if v == x.Values[0] && b == x.Body {
					return x
				}
				return &LetExpr{Let: x.Let, Names: x.Names, Values: []Expr{v}, Body: b}
			}
		}
		kids := Children(e)
		if len(kids) == 0 {
			return e
		}
		nk := make([]Expr, len(kids))
		changed := false
		for i, k := range kids {
			r := ren
			for _, b := range Binders(e, i) {
				r = withoutName(r, b)
			}
			nk[i] = walk(k, r)
			changed = changed || nk[i] != k
		}
		if !changed {
			return e
		}
		return WithChildren(e, nk)
	}
	return walk(e, nil)
}

// withName returns ren with from renamed to to (ren unchanged).
func withName(ren map[string]string, from, to string) map[string]string {
	out := make(map[string]string, len(ren)+1)
	for k, v := range ren {
		out[k] = v
	}
	out[from] = to
	return out
}

// withoutName returns ren without name (ren itself when it has none).
func withoutName(ren map[string]string, name string) map[string]string {
	if _, ok := ren[name]; !ok {
		return ren
	}
	out := make(map[string]string, len(ren))
	for k, v := range ren {
		if k != name {
			out[k] = v
		}
	}
	return out
}
