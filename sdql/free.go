package sdql

import (
	"slices"
	"strings"
)

// A FreeIndex remembers the free variables of terms: each node's are
// computed once, from its children's, so that asking about every node of a
// program (whether a let's name is used, and how, in each of a chain of
// lets) costs time linear in its size times the variables a node refers
// to, where FreeVars would walk each term again. Nodes must not be changed
// in place once asked about (no transformation of this module changes a
// node in place). A FreeIndex is not safe for concurrent use.
type FreeIndex struct {
	m map[Expr][]FreeCount
}

// A FreeCount is a variable occurring free in a term: how many times,
// counted up to 2, and whether an occurrence is inside the body of a sum
// (a loop) in the term.
type FreeCount struct {
	Name   string
	Count  int
	InLoop bool
}

// NewFreeIndex returns an empty index.
func NewFreeIndex() *FreeIndex { return &FreeIndex{m: map[Expr][]FreeCount{}} }

// Free returns e's free variables, sorted by name.
func (x *FreeIndex) Free(e Expr) []FreeCount {
	if fv, ok := x.m[e]; ok {
		return fv
	}
	var fv []FreeCount
	if id, ok := e.(*Ident); ok {
		fv = []FreeCount{{Name: id.Name, Count: 1}}
	}
	_, isSum := e.(*SumExpr)
	for i, k := range Children(e) {
		bound := Binders(e, i)
		for _, f := range x.Free(k) {
			if slices.Contains(bound, f.Name) {
				continue
			}
			if isSum && i == 1 {
				f.InLoop = true
			}
			j, found := slices.BinarySearchFunc(fv, f.Name, compareUse)
			if !found {
				fv = slices.Insert(fv, j, f)
				continue
			}
			fv[j].Count = min(fv[j].Count+f.Count, 2)
			fv[j].InLoop = fv[j].InLoop || f.InLoop
		}
	}
	x.m[e] = fv
	return fv
}

func compareUse(f FreeCount, name string) int { return strings.Compare(f.Name, name) }

// Use returns how name occurs free in e (count 0 when it does not).
func (x *FreeIndex) Use(e Expr, name string) FreeCount {
	fv := x.Free(e)
	if j, found := slices.BinarySearchFunc(fv, name, compareUse); found {
		return fv[j]
	}
	return FreeCount{Name: name}
}

// Mentions reports whether a variable of names occurs free in e.
func (x *FreeIndex) Mentions(e Expr, names map[string]bool) bool {
	for _, f := range x.Free(e) {
		if names[f.Name] {
			return true
		}
	}
	return false
}

// Subst is Subst that rebuilds only the nodes where a variable of s
// occurs free, renaming a binder there that would capture a free variable
// of a replacement: the rest of e is kept as it is.
func (x *FreeIndex) Subst(e Expr, s map[string]Expr) Expr {
	fv := map[string]bool{}
	for _, r := range s {
		for _, f := range x.Free(r) {
			fv[f.Name] = true
		}
	}
	st := &substState{x: x, root: e, repl: s}
	return st.subst(e, s, fv)
}

// substState is one FreeIndex.Subst.
type substState struct {
	x     *FreeIndex
	root  Expr
	repl  map[string]Expr
	names *Names // made when a binder is first renamed
}

// occurs reports whether a variable of s occurs free in e.
func (st *substState) occurs(e Expr, s map[string]Expr) bool {
	for _, f := range st.x.Free(e) {
		if _, ok := s[f.Name]; ok {
			return true
		}
	}
	return false
}

// subst substitutes s in e, renaming binders that would capture a name of
// fv (the free variables of s's replacements).
func (st *substState) subst(e Expr, s map[string]Expr, fv map[string]bool) Expr {
	if len(s) == 0 || !st.occurs(e, s) {
		return e
	}
	switch x := e.(type) {
	case *Ident:
		return s[x.Name]
	case *SumExpr:
		src := st.subst(x.Src, s, fv)
		inner, key := st.bind(s, x.Key, fv)
		inner, val := st.bind(inner, x.Val, fv)
		body := x.Body
		if key.Name != x.Key.Name || val.Name != x.Val.Name {
			ren := map[string]Expr{}
			if key.Name != x.Key.Name {
				ren[x.Key.Name] = &Ident{Name: key.Name}
			}
			if val.Name != x.Val.Name {
				ren[x.Val.Name] = &Ident{Name: val.Name}
			}
			body = st.subst(body, ren, nil)
		}
		return &SumExpr{Sum: x.Sum, Key: key, Val: val, Src: src, Body: st.subst(body, inner, fv)}
	case *LetExpr:
		out := &LetExpr{Let: x.Let}
		cur := s
		rest := append([]Expr(nil), x.Values...)
		body := x.Body
		for i, b := range x.Names {
			out.Values = append(out.Values, st.subst(rest[i], cur, fv))
			var nb Binder
			cur, nb = st.bind(cur, b, fv)
			if nb.Name != b.Name {
				ren := map[string]Expr{b.Name: &Ident{Name: nb.Name}}
				for j := i + 1; j < len(rest); j++ {
					rest[j] = st.subst(rest[j], ren, nil)
				}
				body = st.subst(body, ren, nil)
			}
			out.Names = append(out.Names, nb)
		}
		out.Body = st.subst(body, cur, fv)
		return out
	}
	kids := Children(e)
	nk := make([]Expr, len(kids))
	for i, k := range kids {
		nk[i] = st.subst(k, s, fv)
	}
	return WithChildren(e, nk)
}

// bind is bindSubst: b shadows a substitution of its name, and is renamed
// when it would capture a name of fv in a scope the substitution reaches.
func (st *substState) bind(s map[string]Expr, b Binder, fv map[string]bool) (map[string]Expr, Binder) {
	if b.Name == "_" {
		return s, b
	}
	if _, shadows := s[b.Name]; shadows {
		s2 := make(map[string]Expr, len(s))
		for k, v := range s {
			if k != b.Name {
				s2[k] = v
			}
		}
		s = s2
	}
	if fv[b.Name] && len(s) > 0 {
		if st.names == nil {
			st.names = NewNames(st.root)
			for _, r := range st.repl {
				st.names.Reserve(r)
			}
		}
		return s, Binder{NamePos: b.NamePos, Name: st.names.Fresh(b.Name)}
	}
	return s, b
}
