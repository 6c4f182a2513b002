package sdql

import (
	"fmt"
	"strconv"
	"strings"
)

// AlphaEqual reports whether a and b are the same program up to the
// renaming of bound variables (positions are ignored; int and real literals
// with the same value are different).
func AlphaEqual(a, b Expr) bool {
	return alphaEq(a, b, nil, nil)
}

// alphaEnv maps a bound name to its binding depth.
type alphaEnv struct {
	name  string
	level int
	next  *alphaEnv
}

func (e *alphaEnv) find(name string) int {
	for ; e != nil; e = e.next {
		if e.name == name {
			return e.level
		}
	}
	return -1
}

func (e *alphaEnv) push(name string) *alphaEnv {
	lvl := 0
	if e != nil {
		lvl = e.level + 1
	}
	return &alphaEnv{name, lvl, e}
}

func alphaEq(a, b Expr, ea, eb *alphaEnv) bool {
	switch x := a.(type) {
	case *Ident:
		y, ok := b.(*Ident)
		if !ok {
			return false
		}
		la, lb := ea.find(x.Name), eb.find(y.Name)
		if la < 0 && lb < 0 {
			return x.Name == y.Name
		}
		return la == lb
	case *IntLit:
		y, ok := b.(*IntLit)
		return ok && x.Value == y.Value
	case *RealLit:
		y, ok := b.(*RealLit)
		return ok && (x.Value == y.Value || x.Value != x.Value && y.Value != y.Value)
	case *BoolLit:
		y, ok := b.(*BoolLit)
		return ok && x.Value == y.Value
	case *SumExpr:
		y, ok := b.(*SumExpr)
		if !ok || !alphaEq(x.Src, y.Src, ea, eb) {
			return false
		}
		return alphaEq(x.Body, y.Body, ea.push(x.Key.Name).push(x.Val.Name), eb.push(y.Key.Name).push(y.Val.Name))
	case *LetExpr:
		y, ok := b.(*LetExpr)
		if !ok || len(x.Names) != len(y.Names) {
			return false
		}
		for i := range x.Names {
			if !alphaEq(x.Values[i], y.Values[i], ea, eb) {
				return false
			}
			ea, eb = ea.push(x.Names[i].Name), eb.push(y.Names[i].Name)
		}
		return alphaEq(x.Body, y.Body, ea, eb)
	case *DictExpr:
		y, ok := b.(*DictExpr)
		if !ok || len(x.Entries) != len(y.Entries) {
			return false
		}
	case *UnaryExpr:
		y, ok := b.(*UnaryExpr)
		if !ok || x.Op != y.Op {
			return false
		}
	case *BinaryExpr:
		y, ok := b.(*BinaryExpr)
		if !ok || x.Op != y.Op {
			return false
		}
	case *CallExpr:
		y, ok := b.(*CallExpr)
		if !ok || x.Op != y.Op || (x.Y == nil) != (y.Y == nil) {
			return false
		}
	case *ZeroExpr:
		y, ok := b.(*ZeroExpr)
		return ok && TypesEqual(x.T, y.T)
	case *OneHotExpr:
		y, ok := b.(*OneHotExpr)
		if !ok || !TypesEqual(x.T, y.T) {
			return false
		}
	case *IfExpr:
		y, ok := b.(*IfExpr)
		if !ok || (x.Else == nil) != (y.Else == nil) {
			return false
		}
	default:
		if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
			return false
		}
	}
	ka, kb := Children(a), Children(b)
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if !alphaEq(ka[i], kb[i], ea, eb) {
			return false
		}
	}
	return true
}

// Names is a supply of fresh variable names that avoids a set of used
// names.
type Names struct {
	used map[string]bool
}

// NewNames returns a supply that avoids every name occurring in the given
// expressions (bound or free).
func NewNames(es ...Expr) *Names {
	n := &Names{used: map[string]bool{}}
	for _, e := range es {
		n.Reserve(e)
	}
	return n
}

// Reserve marks every name occurring in e as used.
func (n *Names) Reserve(e Expr) {
	Inspect(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Ident:
			n.used[x.Name] = true
		case *SumExpr:
			n.used[x.Key.Name] = true
			n.used[x.Val.Name] = true
		case *LetExpr:
			for _, b := range x.Names {
				n.used[b.Name] = true
			}
		}
		return true
	})
}

// Use marks a name as used.
func (n *Names) Use(name string) { n.used[name] = true }

// Fresh returns an unused name starting with base (base itself when free,
// else base1, base2, ...), and marks it used.
func (n *Names) Fresh(base string) string {
	base = strings.TrimRight(base, "0123456789")
	if base == "" || base == "_" {
		base = "x"
	}
	if !n.used[base] && !IsKeyword(base) {
		n.used[base] = true
		return base
	}
	for i := 1; ; i++ {
		name := base + strconv.Itoa(i)
		if !n.used[name] {
			n.used[name] = true
			return name
		}
	}
}

// Subst replaces the free occurrences of the variables in s by their
// expressions, renaming binders of e that would capture a free variable of a
// replacement.
func Subst(e Expr, s map[string]Expr) Expr {
	if len(s) == 0 {
		return e
	}
	fv := map[string]bool{}
	for _, r := range s {
		for _, v := range FreeVars(r) {
			fv[v] = true
		}
	}
	names := NewNames(e)
	for _, r := range s {
		names.Reserve(r)
	}
	return subst(e, s, fv, names)
}

func subst(e Expr, s map[string]Expr, fv map[string]bool, names *Names) Expr {
	switch x := e.(type) {
	case *Ident:
		if r, ok := s[x.Name]; ok {
			return r
		}
		return e
	case *SumExpr:
		src := subst(x.Src, s, fv, names)
		inner, key, val := s, x.Key, x.Val
		inner, key = bindSubst(inner, key, fv, names)
		inner, val = bindSubst(inner, val, fv, names)
		body := x.Body
		if key.Name != x.Key.Name || val.Name != x.Val.Name {
			ren := map[string]Expr{}
			if key.Name != x.Key.Name {
				ren[x.Key.Name] = &Ident{Name: key.Name}
			}
			if val.Name != x.Val.Name {
				ren[x.Val.Name] = &Ident{Name: val.Name}
			}
			body = subst(body, ren, map[string]bool{}, names)
		}
		return &SumExpr{Sum: x.Sum, Key: key, Val: val, Src: src, Body: subst(body, inner, fv, names)}
	case *LetExpr:
		out := &LetExpr{Let: x.Let}
		cur := s
		rest := append([]Expr(nil), x.Values...)
		body := x.Body
		for i, b := range x.Names {
			out.Values = append(out.Values, subst(rest[i], cur, fv, names))
			var nb Binder
			cur, nb = bindSubst(cur, b, fv, names)
			if nb.Name != b.Name {
				ren := map[string]Expr{b.Name: &Ident{Name: nb.Name}}
				// rename in the later values and the body
				for j := i + 1; j < len(rest); j++ {
					rest[j] = subst(rest[j], ren, map[string]bool{}, names)
				}
				body = subst(body, ren, map[string]bool{}, names)
			}
			out.Names = append(out.Names, nb)
		}
		out.Body = subst(body, cur, fv, names)
		return out
	}
	kids := Children(e)
	if len(kids) == 0 {
		return e
	}
	nk := make([]Expr, len(kids))
	for i, k := range kids {
		nk[i] = subst(k, s, fv, names)
	}
	return WithChildren(e, nk)
}

// bindSubst handles a binder b entering scope: b shadows any substitution
// of its name, and is renamed when it would capture a free variable of a
// replacement.
func bindSubst(s map[string]Expr, b Binder, fv map[string]bool, names *Names) (map[string]Expr, Binder) {
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
		return s, Binder{NamePos: b.NamePos, Name: names.Fresh(b.Name)}
	}
	return s, b
}
