package ad

import "github.com/nablasd/nablasd/sdql"

// ANF converts e to A-normal form (section 5.1): every operand of every
// construct is an atom (a variable, a literal or zero[T]), and every
// non-trivial sub-expression is bound by a single let to a fresh variable
// t, t1, t2, ... The result of every scope (the program, a sum body, an if
// branch) is an atom too, as in the paper's example
// `let t1 = x1 * y1 in let t2 = x2 * y2 in let t3 = t1 + t2 in t3`.
//
// Sharing is preserved: existing lets stay lets (nothing is inlined or
// duplicated), an operation on atoms that a let in scope already computes
// is that let's variable (x(i) - x(j) twice is bound once, so that its
// derivative is accumulated once), the lets of a let's right-hand side are flattened into the
// enclosing chain, and nothing is hoisted out of a sum body or an if branch.
// Bound variables are first renamed apart (a name bound twice, or bound
// and free, gets a fresh name), so flattening cannot capture. Tupled lets
// become chains of single lets (they bind sequentially).
func ANF(e sdql.Expr) sdql.Expr {
	e = renameApart(e)
	a := &anf{names: newNamer(e), memo: map[string]string{}}
	return a.scope(e)
}

type anf struct {
	names *namer
	// memo maps the printed operations on atoms bound in scope to their
	// variables (names are unique after renameApart, so an operation
	// means the same wherever its let is in scope)
	memo map[string]string
}

// scope normalizes e as a whole scope: a let chain ending in an atom. Its
// bindings are visible to nothing outside it.
func (a *anf) scope(e sdql.Expr) sdql.Expr {
	outer := a.memo
	a.memo = make(map[string]string, len(outer))
	for k, v := range outer {
		a.memo[k] = v
	}
	bs, x := a.atom(e)
	a.memo = outer
	return wrapLets(bs, x)
}

// atom normalizes e into bindings and an atom.
func (a *anf) atom(e sdql.Expr) ([]binding, sdql.Expr) {
	bs, c := a.complex(e)
	if isAtom(c) {
		return bs, c
	}
	var key string
	switch c.(type) {
	case *sdql.SumExpr, *sdql.IfExpr, *sdql.LetExpr:
	default:
		key = sdql.PrintFlat(c)
		if t, ok := a.memo[key]; ok {
			return bs, ident(t)
		}
	}
	t := a.names.fresh("t")
	if key != "" {
		a.memo[key] = t
	}
	return append(bs, binding{binder(t), c}), ident(t)
}

// complex normalizes e into bindings and an expression whose operands are
// atoms (e itself when it is an atom).
func (a *anf) complex(e sdql.Expr) ([]binding, sdql.Expr) {
	switch x := e.(type) {
	case *sdql.Ident, *sdql.IntLit, *sdql.RealLit, *sdql.BoolLit, *sdql.ZeroExpr:
		return nil, clone(e)
	case *sdql.LetExpr:
		var bs []binding
		for i, n := range x.Names {
			vb, v := a.complex(x.Values[i])
			bs = append(bs, vb...)
			bs = append(bs, binding{n, v})
		}
		bb, body := a.complex(x.Body)
		return append(bs, bb...), body
	case *sdql.SumExpr:
		bs, src := a.atom(x.Src)
		return bs, &sdql.SumExpr{Sum: x.Sum, Key: x.Key, Val: x.Val, Src: src, Body: a.scope(x.Body)}
	case *sdql.IfExpr:
		bs, cond := a.atom(x.Cond)
		out := &sdql.IfExpr{If: x.If, Cond: cond, Then: a.scope(x.Then)}
		if x.Else != nil {
			out.Else = a.scope(x.Else)
		}
		return bs, out
	}
	var bs []binding
	kids := sdql.Children(e)
	nk := make([]sdql.Expr, len(kids))
	for i, k := range kids {
		kb, ka := a.atom(k)
		bs = append(bs, kb...)
		nk[i] = ka
	}
	return bs, sdql.WithChildren(e, nk)
}

// renameApart renames bound variables so that no name is bound twice and
// no bound name equals a free one. The first binder of a name keeps it.
func renameApart(e sdql.Expr) sdql.Expr {
	r := &renamer{names: newNamer(e), seen: map[string]bool{}}
	for _, v := range sdql.FreeVars(e) {
		r.seen[v] = true
	}
	return r.expr(e, map[string]string{})
}

type renamer struct {
	names *namer
	seen  map[string]bool
}

func (r *renamer) bind(b sdql.Binder, env map[string]string) (sdql.Binder, map[string]string) {
	if b.Name == "_" {
		return b, env
	}
	name := b.Name
	if r.seen[name] {
		name = r.names.fresh(name)
	}
	r.seen[name] = true
	out := make(map[string]string, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	out[b.Name] = name
	return sdql.Binder{NamePos: b.NamePos, Name: name}, out
}

func (r *renamer) expr(e sdql.Expr, env map[string]string) sdql.Expr {
	switch x := e.(type) {
	case *sdql.Ident:
		c := *x
		if n, ok := env[x.Name]; ok {
			c.Name = n
		}
		return &c
	case *sdql.SumExpr:
		src := r.expr(x.Src, env)
		k, inner := r.bind(x.Key, env)
		v, inner := r.bind(x.Val, inner)
		return &sdql.SumExpr{Sum: x.Sum, Key: k, Val: v, Src: src, Body: r.expr(x.Body, inner)}
	case *sdql.LetExpr:
		out := &sdql.LetExpr{Let: x.Let}
		for i, n := range x.Names {
			out.Values = append(out.Values, r.expr(x.Values[i], env))
			var nb sdql.Binder
			nb, env = r.bind(n, env)
			out.Names = append(out.Names, nb)
		}
		out.Body = r.expr(x.Body, env)
		return out
	}
	kids := sdql.Children(e)
	if len(kids) == 0 {
		return clone(e)
	}
	nk := make([]sdql.Expr, len(kids))
	for i, k := range kids {
		nk[i] = r.expr(k, env)
	}
	return sdql.WithChildren(e, nk)
}
