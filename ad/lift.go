package ad

import (
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Lift moves the lets named in names out of the loops that hold them, in a
// program in ANF (the let-lifting of "Differentiating a Tensor Language",
// rule 5.7, generalised to nests): inside
//
//	sum(<i, r> in A) ... let z = e0 in ...
//
// z becomes a lookup into a dictionary of its values, one per iteration,
// computed once before the loop:
//
//	let Z = sum(<i, r> in A) { i -> e0 } in
//	sum(<i, r> in A) ... let z = Z(i) in ...
//
// A let under several sums is keyed by all their keys, Z(i)(j); an if on
// the way keeps its condition (if c then ...), and the lets of the
// enclosing scopes that e0, a source or a condition mentions are repeated
// in the tape's loops (lifted ones are lookups by then). The tape is bound
// right before the outermost let whose value holds the loop. Keys are
// distinct within a sum (the source is a dictionary), so every iteration
// finds its own value. A lifted let must be bound inside at least one sum;
// others are left as they are.
//
// Reverse mode lifts the residuals its linear part needs (residuals), so
// that the reverse sweep reads each from its tape instead of recomputing
// the loop that made it. The result computes the same value as e; it is
// no longer in ANF (the tapes' entries are not atoms).
func Lift(e sdql.Expr, names map[string]bool) sdql.Expr {
	l := &lifter{names: names, fresh: newNamer(e)}
	return l.top(e)
}

type lifter struct {
	names  map[string]bool
	fresh  *namer
	frames []*frame
	tapes  []binding // tapes of the current top-level let
}

// frame is a sum or an if enclosing the current point, with the lets of its
// scope seen so far.
type frame struct {
	sum   *sdql.SumExpr // nil for an if
	key   string        // the sum's key, named if it was _ and a tape needed it
	cond  sdql.Expr     // the if's condition, negated for an else branch
	scope []binding
}

// top processes the top-level scope: tapes go right before the let whose
// value made them.
func (l *lifter) top(e sdql.Expr) sdql.Expr {
	bs, body := letChain(e)
	var out []binding
	for _, b := range bs {
		v := l.value(b.val)
		out = append(out, l.tapes...)
		l.tapes = nil
		out = append(out, binding{b.name, v})
	}
	return wrapLets(out, body)
}

// letChain splits a chain of lets into its bindings and its body.
func letChain(e sdql.Expr) ([]binding, sdql.Expr) {
	var bs []binding
	for {
		let, ok := e.(*sdql.LetExpr)
		if !ok {
			return bs, e
		}
		for i, n := range let.Names {
			bs = append(bs, binding{n, let.Values[i]})
		}
		e = let.Body
	}
}

// value processes a let's value: the scopes of its sums and ifs.
func (l *lifter) value(e sdql.Expr) sdql.Expr {
	switch x := e.(type) {
	case *sdql.SumExpr:
		f := &frame{sum: x, key: x.Key.Name}
		l.frames = append(l.frames, f)
		body := l.scope(x.Body)
		l.frames = l.frames[:len(l.frames)-1]
		return &sdql.SumExpr{Sum: x.Sum, Key: sdql.Binder{NamePos: x.Key.NamePos, Name: f.key}, Val: x.Val, Src: x.Src, Body: body}
	case *sdql.IfExpr:
		out := &sdql.IfExpr{If: x.If, Cond: x.Cond}
		l.frames = append(l.frames, &frame{cond: x.Cond})
		out.Then = l.scope(x.Then)
		l.frames = l.frames[:len(l.frames)-1]
		if x.Else != nil {
			l.frames = append(l.frames, &frame{cond: &sdql.UnaryExpr{Op: sdql.NOT, X: x.Cond}})
			out.Else = l.scope(x.Else)
			l.frames = l.frames[:len(l.frames)-1]
		}
		return out
	}
	return e
}

// scope processes the let chain of a sum body or an if branch.
func (l *lifter) scope(e sdql.Expr) sdql.Expr {
	f := l.frames[len(l.frames)-1]
	saved := f.scope
	f.scope = nil
	bs, body := letChain(e)
	var out []binding
	for _, b := range bs {
		v := l.value(b.val)
		if l.names[b.name.Name] && l.inLoop() {
			v = l.tape(b.name.Name, v)
		}
		out = append(out, binding{b.name, v})
		f.scope = append(f.scope, binding{b.name, v})
	}
	f.scope = saved
	return wrapLets(out, body)
}

func (l *lifter) inLoop() bool {
	for _, f := range l.frames {
		if f.sum != nil {
			return true
		}
	}
	return false
}

// tape records the tape of a let's value v at the current point and
// returns the lookup that replaces v.
func (l *lifter) tape(name string, v sdql.Expr) sdql.Expr {
	inner := clone(v)
	for i := len(l.frames) - 1; i >= 0; i-- {
		f := l.frames[i]
		if f.sum != nil {
			if f.key == "_" {
				f.key = l.fresh.fresh("k")
			}
			inner = &sdql.DictExpr{Entries: []sdql.Entry{{Key: ident(f.key), Val: inner}}}
		}
		inner = wrapNeeded(f.scope, inner)
		if f.sum != nil {
			inner = &sdql.SumExpr{Key: binder(f.key), Val: f.sum.Val, Src: clone(f.sum.Src), Body: inner}
		} else {
			inner = &sdql.IfExpr{Cond: clone(f.cond), Then: inner}
		}
	}
	t := l.fresh.fresh(tapeName(name))
	l.tapes = append(l.tapes, binding{binder(t), inner})
	var look sdql.Expr = ident(t)
	for _, f := range l.frames {
		if f.sum != nil {
			look = &sdql.LookupExpr{X: look, Key: ident(f.key)}
		}
	}
	return look
}

// tapeName is the name of the tape of a let: its name capitalised with
// "tape" appended, so that it reads as a dictionary (t3 ↦ T3tape).
func tapeName(name string) string {
	stem := strings.TrimRight(name, "'")
	if stem == "" || stem == "_" {
		stem = "x"
	}
	return strings.ToUpper(stem[:1]) + stem[1:] + "tape"
}

// wrapNeeded wraps body in those of the bindings (copied) that it needs,
// directly or through another needed binding; the others are dropped.
func wrapNeeded(bs []binding, body sdql.Expr) sdql.Expr {
	need := map[string]bool{}
	for _, v := range sdql.FreeVars(body) {
		need[v] = true
	}
	var keep []binding
	for i := len(bs) - 1; i >= 0; i-- {
		b := bs[i]
		if !need[b.name.Name] {
			continue
		}
		delete(need, b.name.Name)
		keep = append(keep, binding{b.name, clone(b.val)})
		for _, v := range sdql.FreeVars(b.val) {
			need[v] = true
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return wrapLets(keep, body)
}
