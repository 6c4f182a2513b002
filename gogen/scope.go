package gogen

import "github.com/nablasd/nablasd/lower"

// Variables. The IR's variables are single slots (a Let sets, it does not
// shadow), and a variable may be read outside the block that sets it;
// Go's are block-scoped. The generator declares a variable where the IR
// first sets it, when every later use is in that Go block, and at the top
// of the function otherwise (hoisted). Variables nothing reads are not
// declared, and the statements setting them are dropped (expressions have
// no effects), so that Go never sees an unused local.

// analyze computes the read variables (to a fixpoint: a variable read
// only by dropped statements is not read) and the hoisted ones, by a walk
// that opens and closes scopes exactly as the emission does.
func (g *gen) analyze() {
	g.read = nil // every statement live
	read := map[*lower.Var]bool{}
	g.walkLive(g.p.Body, func(e lower.Expr) {
		lower.WalkExpr(e, func(x lower.Expr) {
			if r, ok := x.(*lower.Ref); ok {
				read[r.V] = true
			}
		})
	})
	g.read = read
	if g.p.ResultVar != nil {
		g.read[g.p.ResultVar] = true
	}
	for {
		read := map[*lower.Var]bool{}
		if g.p.ResultVar != nil {
			read[g.p.ResultVar] = true
		}
		g.walkLive(g.p.Body, func(e lower.Expr) {
			lower.WalkExpr(e, func(x lower.Expr) {
				if r, ok := x.(*lower.Ref); ok {
					read[r.V] = true
				}
			})
		})
		same := len(read) == len(g.read)
		g.read = read
		if same {
			break
		}
	}
	g.hoisted = map[*lower.Var]bool{}
	g.scopes = []map[*lower.Var]bool{{}}
	g.scopeStmt(g.p.Body)
	if v := g.p.ResultVar; v != nil {
		g.use(v)
	}
	g.scopes = []map[*lower.Var]bool{{}}
}

// live reports whether a statement is emitted: lets and assignments of
// variables nothing reads are not (before the liveness is known, every
// statement is).
func (g *gen) live(s lower.Stmt) bool {
	if g.read == nil {
		return true
	}
	switch s := s.(type) {
	case *lower.Let:
		return g.read[s.V]
	case *lower.Assign:
		return g.read[s.V]
	}
	return true
}

// walkLive calls f for the top expressions of every live statement.
func (g *gen) walkLive(s lower.Stmt, f func(lower.Expr)) {
	lower.WalkStmts(s, func(x lower.Stmt) {
		if g.live(x) {
			topExprs(x, f)
		}
	})
}

// topExprs calls f for the expressions a statement evaluates itself (not
// those of the statements it contains).
func topExprs(x lower.Stmt, f func(lower.Expr)) {
	{
		switch x := x.(type) {
		case *lower.Let:
			f(x.X)
		case *lower.Assign:
			f(x.X)
		case *lower.If:
			f(x.Cond)
		case *lower.For:
			f(x.Lo)
			f(x.Hi)
		case *lower.ForLevel:
			f(x.Parent)
		case *lower.Search:
			f(x.Lo)
			f(x.Hi)
			f(x.Key)
		case *lower.Insert:
			for _, e := range insertExprs(x) {
				f(e)
			}
		case *lower.Locate:
			f(x.Parent)
			f(x.Key)
		case *lower.Store:
			f(x.Pos)
			f(x.X)
		case *lower.Init:
			for _, l := range x.T.Levels {
				if l.Size != nil {
					f(l.Size)
				}
			}
		case *lower.Fail:
			for _, a := range x.Args {
				f(a)
			}
		case *lower.Transpose:
			f(x.Lo)
			f(x.Hi)
		}
	}
}

// insertExprs are the expressions an Insert evaluates: the position
// alone when it is given (a positions level), else the parent and key.
func insertExprs(s *lower.Insert) []lower.Expr {
	if s.At != nil && s.T.Levels[s.Level].Storage == lower.Positions {
		return []lower.Expr{s.At}
	}
	return []lower.Expr{s.Parent, s.Key}
}

func (g *gen) isParam(v *lower.Var) bool {
	for _, pa := range g.p.Params {
		if pa.Var == v {
			return true
		}
	}
	return false
}

// visible reports whether v is declared in an enclosing Go scope.
func (g *gen) visible(v *lower.Var) bool {
	if g.hoisted[v] || g.isParam(v) {
		return true
	}
	for i := len(g.scopes) - 1; i >= 0; i-- {
		if g.scopes[i][v] {
			return true
		}
	}
	return false
}

func (g *gen) push() { g.scopes = append(g.scopes, map[*lower.Var]bool{}) }
func (g *gen) pop()  { g.scopes = g.scopes[:len(g.scopes)-1] }

// declare records v as declared in the innermost scope.
func (g *gen) declare(v *lower.Var) { g.scopes[len(g.scopes)-1][v] = true }

// use records a use of v, hoisting it when it is not visible.
func (g *gen) use(v *lower.Var) {
	if !g.visible(v) {
		g.hoisted[v] = true
	}
}

func (g *gen) scopeExpr(e lower.Expr) {
	lower.WalkExpr(e, func(x lower.Expr) {
		if r, ok := x.(*lower.Ref); ok {
			g.use(r.V)
		}
	})
}

// bindScope is the analysis of a binding: declare v unless visible.
func (g *gen) bindScope(v *lower.Var) {
	if v != nil && g.read[v] && !g.visible(v) {
		g.declare(v)
	}
}

func (g *gen) scopeStmt(s lower.Stmt) {
	switch s := s.(type) {
	case nil:
	case *lower.Block:
		for _, x := range s.List {
			g.scopeStmt(x)
		}
	case *lower.Let:
		if g.read[s.V] {
			g.scopeExpr(s.X)
			g.bindScope(s.V)
		}
	case *lower.Assign:
		if g.read[s.V] {
			g.scopeExpr(s.X)
			g.use(s.V)
		}
	case *lower.If:
		g.scopeExpr(s.Cond)
		g.push()
		g.scopeStmt(s.Then)
		g.pop()
		g.push()
		g.scopeStmt(s.Else)
		g.pop()
	case *lower.For:
		g.scopeExpr(s.Lo)
		g.scopeExpr(s.Hi)
		g.push()
		g.bindScope(s.V)
		g.scopeStmt(s.Body)
		g.pop()
	case *lower.ForLevel:
		g.scopeExpr(s.Parent)
		g.push()
		g.bindScope(s.Key)
		g.bindScope(s.Pos)
		g.scopeStmt(s.Body)
		g.pop()
	case *lower.Search:
		g.scopeExpr(s.Lo)
		g.scopeExpr(s.Hi)
		g.scopeExpr(s.Key)
		g.push()
		g.bindScope(s.Pos)
		g.scopeStmt(s.Body)
		g.pop()
	case *lower.Insert:
		for _, e := range insertExprs(s) {
			g.scopeExpr(e)
		}
		g.bindScope(s.Pos)
	case *lower.Locate:
		g.scopeExpr(s.Parent)
		g.scopeExpr(s.Key)
		g.push()
		g.bindScope(s.Pos)
		g.scopeStmt(s.Body)
		g.pop()
	case *lower.Store:
		g.scopeExpr(s.Pos)
		g.scopeExpr(s.X)
	case *lower.Init:
		for _, l := range s.T.Levels {
			if l.Size != nil {
				g.scopeExpr(l.Size)
			}
		}
	case *lower.Fail:
		for _, a := range s.Args {
			g.scopeExpr(a)
		}
	case *lower.Transpose:
		g.scopeExpr(s.Lo)
		g.scopeExpr(s.Hi)
		g.bindScope(s.N)
	}
}

// bind emits the binding of v to a Go expression: a declaration where v
// is first set in its scope, an assignment otherwise; nothing when
// nothing reads v.
func (g *gen) bind(v *lower.Var, code string) {
	if v == nil || !g.read[v] {
		return
	}
	name := g.vars[v]
	if g.visible(v) {
		g.line("%s = %s", name, code)
		return
	}
	g.line("%s := %s", name, code)
	g.declare(v)
}
