// Loops of the general Go code generator (GoValue): sums over maps,
// arrays, sub-arrays and ranges, accumulated in place as the interpreter's
// sum does, and onehot.

package legacyexec

import "github.com/nablasd/nablasd/sdql"

// open starts a loop over a dictionary value, binding its keys to the
// local kn and its values to vn ("" where unused), and returns the Go
// expressions of the key and the value inside the loop. The caller closes
// the loop.
func (g *gvGen) open(src gvVal, kn, vn string) (string, string) {
	rangeLoop := func(x string) {
		switch {
		case kn == "" && vn == "":
			g.p("for range %s {", x)
		case vn == "":
			g.p("for %s := range %s {", kn, x)
		case kn == "":
			g.p("for _, %s := range %s {", vn, x)
		default:
			g.p("for %s, %s := range %s {", kn, vn, x)
		}
		g.mark(kn, vn)
	}
	switch src.rep.kind {
	case gvMap:
		rangeLoop(src.x)
		return kn, vn
	case gvSeq:
		if src.lo == "" {
			rangeLoop(src.x)
			return kn, vn
		}
		i := kn
		if i == "" {
			i = g.fresh("p")
		}
		g.p("for %s := %s; %s < %s; %s++ {", i, src.lo, i, src.hi, i)
		if vn != "" {
			g.p("%s := %s[%s]", vn, src.x, i)
			g.mark(vn)
		}
		return i, vn
	case gvRange:
		i := kn
		if i == "" {
			i = vn
		}
		if i == "" {
			i = g.fresh("i")
		}
		g.p("for %s := %s; %s < %s; %s++ {", i, src.lo, i, src.hi, i)
		return i, i
	}
	panic("internal error: exec: GenerateGo: iterating a scalar")
}

// loop opens the loop of a sum over src and returns its body's
// environment.
func (g *gvGen) loop(src gvVal, e *sdql.SumExpr, env *gvEnv) *gvEnv {
	kUsed := e.Key.Name != e.Val.Name && gvLive(e.Body, e.Key.Name)
	vUsed := gvLive(e.Body, e.Val.Name)
	kn, vn := "", ""
	if kUsed {
		kn = g.fresh(e.Key.Name)
	}
	if vUsed {
		vn = g.fresh(e.Val.Name)
		if src.rep.kind == gvRange && kUsed {
			vn = kn // a range binds each key as its value
		}
	}
	k, v := g.open(src, kn, vn)
	if kUsed {
		env = env.with(e.Key.Name, gvAtomic(gvInt, k))
	}
	if vUsed {
		env = env.with(e.Val.Name, gvAtomic(src.rep.elem(), v))
	}
	return env
}

// sum folds the body over the source with semi-ring addition into an
// accumulator it owns (the interpreter's sum).
func (g *gvGen) sum(e *sdql.SumExpr, env *gvEnv) gvVal {
	rep := g.rep(e, env)
	src := g.emit(e.Src, env)
	acc := g.fresh("acc")
	if rep.kind == gvScalar {
		g.p("var %s %s", acc, rep.base)
	} else {
		g.p("%s := %s{}", acc, rep.goType())
	}
	g.mark(acc)
	inner := g.loop(src, e, env)
	g.accumulate(acc, rep, e.Body, inner, false)
	g.p("}")
	return gvAtomic(rep, acc)
}

// accumulate adds e's value into the accumulator acc (a variable, or a
// map's entry when entry is set) in place. Conditionals, lets, sums into
// maps and one-entry dictionaries are taken apart instead of built and
// then added.
func (g *gvGen) accumulate(acc string, rep *gvRep, e sdql.Expr, env *gvEnv, entry bool) {
	switch x := e.(type) {
	case *sdql.IfExpr:
		// an entry of a map gets its key whatever the condition
		if entry && x.Else == nil {
			break
		}
		c := g.emit(x.Cond, env)
		g.p("if %s {", c.x)
		g.accumulate(acc, rep, x.Then, env, entry)
		if x.Else != nil {
			g.p("} else {")
			g.accumulate(acc, rep, x.Else, env, entry)
		}
		g.p("}")
		return
	case *sdql.LetExpr:
		g.accumulate(acc, rep, x.Body, g.let(x, env), entry)
		return
	case *sdql.SumExpr:
		// A sum of dictionaries adds each term: the same keys and values
		// as adding the inner sum, but for the order of real additions.
		if rep.kind != gvMap {
			break
		}
		g.rep(x, env)
		inner := g.loop(g.emit(x.Src, env), x, env)
		g.accumulate(acc, rep, x.Body, inner, false)
		g.p("}")
		return
	case *sdql.BinaryExpr:
		if g.addScaled(acc, rep, x, env) {
			return
		}
	case *sdql.DictExpr:
		if len(x.Entries) != 1 || rep.kind != gvMap {
			break
		}
		en := x.Entries[0]
		k := g.key(en.Key, env)
		switch en.Val.(type) {
		case *sdql.IfExpr, *sdql.LetExpr:
			k.x = g.holdInt("k", k.x)
		}
		if rep.val.kind == gvScalar {
			if rep.val.base == "bool" {
				k.x = g.holdInt("k", k.x)
			}
			g.accumulate(acc+"["+k.x+"]", rep.val, en.Val, env, true)
			return
		}
		k.x = g.holdInt("k", k.x)
		g.accumulate(g.row(acc, rep, k.x), rep.val, en.Val, env, false)
		return
	}
	g.addValue(acc, rep, g.emit(e, env))
}

// addScaled adds a product of a number and a dictionary of numbers into
// the map acc entry by entry, without building the product; it reports
// whether e is such a product.
func (g *gvGen) addScaled(acc string, rep *gvRep, e *sdql.BinaryExpr, env *gvEnv) bool {
	if e.Op != sdql.MUL || rep.kind != gvMap || rep.val.kind != gvScalar {
		return false
	}
	a, b := g.rep(e.X, env), g.rep(e.Y, env)
	if a.isDict() == b.isDict() || a.isDict() && a.elem().kind != gvScalar || b.isDict() && b.elem().kind != gvScalar {
		return false
	}
	x, y := g.emit(e.X, env), g.emit(e.Y, env)
	dict, k, v := y, "", ""
	if a.isDict() {
		dict = x
	}
	vn := g.fresh("v")
	if dict.rep.kind == gvRange {
		vn = ""
	}
	if a.isDict() {
		y = g.hold("s", y)
		k, v = g.open(dict, g.fresh("k"), vn)
		x = gvAtomic(dict.rep.elem(), v)
	} else {
		x = g.hold("s", x)
		k, v = g.open(dict, g.fresh("k"), vn)
		y = gvAtomic(dict.rep.elem(), v)
	}
	prod := gvVal{rep: gvMul(x.rep, y.rep), x: scalarProduct(x.x, x.rep, y.x, y.rep), prec: precMul}
	if prod.rep.base == "bool" {
		prod.prec = precAnd
	}
	g.addScalar(acc+"["+k+"]", rep.val, prod)
	g.p("}")
	return true
}

// row returns the map at key k of the map m, adding an empty one when k
// is not there.
func (g *gvGen) row(m string, rep *gvRep, k string) string {
	r, ok := g.fresh("row"), g.fresh("found")
	g.p("%s, %s := %s[%s]", r, ok, m, k)
	g.p("if !%s {", ok)
	g.p("%s = %s{}", r, rep.val.goType())
	g.p("%s[%s] = %s", m, k, r)
	g.p("}")
	return r
}

// addScalar adds the scalar v into the scalar target (bools or).
func (g *gvGen) addScalar(target string, rep *gvRep, v gvVal) {
	v = g.conv(v, rep)
	if rep.base == "bool" {
		g.p("%s = %s || %s", target, target, par(v, precOr+1))
		return
	}
	g.p("%s += %s", target, v.x)
}

// addValue adds v into the accumulator acc in place.
func (g *gvGen) addValue(acc string, rep *gvRep, v gvVal) {
	if rep.kind == gvScalar {
		g.addScalar(acc, rep, v)
		return
	}
	if (v.rep.kind == gvSeq || v.rep.kind == gvRange) && rep.val.kind == gvScalar {
		vn := ""
		if v.rep.kind == gvSeq {
			vn = g.fresh("x")
		}
		k, x := g.open(v, g.fresh("k"), vn)
		g.addScalar(acc+"["+k+"]", rep.val, gvAtomic(v.rep.elem(), x))
		g.p("}")
		return
	}
	g.p("%s(%s, %s)", g.helperAddInto(rep), acc, g.conv(v, rep).x)
}

// oneHot is onehot[T] x (sdql.OneHot): for every stored index path
// i1..in of x, the entry {i1 -> ... {in -> {i1 -> ... {in -> 1}}}}.
func (g *gvGen) oneHot(e *sdql.OneHotExpr, env *gvEnv) gvVal {
	n := sdql.Order(e.T)
	if n <= 0 {
		return gvConst(gvReal, "1.0")
	}
	rep := g.rep(e, env)
	x := g.emit(e.X, env)
	out := g.fresh("onehot")
	g.p("%s := %s{}", out, rep.goType())
	var keys []string
	var walk func(v gvVal)
	walk = func(v gvVal) {
		vn := ""
		if len(keys)+1 < n {
			vn = g.fresh("x")
		}
		k, val := g.open(v, g.fresh("i"), vn)
		keys = append(keys, k)
		if len(keys) < n {
			walk(gvAtomic(v.rep.elem(), val))
		} else {
			cur, crep := out, rep
			for _, k := range keys[:n-1] {
				cur, crep = g.row(cur, crep, k), crep.val
			}
			inner := "1.0"
			for i := n - 1; i >= 1; i-- {
				inner = "{" + keys[i] + ": " + inner + "}"
			}
			g.p("%s[%s] = %s{%s: %s}", cur, keys[n-1], crep.val.goType(), keys[0], inner)
		}
		keys = keys[:len(keys)-1]
		g.p("}")
	}
	walk(x)
	return gvAtomic(rep, out)
}
