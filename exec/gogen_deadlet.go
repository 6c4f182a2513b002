package exec

import "github.com/nablasd/nablasd/sdql"

// dropDeadLets removes the bindings of lets whose names nothing uses,
// bottom-up, so that a binding used only by a dead one goes too. The
// language is pure, so this keeps the program's value; the generated Go
// needs it because Go refuses a local that is declared and never used.
// It returns e itself when nothing is dead.
func dropDeadLets(e sdql.Expr) sdql.Expr {
	changed := false
	out := sdql.Transform(e, func(n sdql.Expr) sdql.Expr {
		let, ok := n.(*sdql.LetExpr)
		if !ok {
			return n
		}
		live := map[string]bool{}
		for _, v := range sdql.FreeVars(let.Body) {
			live[v] = true
		}
		keep := make([]bool, len(let.Names))
		kept := 0
		for j := len(let.Names) - 1; j >= 0; j-- {
			name := let.Names[j].Name
			if name == "_" || !live[name] {
				continue
			}
			keep[j] = true
			kept++
			delete(live, name)
			for _, v := range sdql.FreeVars(let.Values[j]) {
				live[v] = true
			}
		}
		if kept == len(let.Names) {
			return n
		}
		changed = true
		if kept == 0 {
			return let.Body
		}
		c := &sdql.LetExpr{Let: let.Let, Body: let.Body}
		for j, k := range keep {
			if k {
				c.Names = append(c.Names, let.Names[j])
				c.Values = append(c.Values, let.Values[j])
			}
		}
		return c
	})
	if !changed {
		return e
	}
	return out
}
