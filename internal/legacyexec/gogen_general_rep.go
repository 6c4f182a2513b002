// Representation inference of the general Go code generator (GoValue):
// how each expression's value is held in Go, mirroring the interpreter's
// run-time values, and which names the translation reads.

package legacyexec

import "github.com/nablasd/nablasd/sdql"

// rep infers the representation of e's value in env (whose values give
// the representations of the names), failing on what the translation
// cannot express.
func (g *gvGen) rep(e sdql.Expr, env *gvEnv) *gvRep {
	switch e := e.(type) {
	case *sdql.Ident:
		v, ok := env.lookup(e.Name)
		if !ok {
			g.fail(e, "undefined: %s", e.Name)
		}
		return v.rep
	case *sdql.IntLit:
		if g.static(e) == sdql.RealType {
			return gvReal
		}
		return gvInt
	case *sdql.RealLit:
		return gvReal
	case *sdql.BoolLit:
		return gvBool
	case *sdql.SumExpr:
		src := g.rep(e.Src, env)
		if !src.isDict() {
			g.fail(e.Src, "cannot iterate over %s", src)
		}
		inner := env.with(e.Key.Name, gvVal{rep: gvInt}).with(e.Val.Name, gvVal{rep: src.elem()})
		return g.sumRep(e, g.rep(e.Body, inner))
	case *sdql.DictExpr:
		var v *gvRep
		for _, en := range e.Entries {
			g.keyRep(en.Key, env)
			if v = gvJoin(v, g.rep(en.Val, env).built(), false); v == nil {
				g.fail(en.Val, "cannot generate dictionary values of representations that do not join")
			}
		}
		if v != nil {
			return gvMapOf(v)
		}
		if r := gvTypeRep(g.static(e)); r != nil && r.kind == gvMap {
			return r
		}
		g.fail(e, "cannot generate an empty dictionary of type %s", g.static(e))
	case *sdql.LookupExpr:
		x := g.rep(e.X, env)
		if !x.isDict() {
			g.fail(e.X, "cannot look up a key in %s", x)
		}
		g.keyRep(e.Key, env)
		return gvCoerce(x.elem(), g.static(e))
	case *sdql.SliceExpr:
		x := g.rep(e.X, env)
		if x.kind != gvSeq {
			g.fail(e.X, "cannot generate a sub-array of %s (want a storage array)", x)
		}
		g.keyRep(e.Lo, env)
		g.keyRep(e.Hi, env)
		return x
	case *sdql.RangeExpr:
		g.keyRep(e.Lo, env)
		g.keyRep(e.Hi, env)
		return gvRangeRep
	case *sdql.LetExpr:
		used := gvLetUses(e)
		for i, n := range e.Names {
			if used[i] {
				env = env.with(n.Name, gvVal{rep: g.rep(e.Values[i], env)})
			}
		}
		return g.rep(e.Body, env)
	case *sdql.IfExpr:
		if c := g.rep(e.Cond, env); !c.same(gvBool) {
			g.fail(e.Cond, "cannot generate an if condition of %s", c)
		}
		th := g.rep(e.Then, env)
		el := gvTypeRep(g.static(e))
		if e.Else != nil {
			el = g.rep(e.Else, env)
		}
		j := gvJoin(th, el, true)
		if j == nil {
			g.fail(e, "cannot generate if branches of %s and %s", th, el)
		}
		return gvCoerce(j, g.static(e))
	case *sdql.UnaryExpr:
		x := g.rep(e.X, env)
		if e.Op == sdql.NOT {
			if !x.same(gvBool) {
				g.fail(e, "cannot generate not of %s", x)
			}
			return gvBool
		}
		if !x.numericLeaves() {
			g.fail(e, "cannot negate %s", x)
		}
		return x.built()
	case *sdql.BinaryExpr:
		return g.binaryRep(e, env)
	case *sdql.CallExpr:
		for _, a := range sdql.Children(e) {
			if x := g.rep(a, env); !x.numeric() {
				g.fail(a, "cannot generate %s of %s", e.Op, x)
			}
		}
		if _, ok := gvOps[e.Op]; !ok {
			g.fail(e, "cannot generate the operation %s", e.Op)
		}
		return gvReal
	case *sdql.UniqueExpr:
		return g.rep(e.X, env)
	case *sdql.ZeroExpr:
		if r := gvTypeRep(e.T); r != nil {
			return r
		}
		g.fail(e, "cannot generate zero of type %s", e.T)
	case *sdql.OneHotExpr:
		n := sdql.Order(e.T)
		if n <= 0 {
			return gvReal
		}
		x := g.rep(e.X, env)
		for i := 0; i < n; i++ {
			if !x.isDict() {
				g.fail(e.X, "cannot generate onehot[%s] of %s", e.T, x)
			}
			x = x.elem()
		}
		return gvTypeRep(sdql.Outer(e.T, e.T))
	}
	g.fail(e, "cannot generate the expression %T", e)
	return nil
}

// keyRep checks that e gives a number usable as a key.
func (g *gvGen) keyRep(e sdql.Expr, env *gvEnv) {
	if r := g.rep(e, env); !r.numeric() {
		g.fail(e, "cannot generate a key of %s", r)
	}
}

// sumRep is the representation of a sum whose body has representation
// body: a float64 where the interpreter accumulates reals, else the body's
// built representation joined with the zero of the sum's type.
func (g *gvGen) sumRep(e *sdql.SumExpr, body *gvRep) *gvRep {
	t := g.static(e)
	if t == sdql.RealType {
		if !body.numeric() {
			g.fail(e.Body, "cannot generate a real sum of %s", body)
		}
		return gvReal
	}
	r := gvJoin(body.built(), gvTypeRep(t), false)
	if r == nil {
		g.fail(e.Body, "cannot generate a sum of %s (of type %s)", body, t)
	}
	return r
}

// binaryRep is rep of a binary operator.
func (g *gvGen) binaryRep(e *sdql.BinaryExpr, env *gvEnv) *gvRep {
	x, y := g.rep(e.X, env), g.rep(e.Y, env)
	t := g.static(e)
	switch e.Op {
	case sdql.LAND, sdql.LOR:
		if !x.same(gvBool) || !y.same(gvBool) {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvBool
	case sdql.ADD, sdql.SUB:
		var j *gvRep
		switch {
		case x.kind == gvScalar && y.kind == gvScalar:
			j = gvJoin(x, y, false)
		case x.isDict() && y.isDict():
			j = gvJoin(x.built(), y.built(), false)
		}
		if j == nil || e.Op == sdql.SUB && !j.numericLeaves() {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvCoerce(j, t)
	case sdql.MUL:
		m := gvMul(x, y)
		if m == nil {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvCoerce(m, t)
	case sdql.QUO:
		if !y.numeric() || !x.numericLeaves() {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvReals(x.built())
	}
	// comparisons
	bools := x.same(gvBool) && y.same(gvBool) && (e.Op == sdql.EQ || e.Op == sdql.NEQ)
	if !bools && !(x.numeric() && y.numeric()) {
		g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
	}
	return gvBool
}

// gvLetUses reports which names of a let the translation binds: those
// its body or the later values it binds use (an unused value has no
// effect and is not computed).
func gvLetUses(e *sdql.LetExpr) []bool {
	used := make([]bool, len(e.Names))
	rest := &sdql.LetExpr{Let: e.Let, Body: e.Body}
	for i := len(e.Names) - 1; i >= 0; i-- {
		if used[i] = gvLive(rest, e.Names[i].Name); used[i] {
			rest = &sdql.LetExpr{Let: e.Let, Body: e.Body,
				Names:  append([]sdql.Binder{e.Names[i]}, rest.Names...),
				Values: append([]sdql.Expr{e.Values[i]}, rest.Values...)}
		}
	}
	return used
}

// gvLive reports whether the translation of e reads the free variable
// name: whether name is free in e, not counting the let values and onehot
// operands the translation drops.
func gvLive(e sdql.Expr, name string) bool {
	if name == "_" {
		return false
	}
	switch x := e.(type) {
	case *sdql.Ident:
		return x.Name == name
	case *sdql.SumExpr:
		if gvLive(x.Src, name) {
			return true
		}
		return x.Key.Name != name && x.Val.Name != name && gvLive(x.Body, name)
	case *sdql.LetExpr:
		used := gvLetUses(x)
		for i, n := range x.Names {
			if used[i] && gvLive(x.Values[i], name) {
				return true
			}
			if n.Name == name {
				return false
			}
		}
		return gvLive(x.Body, name)
	case *sdql.OneHotExpr:
		if sdql.Order(x.T) <= 0 {
			return false
		}
	}
	for _, k := range sdql.Children(e) {
		if gvLive(k, name) {
			return true
		}
	}
	return false
}
