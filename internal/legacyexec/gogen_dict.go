// Dictionaries of the Go code generator: lookups, lets, and the loops over
// ranges, sub-arrays and let-bound dictionaries.

package legacyexec

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// ---- dictionaries: references, lookups, lets, loops

// dictRef resolves a dictionary-valued expression used as a lookup or sum
// source to an array, a local or a view.
func (g *gogen) dictRef(e sdql.Expr) *gvar {
	switch x := e.(type) {
	case *sdql.Ident:
		v := g.lookupVar(x)
		switch v.kind {
		case "arrI", "arrR", "view", "map", "vec":
			return v
		}
		g.failf(e, "%s is not a dictionary", x.Name)
		return nil
	case *sdql.LookupExpr:
		d := g.dictRef(x.X)
		if d == nil {
			return nil
		}
		if d.kind != "view" {
			g.failf(e, "lookup of a nested dictionary %s", sdql.PrintFlat(e))
			return nil
		}
		return g.viewLookup(d, x)
	case *sdql.SumExpr, *sdql.DictExpr, *sdql.LetExpr:
		return &gvar{kind: "view", def: e, env: g.clone()}
	}
	g.failf(e, "cannot generate the dictionary %s", sdql.PrintFlat(e))
	return nil
}

// rangeView recognizes a view sum(<_, i> in (L:H)) { i -> V } (keys
// unique: the range's index).
func rangeView(def sdql.Expr) (s *sdql.SumExpr, rg *sdql.RangeExpr, val sdql.Expr, ok bool) {
	s, ok = def.(*sdql.SumExpr)
	if !ok {
		return
	}
	rg, ok = s.Src.(*sdql.RangeExpr)
	if !ok {
		return
	}
	var key sdql.Expr
	key, val, ok = single(s.Body)
	if !ok {
		return
	}
	key, _ = stripUnique(key)
	i := s.Val.Name
	if s.Key.Name != "_" && s.Key.Name != i {
		i = s.Key.Name
	}
	ok = isName(key, s.Val.Name) || isName(key, s.Key.Name)
	return
}

// viewLookup looks up the key of e in the view d whose values are
// dictionaries: a view of d's value at that key.
func (g *gogen) viewLookup(d *gvar, e *sdql.LookupExpr) *gvar {
	s, rg, val, ok := rangeView(d.def)
	if !ok {
		g.failf(e, "lookup into %s: only dictionaries indexed by a range are looked up in place", sdql.PrintFlat(d.def))
		return nil
	}
	kg := g.int(e.Key)
	k := g.name("k")
	g.p("%s := %s", k, kg)
	save := g.vars
	g.vars = cloneEnv(d.env)
	lo, hi := g.int(rg.Lo), g.int(rg.Hi)
	g.vars = save
	// a key outside the range is a missing row: the empty dictionary
	guard := fmt.Sprintf("%s <= %s && %s < %s", lo, k, k, hi)
	if d.guard != "" {
		guard = d.guard + " && " + guard
	}
	env := cloneEnv(d.env)
	for _, b := range []string{s.Key.Name, s.Val.Name} {
		if b != "_" {
			env[b] = &gvar{kind: "int", g: k}
		}
	}
	return &gvar{kind: "view", def: val, env: env, guard: guard}
}

func cloneEnv(m map[string]*gvar) map[string]*gvar {
	c := make(map[string]*gvar, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// lookup returns the scalar d(e.Key).
func (g *gogen) lookup(d *gvar, e *sdql.LookupExpr) string {
	switch d.kind {
	case "arrI", "arrR":
		return d.g + "[" + g.int(e.Key) + "]"
	case "map":
		return d.g + ".Get(" + g.int(e.Key) + ")"
	case "vec":
		return g.fn + "At(" + d.g + ", " + g.int(e.Key) + ")"
	case "view":
		s, rg, val, ok := rangeView(d.def)
		if !ok || kindOf(g.typeOf(val)) == kDict {
			return g.failf(e, "lookup into %s: only dictionaries indexed by a range are looked up in place", sdql.PrintFlat(d.def))
		}
		kg := g.int(e.Key)
		x := g.name("x")
		k := g.name("k")
		save := g.vars
		g.vars = cloneEnv(d.env)
		lo, hi := g.int(rg.Lo), g.int(rg.Hi)
		g.p("%s := 0.0", x)
		guard := ""
		if d.guard != "" {
			guard = d.guard + " && "
		}
		g.p("if %s := %s; %s%s <= %s && %s < %s {", k, kg, guard, lo, k, k, hi)
		for _, b := range []string{s.Key.Name, s.Val.Name} {
			if b != "_" {
				g.vars[b] = &gvar{kind: "int", g: k}
			}
		}
		g.p("%s = %s", x, g.real(val))
		g.p("}")
		g.vars = save
		return x
	}
	return g.failf(e, "lookup into %s", d.kind)
}

// let emits the bindings of a let: scalars as locals, dictionaries as
// views (iterated or looked up in place) or, when a use needs it, as
// locals built once.
func (g *gogen) let(e *sdql.LetExpr) {
	for i, b := range e.Names {
		v := e.Values[i]
		var rest sdql.Expr = e.Body
		switch kindOf(g.typeOf(v)) {
		case kReal, kInt:
			if b.Name == "_" || !mentions(rest, b.Name) && !laterMention(e, i, b.Name) {
				continue // dead: its computation would be an unused Go local
			}
			x := g.scalar(v, kindOf(g.typeOf(v)) == kInt)
			n := g.name(b.Name)
			g.p("%s := %s", n, x)
			kind := "real"
			if kindOf(g.typeOf(v)) == kInt {
				kind = "int"
			}
			g.vars[b.Name] = &gvar{kind: kind, g: n}
		case kBool:
			if b.Name == "_" || !mentions(rest, b.Name) && !laterMention(e, i, b.Name) {
				continue
			}
			x := g.boolean(v)
			n := g.name(b.Name)
			g.p("%s := %s", n, x)
			g.vars[b.Name] = &gvar{kind: "bool", g: n}
		default:
			if b.Name == "_" {
				continue
			}
			if id, ok := v.(*sdql.Ident); ok {
				g.vars[b.Name] = g.lookupVar(id)
				continue
			}
			if lk, ok := v.(*sdql.LookupExpr); ok {
				if d := g.dictRef(lk); d != nil {
					g.vars[b.Name] = d
				}
				continue
			}
			if g.inPlace(v, e, i, b.Name) {
				g.vars[b.Name] = &gvar{kind: "view", def: v, env: g.clone()}
				continue
			}
			g.materialize(b.Name, v)
		}
	}
}

func laterMention(e *sdql.LetExpr, i int, name string) bool {
	for _, v := range e.Values[i+1:] {
		if mentions(v, name) {
			return true
		}
	}
	return false
}

// inPlace reports whether the dictionary v bound to name is used in place:
// it is one loop (re-running it costs what iterating a built dictionary
// costs) and every use is a sum over it, a lookup a range-indexed
// dictionary answers, or an addition into the destination.
func (g *gogen) inPlace(v sdql.Expr, e *sdql.LetExpr, i int, name string) bool {
	s, ok := v.(*sdql.SumExpr)
	if !ok {
		return false
	}
	key, _, ok := single(s.Body)
	if !ok {
		return false
	}
	switch s.Src.(type) {
	case *sdql.RangeExpr, *sdql.SliceExpr:
	case *sdql.Ident:
	default:
		return false
	}
	_, _, _, isRange := rangeView(v)
	good := true
	var visit func(x sdql.Expr, parent sdql.Expr)
	visit = func(x sdql.Expr, parent sdql.Expr) {
		if !good {
			return
		}
		if isName(x, name) {
			switch p := parent.(type) {
			case *sdql.SumExpr:
				_, uniq := stripUnique(key)
				if p.Src != x || !isRange && !uniq && !linear(p.Body, p.Val.Name) {
					good = false
				}
			case *sdql.LookupExpr:
				if !isRange {
					good = false
				}
			case *sdql.LetExpr, nil:
			case *sdql.BinaryExpr:
				if p.Op != sdql.MUL && p.Op != sdql.ADD {
					good = false
				}
			default:
				good = false
			}
			return
		}
		for _, c := range sdql.Children(x) {
			visit(c, x)
		}
	}
	for _, x := range e.Values[i+1:] {
		visit(x, nil)
	}
	visit(e.Body, e)
	return good
}

// materialize builds the order-1 dictionary v into a local: a growable
// dense slice when it is built once (outside loops) and only looked up,
// else a map reset at each evaluation.
func (g *gogen) materialize(name string, v sdql.Expr) {
	if sdql.Order(g.typeOf(v)) != 1 {
		g.failf(v, "a nested dictionary built by a let (%s)", sdql.PrintFlat(v))
		return
	}
	n := g.name(name)
	saveLoops, saveW, saveSet, saveExt := g.loops, g.writes, g.setOK, g.extent
	g.loops = nil
	if g.nest == 0 {
		g.needVec = true
		g.p("var %s []float64", n)
		g.into(v, &gdest{local: n, vec: true})
		g.vars[name] = &gvar{kind: "vec", g: n}
	} else {
		g.needMap = true
		g.decls = append(g.decls, fmt.Sprintf("var %s %sMap", n, g.fn))
		g.p("%s.Reset()", n)
		g.into(v, &gdest{local: n, mapv: true})
		g.vars[name] = &gvar{kind: "map", g: n}
	}
	g.loops, g.writes, g.setOK, g.extent = saveLoops, saveW, saveSet, saveExt
}

// linear reports whether e is additive in name (so that a sum over a
// dictionary may visit a key once per contribution instead of once).
func linear(e sdql.Expr, name string) bool {
	if !mentions(e, name) {
		return false
	}
	switch e := e.(type) {
	case *sdql.Ident:
		return e.Name == name
	case *sdql.BinaryExpr:
		switch e.Op {
		case sdql.MUL:
			return linear(e.X, name) && !mentions(e.Y, name) || linear(e.Y, name) && !mentions(e.X, name)
		case sdql.QUO:
			return linear(e.X, name) && !mentions(e.Y, name)
		case sdql.ADD, sdql.SUB:
			return linear(e.X, name) && linear(e.Y, name)
		}
	case *sdql.UnaryExpr:
		return e.Op == sdql.SUB && linear(e.X, name)
	case *sdql.DictExpr:
		for _, en := range e.Entries {
			if mentions(en.Key, name) || !linear(en.Val, name) {
				return false
			}
		}
		return true
	case *sdql.SumExpr:
		if mentions(e.Src, name) || e.Key.Name == name || e.Val.Name == name {
			return false
		}
		return linear(e.Body, name)
	case *sdql.LetExpr:
		for i, v := range e.Values {
			if mentions(v, name) || e.Names[i].Name == name {
				return false
			}
		}
		return linear(e.Body, name)
	case *sdql.IfExpr:
		return !mentions(e.Cond, name) && linear(e.Then, name) && (e.Else == nil || linear(e.Else, name))
	}
	return false
}

// loop emits the loop of a sum, binding its variables, around body.
func (g *gogen) loop(e *sdql.SumExpr, body func()) {
	g.loopOver(e.Src, e.Key.Name, e.Val.Name, linear(e.Body, e.Val.Name), e.Body, body)
}

// loopOver emits a loop over the dictionary src binding key and val;
// linear tells whether the loop's body is additive in val.
func (g *gogen) loopOver(src sdql.Expr, key, val string, lin bool, bodyExpr sdql.Expr, body func()) {
	save := g.clone()
	defer func() { g.vars = save }()
	g.nloop++
	id := g.nloop
	g.nest++
	defer func() { g.nest-- }()
	g.loops = append(g.loops, id)
	defer func() { g.loops = g.loops[:len(g.loops)-1] }()
	bindInt := func(name, goName, hi string) {
		if name != "_" {
			g.vars[name] = &gvar{kind: "int", g: goName, hi: hi, loop: id, rng: hi != "?"}
		}
	}
	// bindVal binds the value of an array element to a local when it is
	// used more than once or in an inner loop, else to the expression.
	bindVal := func(name, kind, x string) {
		if name == "_" {
			return
		}
		if uses(bodyExpr, name) > 1 || inLoop(bodyExpr, name) {
			n := g.name(name)
			g.p("%s := %s", n, x)
			x = n
		}
		g.vars[name] = &gvar{kind: kind, g: x, loop: id}
	}
	switch s := src.(type) {
	case *sdql.RangeExpr:
		lo, hi := g.int(s.Lo), g.int(s.Hi)
		base := val
		if base == "_" {
			base = key
		}
		i := g.name(base)
		start := g.b.Len()
		g.p("for %s := %s; %s < %s; %s++ {", i, lo, i, hi, i)
		ext := "?"
		if lo == "0" {
			if e := g.inputExpr(s.Hi); e != "" {
				ext = e
			}
		}
		bindInt(key, i, ext)
		bindInt(val, i, ext)
		for _, n := range []string{key, val} {
			if n != "_" {
				g.vars[n].rng = true
			}
		}
		body()
		g.p("}")
		if lo == "0" && ext != "?" && isSimple(hi) {
			g.bce(start, i, hi)
		}
		return
	case *sdql.SliceExpr:
		if id, ok := s.X.(*sdql.Ident); ok {
			a := g.lookupVar(id)
			if a.kind == "arrI" || a.kind == "arrR" {
				lo, hi := g.int(s.Lo), g.int(s.Hi)
				p := g.name(nonBlank(key, "p"))
				start := g.b.Len()
				g.p("for %s, %s_end := %s, %s; %s < %s_end; %s++ {", p, p, lo, hi, p, p, p)
				bindInt(key, p, "?")
				bindVal(val, map[string]string{"arrI": "int", "arrR": "real"}[a.kind], a.g+"["+p+"]")
				body()
				g.p("}")
				g.bceSlice(start, p, lo, hi)
				return
			}
		}
		g.failf(s, "a sub-array of a computed dictionary")
		return
	}
	d := g.dictRef(src)
	if d == nil {
		return
	}
	switch d.kind {
	case "arrI", "arrR":
		p := g.name(nonBlank(key, "p"))
		g.p("for %s := range %s {", p, d.g)
		bindInt(key, p, "?")
		bindVal(val, map[string]string{"arrI": "int", "arrR": "real"}[d.kind], d.g+"["+p+"]")
		body()
		g.p("}")
	case "map":
		t := g.name("t")
		k := nonBlank(key, "_")
		if k != "_" {
			k = g.name(key)
		}
		g.p("for %s, %s := range %s.Keys {", t, k, d.g)
		bindInt(key, k, "?")
		bindVal(val, "real", d.g+".Vals["+t+"]")
		body()
		g.p("}")
	case "view":
		if !mentions(bodyExpr, key) {
			key = "_" // bound, an unused key would be an unused Go local
		}
		if !mentions(bodyExpr, val) {
			val = "_" // and so would an unused value
		}
		if d.guard != "" { // a missing row: no entries
			g.p("if %s {", d.guard)
		}
		g.loopView(d, key, val, lin, body)
		if d.guard != "" {
			g.p("}")
		}
	default:
		g.failf(src, "cannot iterate over %s", sdql.PrintFlat(src))
	}
}

// loopView iterates the view d = sum(<a, b> in S) { K -> V } in place:
// a loop over S binding key to K and val to V, valid when the keys K are
// unique or the body is additive in val.
func (g *gogen) loopView(d *gvar, key, val string, lin bool, body func()) {
	var def = d.def
	s, ok := def.(*sdql.SumExpr)
	if !ok {
		g.failf(def, "cannot iterate over %s in place", sdql.PrintFlat(def))
		return
	}
	K, V, ok := single(s.Body)
	if !ok {
		g.failf(def, "cannot iterate over %s in place", sdql.PrintFlat(def))
		return
	}
	_, _, _, isRange := rangeView(def)
	_, uniq := K.(*sdql.UniqueExpr)
	if !isRange && !uniq && !lin {
		g.failf(def, "iterating %s in place needs unique keys or a body additive in the value", sdql.PrintFlat(def))
		return
	}
	outer := g.vars
	g.vars = cloneEnv(d.env)
	innerLin := val == "_" || lin
	if val != "_" && kindOf(g.typeOf(V)) == kDict {
		innerLin = innerLin && linear(V, s.Val.Name)
	}
	g.loopOver(s.Src, s.Key.Name, s.Val.Name, innerLin, s.Body, func() {
		inner := g.vars
		env := cloneEnv(outer)
		if key != "_" {
			kk, _ := stripUnique(K)
			if id, ok := kk.(*sdql.Ident); ok && inner[id.Name] != nil {
				env[key] = inner[id.Name]
			} else {
				n := g.name(key)
				g.p("%s := %s", n, g.int(kk))
				env[key] = &gvar{kind: "int", g: n, hi: "?", loop: g.loops[len(g.loops)-1]}
			}
		}
		if val != "_" {
			if kindOf(g.typeOf(V)) == kDict {
				env[val] = &gvar{kind: "view", def: V, env: cloneEnv(inner)}
			} else {
				x := g.real(V)
				if strings.ContainsAny(x, " ()") {
					n := g.name(val)
					g.p("%s := %s", n, x)
					x = n
				}
				env[val] = &gvar{kind: "real", g: x}
			}
		}
		g.vars = env
		body()
		g.vars = inner
	})
	g.vars = outer
}

func nonBlank(s, def string) string {
	if s == "_" {
		return def
	}
	return s
}

func uses(e sdql.Expr, name string) int {
	n := 0
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if isName(x, name) {
			n++
		}
		return true
	})
	return n
}

func inLoop(e sdql.Expr, name string) bool {
	found := false
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if s, ok := x.(*sdql.SumExpr); ok && mentions(s.Body, name) {
			found = true
		}
		return !found
	})
	return found
}
