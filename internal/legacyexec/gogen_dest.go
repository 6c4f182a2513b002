// Destinations of the Go code generator: singleton constructions pushed
// into the innermost loops (destination-passing style).

package legacyexec

import (
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// ---- destinations

// gdest is where into adds: the kernel's destination at a level (row is
// the Go expression of the current row for GoRows' level 1), or a local.
type gdest struct {
	lvl   int
	row   string
	keys  []sdql.Expr // the keys on the path, for unique coverage
	local string
	vec   bool
	mapv  bool
	// bounded: local is a dense []float64 of a fixed len; keys outside
	// it are dropped (never read)
	bounded bool
}

// into emits statements adding s * e into d (s is "" for 1).
func (g *gogen) into(e sdql.Expr, d *gdest) { g.intoScaled(e, d, "") }

func (g *gogen) intoScaled(e sdql.Expr, d *gdest, s string) {
	switch e := e.(type) {
	case *sdql.DictExpr:
		for _, en := range e.Entries {
			if kindOf(g.typeOf(en.Val)) != kDict {
				g.write(d, en.Key, mulS(s, g.real(en.Val)))
				continue
			}
			g.descend(d, en.Key, en.Val, s)
		}
	case *sdql.SumExpr:
		e = g.hoist(e)
		if f, cond := g.flatten(e); f != nil {
			g.p("if %s {", cond)
			g.loop(f, func() { g.intoScaled(f.Body, d, s) })
			g.p("}")
			return
		}
		g.loop(e, func() { g.intoScaled(e.Body, d, s) })
	case *sdql.LetExpr:
		save := g.clone()
		g.let(e)
		g.intoScaled(e.Body, d, s)
		g.vars = save
	case *sdql.IfExpr:
		g.p("if %s {", g.boolean(e.Cond))
		save := g.clone()
		g.intoScaled(e.Then, d, s)
		g.vars = save
		if e.Else != nil {
			g.p("} else {")
			g.intoScaled(e.Else, d, s)
			g.vars = save
		}
		g.p("}")
		g.setOK = false
	case *sdql.BinaryExpr:
		switch e.Op {
		case sdql.ADD:
			g.intoScaled(e.X, d, s)
			g.intoScaled(e.Y, d, s)
			return
		case sdql.SUB:
			g.intoScaled(e.X, d, s)
			g.intoScaled(e.Y, d, mulS(s, "-1"))
			return
		case sdql.MUL:
			tx, ty := g.typeOf(e.X), g.typeOf(e.Y)
			switch {
			case isScalarType(tx):
				g.intoScaled(e.Y, d, g.scale(s, e.X))
				return
			case isScalarType(ty):
				g.intoScaled(e.X, d, g.scale(s, e.Y))
				return
			case isLeafDictType(tx) && isLeafDictType(ty):
				g.intoScaled(g.outer(e), d, s)
				return
			}
		}
		g.failf(e, "cannot generate %s of dictionaries", e.Op)
	case *sdql.Ident, *sdql.LookupExpr:
		v := g.dictRef(e)
		if v == nil {
			return
		}
		switch v.kind {
		case "view":
			if v.guard != "" { // a missing row: no entries
				g.p("if %s {", v.guard)
			}
			save := g.vars
			g.vars = cloneEnv(v.env)
			g.intoScaled(v.def, d, s)
			g.vars = save
			if v.guard != "" {
				g.p("}")
			}
		default:
			// add a built local or an array: a loop over it
			k, x := &sdql.Ident{Name: "k·"}, &sdql.Ident{Name: "v·"}
			sum := &sdql.SumExpr{Key: sdql.Binder{Name: k.Name}, Val: sdql.Binder{Name: x.Name}, Src: e,
				Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: k, Val: x}}}}
			g.extra[k], g.extra[x] = sdql.IntType, sdql.RealType
			g.extra[sum.Body] = g.typeOf(e)
			g.intoScaled(sum, d, s)
		}
	case *sdql.ZeroExpr:
	default:
		g.failf(e, "cannot generate the dictionary %s", sdql.PrintFlat(e))
	}
}

// scale returns a local holding s * x.
func (g *gogen) scale(s string, x sdql.Expr) string {
	v := mulS(s, g.real(x))
	if isSimple(v) {
		return v
	}
	c := g.name("c")
	g.p("%s := %s", c, v)
	return c
}

func isSimple(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return true
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// outer rewrites X * Y of leaf dictionaries as
// sum(<k1, v1> in X) { k1 -> sum(<k2, v2> in Y) { k2 -> v1 * v2 } }.
func (g *gogen) outer(e *sdql.BinaryExpr) sdql.Expr {
	g.nloop++
	n := strconv.Itoa(g.nloop)
	k1, v1, k2, v2 := &sdql.Ident{Name: "k·" + n}, &sdql.Ident{Name: "a·" + n}, &sdql.Ident{Name: "l·" + n}, &sdql.Ident{Name: "b·" + n}
	prod := &sdql.BinaryExpr{X: v1, Op: sdql.MUL, Y: v2}
	inner := &sdql.SumExpr{Key: sdql.Binder{Name: k2.Name}, Val: sdql.Binder{Name: v2.Name}, Src: e.Y,
		Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: k2, Val: prod}}}}
	out := &sdql.SumExpr{Key: sdql.Binder{Name: k1.Name}, Val: sdql.Binder{Name: v1.Name}, Src: e.X,
		Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: k1, Val: inner}}}}
	for _, x := range []sdql.Expr{k1, k2} {
		g.extra[x] = sdql.IntType
	}
	for _, x := range []sdql.Expr{v1, v2, prod} {
		g.extra[x] = sdql.RealType
	}
	g.extra[inner], g.extra[inner.Body] = g.typeOf(e.Y), g.typeOf(e.Y)
	g.extra[out.Body] = g.typeOf(e)
	g.extra[out] = g.typeOf(e)
	return out
}

// descend emits the child of d at key and adds s * val into it.
func (g *gogen) descend(d *gdest, key, val sdql.Expr, s string) {
	if d.local != "" || g.layout != GoRows || d.lvl != 0 {
		g.failf(key, "a nested dictionary into a %s destination", g.layout)
		return
	}
	row := g.name("row")
	g.p("%s := &dst[%s]", row, g.int(key))
	nd := &gdest{lvl: 1, row: row, keys: append(append([]sdql.Expr(nil), d.keys...), key)}
	g.intoScaled(val, nd, s)
}

// write emits the addition of v at key into d.
func (g *gogen) write(d *gdest, key sdql.Expr, v string) {
	k := g.int(key)
	switch {
	case d.vec:
		g.p("if %s >= len(%s) {", k, d.local)
		g.p("%s = %sGrow(%s, %s)", d.local, g.fn, d.local, k)
		g.p("}")
		g.p("%s[%s] += %s", d.local, k, v)
		return
	case d.mapv:
		g.p("%s.Add(%s, %s)", d.local, k, v)
		return
	case d.bounded:
		if !isSimple(k) {
			kk := g.name("j")
			g.p("%s := %s", kk, k)
			k = kk
		}
		if !isSimple(v) { // evaluated for every key, as the dictionary is
			x := g.name("x")
			g.p("%s := %s", x, v)
			v = x
		}
		g.p("if uint(%s) < uint(len(%s)) {", k, d.local)
		g.p("%s[%s] += %s", d.local, k, v)
		g.p("}")
		return
	}
	g.writes++
	keys := append(append([]sdql.Expr(nil), d.keys...), key)
	if !g.covered(keys) {
		g.setOK = false
	}
	switch {
	case g.layout == GoDense:
		if !g.shaped {
			ext := "?"
			if id, ok := key.(*sdql.Ident); ok {
				if x := g.vars[id.Name]; x != nil && x.hi != "" {
					ext = x.hi
				}
			}
			if g.extent == "" {
				g.extent = ext
			} else if g.extent != ext {
				g.extent = "?"
			}
		}
		g.p("dst[%s] +=: %s", k, v)
	case g.layout == GoMap:
		g.p("dst.Add(%s, %s)", k, v)
	case g.layout == GoRows && d.lvl == 1:
		g.p("%s.Add(%s, %s)", d.row, k, v)
	default:
		g.failf(key, "a scalar at the top level of a matrix destination")
	}
}

// covered reports whether each loop open in the destination's nest is
// indexed by a unique key of the path (so that keys never repeat).
func (g *gogen) covered(keys []sdql.Expr) bool {
	got := map[int]bool{}
	for _, k := range keys {
		u, isU := k.(*sdql.UniqueExpr)
		if isU {
			for _, n := range sdql.FreeVars(u.X) {
				if v := g.vars[n]; v != nil && v.loop != 0 {
					got[v.loop] = true
				}
			}
		} else if id, ok := k.(*sdql.Ident); ok {
			if v := g.vars[id.Name]; v != nil && v.loop != 0 && v.rng {
				got[v.loop] = true
			}
		}
	}
	for _, l := range g.loops {
		if !got[l] {
			return false
		}
	}
	return true
}

func mulS(s, v string) string {
	switch s {
	case "":
		return v
	case "-1":
		return "-" + paren(v)
	}
	return paren(s) + " * " + paren(v)
}

func paren(s string) string {
	if strings.ContainsAny(s, " +-*/") && !(strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balanced(s[1:len(s)-1])) {
		if strings.HasSuffix(s, ")") && !strings.ContainsAny(s[:strings.IndexByte(s, '(')+1], " +-*/") && isCall(s) {
			return s
		}
		return "(" + s + ")"
	}
	return s
}

func isCall(s string) bool {
	i := strings.IndexByte(s, '(')
	return i > 0 && balanced(s[i+1:len(s)-1])
}

func balanced(s string) bool {
	d := 0
	for _, r := range s {
		switch r {
		case '(', '[':
			d++
		case ')', ']':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}
