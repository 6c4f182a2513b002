package lower

import (
	"slices"

	"github.com/nablasd/nablasd/sdql"
)

// scalar lowers a scalar SDQL expression: statements it needs (loops of
// a reduction, a lookup's search) are emitted at the current point, and
// the returned expression reads the value.
func (l *lowerer) scalar(e sdql.Expr, env *scope) Expr {
	switch e := e.(type) {
	case *sdql.IntLit:
		if l.vkindOf(e) == kReal {
			return realConst(float64(e.Value))
		}
		return intConst(e.Value)
	case *sdql.RealLit:
		return realConst(e.Value)
	case *sdql.BoolLit:
		return boolConst(e.Value)
	case *sdql.Ident:
		b, ok := env.lookup(e.Name)
		if !ok {
			l.failf(e, "undefined: %s", e.Name)
		}
		sb, ok := b.(scalarB)
		if !ok {
			l.failf(e, "%s is not a scalar", e.Name)
		}
		return l.promote(sb.x, e)
	case *sdql.UniqueExpr:
		return l.scalar(e.X, env)
	case *sdql.UnaryExpr:
		x := l.scalar(e.X, env)
		if e.Op == sdql.NOT {
			return &Unary{Op: Not, X: x}
		}
		return &Unary{Op: Neg, X: x}
	case *sdql.BinaryExpr:
		return l.binary(e, env)
	case *sdql.CallExpr:
		args := []Expr{l.real(l.scalar(e.X, env))}
		if e.Y != nil {
			args = append(args, l.real(l.scalar(e.Y, env)))
		}
		return &Call{Fn: e.Op, Args: args}
	case *sdql.IfExpr:
		return l.ifScalar(e, env)
	case *sdql.LetExpr:
		return l.scalar(e.Body, l.let(e, env))
	case *sdql.SumExpr:
		return l.sumScalar(e, env)
	case *sdql.LookupExpr:
		return l.promote(l.lookupScalar(e, env), e)
	case *sdql.ZeroExpr:
		return zeroOf(kindOfType(e.T))
	case *sdql.OneHotExpr:
		if sdql.Order(e.T) <= 0 {
			return realConst(1)
		}
	}
	l.failf(e, "cannot lower %s as a scalar", sdql.PrintFlat(e))
	return nil
}

// promote converts an int read where the checker typed the expression
// real (an int variable in a real context).
func (l *lowerer) promote(x Expr, e sdql.Expr) Expr {
	if l.vkindOf(e) == kReal {
		return l.real(x)
	}
	return x
}

// real converts an int expression to real.
func (l *lowerer) real(x Expr) Expr {
	switch x.Kind() {
	case Real:
		return x
	case Int:
		if c, ok := x.(*Const); ok {
			return realConst(float64(c.I))
		}
		return &Unary{Op: ToReal, X: x}
	}
	// a bool as a number: 1 or 0
	return &Select{Cond: x, Then: realConst(1), Else: realConst(0)}
}

func (l *lowerer) binary(e *sdql.BinaryExpr, env *scope) Expr {
	x, y := l.scalar(e.X, env), l.scalar(e.Y, env)
	var op BinaryOp
	switch e.Op {
	case sdql.ADD:
		op = Add
		if x.Kind() == Bool && y.Kind() == Bool {
			op = Or
		}
	case sdql.SUB:
		op = Sub
	case sdql.MUL:
		op = Mul
		if x.Kind() == Bool && y.Kind() == Bool {
			op = And
		}
	case sdql.QUO:
		return &Binary{Op: Div, X: l.real(x), Y: l.real(y)}
	case sdql.LT:
		op = Lt
	case sdql.LEQ:
		op = Le
	case sdql.GT:
		return &Binary{Op: Lt, X: l.numeric(y, x), Y: l.numeric(x, y)}
	case sdql.GEQ:
		return &Binary{Op: Le, X: l.numeric(y, x), Y: l.numeric(x, y)}
	case sdql.EQ:
		op = Eq
	case sdql.NEQ:
		op = Ne
	case sdql.LAND:
		return &Binary{Op: And, X: x, Y: y}
	case sdql.LOR:
		return &Binary{Op: Or, X: x, Y: y}
	default:
		l.failf(e, "cannot lower the operator %s", e.Op)
	}
	if op == Lt || op == Le || op == Eq || op == Ne {
		if x.Kind() == Bool || y.Kind() == Bool {
			return &Binary{Op: op, X: x, Y: y}
		}
		return &Binary{Op: op, X: l.numeric(x, y), Y: l.numeric(y, x)}
	}
	if op == Or || op == And {
		return &Binary{Op: op, X: x, Y: y}
	}
	if l.vkindOf(e) == kReal {
		return &Binary{Op: op, X: l.real(x), Y: l.real(y)}
	}
	return &Binary{Op: op, X: x, Y: y}
}

// condition lowers an if's condition, decided where the facts decide it.
func (l *lowerer) condition(e sdql.Expr, env *scope) Expr { return l.decide(l.scalar(e, env)) }

// decide returns the constant true for a condition the facts decide:
// each of its conjuncts is 0 <= v for a non-negative v, or v < n for a v
// known below the parameter n (a loop's variable, a key of a level whose
// extent is n or equals it, a branch that tested it). Any other condition
// is returned as it is: a conjunct it cannot decide keeps the whole test,
// whose form the primitives and the facts of its branch read.
func (l *lowerer) decide(cond Expr) Expr {
	for _, c := range Conjuncts(cond) {
		if !l.holds(c) {
			return cond
		}
	}
	return boolConst(true)
}

// holds reports whether the comparison c is known to be true (decide).
func (l *lowerer) holds(c Expr) bool {
	b, ok := c.(*Binary)
	if !ok {
		return isTrue(c)
	}
	switch b.Op {
	case Le:
		r, ok := b.Y.(*Ref)
		return ok && isConst(b.X, 0) && b.X.Kind() == Int && (l.nonneg[r.V] || len(l.below[r.V]) > 0)
	case Lt:
		v, ok := b.X.(*Ref)
		n, ok2 := b.Y.(*Ref)
		return ok && ok2 && slices.Contains(l.below[v.V], n.V)
	}
	return false
}

// isTrue reports whether e is the constant true.
func isTrue(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.K == Bool && c.I != 0
}

// numeric promotes x to real when the other operand of a comparison is
// real.
func (l *lowerer) numeric(x, other Expr) Expr {
	if other.Kind() == Real && x.Kind() != Real {
		return l.real(x)
	}
	return x
}

// ifScalar lowers a scalar if: a Select when neither branch needs
// statements, else a variable set in an If.
func (l *lowerer) ifScalar(e *sdql.IfExpr, env *scope) Expr {
	cond := l.condition(e.Cond, env)
	k := kindOfType(l.typeOf(e))
	var t, f Expr
	then := l.nested(func() { t = l.coerce(l.scalar(e.Then, l.assume(env, cond)), k) })
	var els *Block
	if e.Else != nil {
		els = l.nested(func() { f = l.coerce(l.scalar(e.Else, env), k) })
	} else {
		els, f = &Block{}, zeroOf(k)
	}
	if c, ok := cond.(*Const); ok {
		if c.I != 0 {
			l.out.List = append(l.out.List, then.List...)
			return t
		}
		l.out.List = append(l.out.List, els.List...)
		return f
	}
	if len(then.List) == 0 && len(els.List) == 0 {
		return &Select{Cond: cond, Then: t, Else: f}
	}
	v := l.newVar("c", k)
	l.emit(&Let{V: v, X: zeroOf(k)})
	then.List = append(then.List, &Assign{V: v, Op: Set, X: t})
	els.List = append(els.List, &Assign{V: v, Op: Set, X: f})
	l.emit(&If{Cond: cond, Then: then, Else: els})
	return &Ref{V: v}
}

// coerce converts x to kind k (an int branch of a real if).
func (l *lowerer) coerce(x Expr, k Kind) Expr {
	if k == Real && x.Kind() != Real {
		return l.real(x)
	}
	return x
}

// sumScalar lowers a sum with a scalar body: an accumulator added to in
// the loops of the source.
func (l *lowerer) sumScalar(e *sdql.SumExpr, env *scope) Expr {
	k := kindOfType(l.typeOf(e))
	acc := l.newVar("s", k)
	l.emit(&Let{V: acc, X: zeroOf(k)})
	l.iterate(e.Src, env, l.piecewise(e.Body, e.Val.Name), func(key Expr, val binding) {
		inner := env.bind(e.Key.Name, scalarB{key}).bind(e.Val.Name, val)
		x := l.coerce(l.scalar(e.Body, inner), k)
		if !isConst(x, 0) || k == Bool {
			l.emit(&Assign{V: acc, Op: AddTo, X: x})
		}
	})
	return &Ref{V: acc}
}

// let binds the names of a let in order: scalars to variables (literals
// and variables directly), arrays to arrays, dictionaries to views or
// materialized tensors (views.go).
func (l *lowerer) let(e *sdql.LetExpr, env *scope) *scope {
	for i, n := range e.Names {
		v := e.Values[i]
		switch l.vkindOf(v) {
		case kDict:
			if n.Name == "_" {
				continue
			}
			env = env.bind(n.Name, dictB{l.bindDict(n.Name, v, e, i, env)})
		case kArray:
			if id, ok := v.(*sdql.Ident); ok {
				b, _ := env.lookup(id.Name)
				env = env.bind(n.Name, b)
				continue
			}
			// a range or a sub-array (the ANF of a derivative binds a
			// range its two sweeps share): a view, read where it is used
			// as if written there (arrayView)
			env = env.bind(n.Name, dictB{viewD{v, env}})
		default:
			if n.Name == "_" {
				continue
			}
			x := l.scalar(v, env)
			switch x.(type) {
			case *Const, *Ref:
				env = env.bind(n.Name, scalarB{x})
				continue
			}
			t := l.newVar(n.Name, x.Kind())
			l.emit(&Let{V: t, X: x})
			if x.Kind() == Int {
				// what is known of index arithmetic holds of its name
				l.letOf[t] = x
			}
			env = env.bind(n.Name, scalarB{&Ref{V: t}})
		}
	}
	return env
}
