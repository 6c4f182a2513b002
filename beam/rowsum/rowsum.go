// Package rowsum decides whether a program is a sum over the rows of one
// of its inputs, so that it can run on blocks of that input's rows, one
// block a worker, its partial results added by the semiring's + (what
// nablasd-beam --partition-rows does).
//
// Split A into row blocks A = A_1 + … + A_n, each holding some of A's rows
// whole (disjoint sets of its outermost keys). A program f is partitionable
// in A when f(A) = f(A_1) + … + f(A_n) for every such split, and f of an
// empty block is zero. The check is syntactic, on the logical program, and
// sound: it accepts only programs built by these rules, and refuses the
// others naming the first place that breaks them.
//
//   - A itself, and a sum over A's rows, sum(<i, r> in A) body, whose body
//     is row-local: it reads A only through i and r (no other use of A, nor
//     of a let variable computed from A). The body may be anything in r,
//     nonlinear too (a row is never split), so ½‖Ax − b‖²'s
//     sum(<i, r> in A) let d = r·x − b(i) in 0.5 * d * d is one.
//   - e1 + e2 and e1 - e2 of partitionable terms, -e; c * e, e * c and e / c
//     with c constant (not depending on A): scaling and the outer product
//     are linear.
//   - let x = v in e, x taking v's kind; if c then e1 else e2 with c
//     constant; { k -> e } with constant keys; e(k) with k constant;
//     sum(<k, v> in s) e over a constant s with e partitionable, or over a
//     partitionable s with e partitionable in v (a linear map of each
//     entry); zero[T] and {}.
//
// Refused, for example: a constant added to a sum over the rows (it would
// be counted once a block), a product of two terms that both depend on A
// (½‖Ax − b‖² written as let s = A·x − b in 0.5 * s·s), a function of such a
// term (a max, an exp, a comparison), and a row body that looks at other
// rows (A(i + 1)).
//
// Gradients: when f(A) = Σ_b f(A_b) for all values of the inputs, the
// gradient of f with respect to any input is the sum of the blocks'
// gradients too (differentiation is linear; with respect to A itself each
// block gives the gradient on its own stored positions). So a gradient job
// is checked on its logical program.
//
// Other inputs are broadcast whole to every block, except those whose
// every use is a lookup c(i) at the row key i of a row-local sum over A:
// only block b's rows of those are read with block b, so they are split
// along with A (Split.With).
package rowsum

import (
	"fmt"
	"slices"

	"github.com/nablasd/nablasd/sdql"
)

// Split is how a partitionable program is split: its partitioned input,
// and the inputs split along with it.
type Split struct {
	Input string
	With  []string // sorted
}

// Check decides whether prog (parsed from file, "" for inline text) is
// partitionable in the rows of input; candidates are the other inputs
// that may be split along (tables whose first mode is A's rows). The
// error is an *sdql.Error at the first place that breaks the rules, saying
// why.
func Check(file string, prog sdql.Expr, input string, candidates []string) (*Split, error) {
	c := &checker{file: file, input: input, uses: map[string]*use{}}
	for _, n := range candidates {
		if n != input {
			c.uses[n] = &use{}
		}
	}
	k := c.kind(prog, nil)
	if k != additive && k != zero {
		if c.why == nil {
			c.why = &sdql.Error{File: file, Pos: prog.Pos(), Msg: fmt.Sprintf("the program does not use %s", input)}
			if k == other {
				c.why.Msg = fmt.Sprintf("the program is not a sum over %s's rows", input)
			}
		}
		c.why.Msg = fmt.Sprintf("not a sum over the rows of %s: %s", input, c.why.Msg)
		return nil, c.why
	}
	s := &Split{Input: input}
	for n, u := range c.uses {
		if u.rowLookups > 0 && !u.elsewhere {
			s.With = append(s.With, n)
		}
	}
	slices.Sort(s.With)
	return s, nil
}

// kind is what an expression is with respect to the partitioned input.
type kind int

const (
	constant kind = iota // does not depend on it
	zero                 // a zero: both constant and additive
	additive             // f(A) = Σ_b f(A_b), and 0 on an empty block
	other                // depends on it otherwise
)

// use counts a candidate's uses: lookups at a row key of a row-local sum,
// and any other.
type use struct {
	rowLookups int
	elsewhere  bool
}

// scope is a variable in scope: its kind, and whether it is the key of
// a row-local sum over the input (rowKey) or its row.
type scope struct {
	name   string
	kind   kind
	rowKey bool
	next   *scope
}

func (s *scope) lookup(name string) *scope {
	for ; s != nil; s = s.next {
		if s.name == name {
			return s
		}
	}
	return nil
}

func bind(s *scope, b sdql.Binder, k kind) *scope {
	if b.Name == "" || b.Name == "_" {
		return s
	}
	return &scope{name: b.Name, kind: k, next: s}
}

type checker struct {
	file  string
	input string
	uses  map[string]*use
	why   *sdql.Error // the first reason found
}

// fail records the first reason a term is not partitionable.
func (c *checker) fail(pos sdql.Pos, format string, args ...any) kind {
	if c.why == nil {
		c.why = &sdql.Error{File: c.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	return other
}

func depends(k kind) bool { return k == additive || k == other }

// kind classifies e in scope s, visiting every subexpression once (so
// that every use of a candidate is counted).
func (c *checker) kind(e sdql.Expr, s *scope) kind {
	switch e := e.(type) {
	case *sdql.Ident:
		if v := s.lookup(e.Name); v != nil {
			return v.kind
		}
		if e.Name == c.input {
			return additive
		}
		if u := c.uses[e.Name]; u != nil {
			u.elsewhere = true
		}
		return constant
	case *sdql.IntLit:
		if e.Value == 0 {
			return zero
		}
		return constant
	case *sdql.RealLit:
		if e.Value == 0 {
			return zero
		}
		return constant
	case *sdql.BoolLit:
		return constant
	case *sdql.ZeroExpr:
		return zero
	case *sdql.SumExpr:
		return c.sum(e, s)
	case *sdql.DictExpr:
		if len(e.Entries) == 0 {
			return zero
		}
		ks := make([]kind, len(e.Entries))
		for i, en := range e.Entries {
			if kk := c.kind(en.Key, s); depends(kk) {
				c.fail(en.Key.Pos(), "a dictionary key depends on %s", c.input)
				ks[i] = other
				c.kind(en.Val, s)
				continue
			}
			ks[i] = c.kind(en.Val, s)
		}
		return c.join(e.Pos(), "a dictionary mixes entries that depend on %s with others that do not: those would be counted once a block", ks...)
	case *sdql.LookupExpr:
		if id, ok := e.X.(*sdql.Ident); ok && s.lookup(id.Name) == nil {
			if u := c.uses[id.Name]; u != nil {
				// a candidate looked up outside a row-local body: it is
				// broadcast whole (c.rowLocal counts the row lookups)
				u.elsewhere = true
				if kk := c.kind(e.Key, s); depends(kk) {
					return c.fail(e.Key.Pos(), "a lookup key depends on %s", c.input)
				}
				return constant
			}
		}
		x := c.kind(e.X, s)
		if kk := c.kind(e.Key, s); depends(kk) {
			return c.fail(e.Key.Pos(), "a lookup key depends on %s", c.input)
		}
		return x
	case *sdql.LetExpr:
		for i, b := range e.Names {
			s = bind(s, b, c.kind(e.Values[i], s))
		}
		return c.kind(e.Body, s)
	case *sdql.IfExpr:
		cond := c.kind(e.Cond, s)
		th := c.kind(e.Then, s)
		el := zero
		if e.Else != nil {
			el = c.kind(e.Else, s)
		}
		if depends(cond) {
			return c.fail(e.Cond.Pos(), "the condition depends on %s", c.input)
		}
		return c.join(e.Pos(), "one branch depends on "+c.input+" and the other does not (it would be counted once a block)", th, el)
	case *sdql.UnaryExpr:
		x := c.kind(e.X, s)
		if e.Op == sdql.SUB {
			return x
		}
		if depends(x) {
			return c.fail(e.Pos(), "not of a term that depends on %s", c.input)
		}
		return constant
	case *sdql.BinaryExpr:
		return c.binary(e, s)
	case *sdql.CallExpr:
		ks := []kind{c.kind(e.X, s)}
		if e.Y != nil {
			ks = append(ks, c.kind(e.Y, s))
		}
		for _, k := range ks {
			if depends(k) {
				return c.fail(e.Pos(), "%s(…) of a term that depends on %s is not a sum of its blocks' values", e.Op, c.input)
			}
		}
		return constant
	}
	// physical forms (ranges, sub-arrays, unique, onehot): constant when
	// nothing in them depends on the input
	k := constant
	for _, ch := range sdql.Children(e) {
		if depends(c.kind(ch, s)) {
			k = c.fail(e.Pos(), "%s depends on %s", sdql.PrintFlat(e), c.input)
		}
	}
	return k
}

// join is the kind of terms that are added up or chosen between: all
// constant, or all additive (zeros are both); mixed is refused with msg.
func (c *checker) join(pos sdql.Pos, msg string, ks ...kind) kind {
	hasConst, hasAdd := false, false
	for _, k := range ks {
		switch k {
		case other:
			return other
		case constant:
			hasConst = true
		case additive:
			hasAdd = true
		}
	}
	switch {
	case hasConst && hasAdd:
		return c.fail(pos, "%s", msg)
	case hasAdd:
		return additive
	case hasConst:
		return constant
	}
	return zero
}

func (c *checker) binary(e *sdql.BinaryExpr, s *scope) kind {
	x, y := c.kind(e.X, s), c.kind(e.Y, s)
	switch e.Op {
	case sdql.ADD, sdql.SUB:
		if (x == constant && y == additive) || (x == additive && y == constant) {
			t := e.Y
			if x == constant {
				t = e.X
			}
			return c.fail(t.Pos(), "%s a term that does not depend on %s: it would be counted once a block",
				map[sdql.Kind]string{sdql.ADD: "adds", sdql.SUB: "subtracts"}[e.Op], c.input)
		}
		return c.join(e.OpPos, "", x, y)
	case sdql.MUL:
		switch {
		case x == other || y == other:
			return other
		case x == zero || y == zero:
			return zero
		case x == additive && y == additive:
			return c.fail(e.OpPos, "multiplies two terms that both depend on %s: a product of sums is not the sum of the blocks' products", c.input)
		case x == additive || y == additive:
			return additive
		}
		return constant
	case sdql.QUO:
		switch {
		case depends(y):
			return c.fail(e.Y.Pos(), "divides by a term that depends on %s", c.input)
		case x == zero:
			return zero
		}
		return x
	}
	if depends(x) || depends(y) {
		return c.fail(e.OpPos, "%s on a term that depends on %s is not a sum of its blocks' values", e.Op, c.input)
	}
	return constant
}

// sum classifies sum(<k, v> in src) body.
func (c *checker) sum(e *sdql.SumExpr, s *scope) kind {
	if id, ok := e.Src.(*sdql.Ident); ok && id.Name == c.input && s.lookup(id.Name) == nil {
		saved := c.why
		c.why = nil
		if c.rowLocal(e, s) {
			c.why = saved
			return additive
		}
		// Not row-local: the general rule may still take it (a body
		// linear in the row). If it does not, the row-local rule's reason
		// is the clearer one.
		local := c.why
		c.why = nil
		k := c.general(e, s)
		switch {
		case saved != nil:
			c.why = saved
		case k == other:
			c.why = local
		default:
			c.why = nil
		}
		return k
	}
	return c.general(e, s)
}

// general classifies a sum by its source's kind: over a constant, the
// body's kind; over a partitionable term, partitionable when the body is
// (a linear map of each entry's value).
func (c *checker) general(e *sdql.SumExpr, s *scope) kind {
	src := c.kind(e.Src, s)
	switch src {
	case constant, zero:
		body := c.kind(e.Body, bind(bind(s, e.Key, constant), e.Val, constant))
		if src == zero {
			return zero
		}
		return body
	case additive:
		body := c.kind(e.Body, bind(bind(s, e.Key, constant), e.Val, additive))
		switch body {
		case additive, zero:
			return body
		case constant:
			return c.fail(e.Body.Pos(), "the sum over a term that depends on %s adds a term that does not depend on its entries' values", c.input)
		}
		return other
	}
	c.kind(e.Body, bind(bind(s, e.Key, other), e.Val, other))
	return other
}

// rowLocal reports whether the body of sum(<i, r> in A) reads A only
// through i and r; it counts the candidates' lookups c(i). When it is not,
// it records why (the general rule may still accept the sum; if it does
// not, that reason is the first reported).
func (c *checker) rowLocal(e *sdql.SumExpr, s *scope) bool {
	ok := true
	lookups := map[string]int{}
	var walk func(x sdql.Expr, s *scope)
	walk = func(x sdql.Expr, s *scope) {
		switch x := x.(type) {
		case *sdql.Ident:
			if v := s.lookup(x.Name); v != nil {
				if depends(v.kind) && !v.rowKey {
					ok = false
					c.fail(x.Pos(), "the body of the sum over %s's rows uses %s, which depends on all of %s (a row's term must depend on its row alone)", c.input, x.Name, c.input)
				}
				return
			}
			if x.Name == c.input {
				ok = false
				c.fail(x.Pos(), "the body of the sum over %s's rows uses %s again (a row's term must depend on its row alone: use %s)", c.input, c.input, e.Val.Name)
			}
			if u := c.uses[x.Name]; u != nil {
				u.elsewhere = true
			}
			return
		case *sdql.LookupExpr:
			id, isID := x.X.(*sdql.Ident)
			key, keyID := x.Key.(*sdql.Ident)
			if isID && keyID && s.lookup(id.Name) == nil && c.uses[id.Name] != nil {
				if v := s.lookup(key.Name); v != nil && v.rowKey && key.Name == e.Key.Name {
					lookups[id.Name]++
					return
				}
			}
		}
		kids := sdql.Children(x)
		for i, ch := range kids {
			inner := s
			for _, n := range sdql.Binders(x, i) {
				// variables bound inside the body depend on the row only
				inner = &scope{name: n, kind: constant, next: inner}
			}
			walk(ch, inner)
		}
	}
	body := s
	if e.Key.Name != "" && e.Key.Name != "_" {
		body = &scope{name: e.Key.Name, kind: constant, rowKey: true, next: body}
	}
	if e.Val.Name != "" && e.Val.Name != "_" {
		body = &scope{name: e.Val.Name, kind: constant, rowKey: true, next: body}
	}
	// the key and the row are marked rowKey (they depend on the row only);
	// only the key counts for lookups (checked by name above)
	walk(e.Body, body)
	if ok {
		for n, k := range lookups {
			c.uses[n].rowLookups += k
		}
	}
	return ok
}
