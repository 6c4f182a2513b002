package ad

import "github.com/nablasd/nablasd/sdql"

// cleanLets removes dead lets, substitutes lets of atoms and inlines lets
// whose variable is used once, not inside a sum body relative to the let.
// It needs no types; substitution renames binders to avoid capture.
func cleanLets(e sdql.Expr) sdql.Expr {
	let, ok := e.(*sdql.LetExpr)
	if !ok {
		kids := sdql.Children(e)
		if len(kids) == 0 {
			return e
		}
		nk := make([]sdql.Expr, len(kids))
		for i, k := range kids {
			nk[i] = cleanLets(k)
		}
		return sdql.WithChildren(e, nk)
	}
	names := append([]sdql.Binder(nil), let.Names...)
	values := append([]sdql.Expr(nil), let.Values...)
	body := let.Body
	var outN []sdql.Binder
	var outV []sdql.Expr
	for i := 0; i < len(names); i++ {
		n, v := names[i], cleanLets(values[i])
		if n.Name == "_" {
			continue // binds nothing; pure
		}
		count, inLoop := 0, false
		for j := i + 1; j < len(names); j++ {
			c, l := uses(values[j], n.Name)
			count, inLoop = count+c, inLoop || l
			if names[j].Name == n.Name {
				break // shadowed from here on
			}
		}
		if !shadowedLater(names[i+1:], n.Name) {
			c, l := uses(body, n.Name)
			count, inLoop = count+c, inLoop || l
		}
		switch {
		case count == 0:
			continue
		case (isAtom(v) || count == 1 && !inLoop) && !capturedLater(v, names[i+1:], n.Name):
			// substitute into the later values and the body, up to a
			// rebinding of the same name
			s := map[string]sdql.Expr{n.Name: v}
			rest := names[i+1:]
			k := len(rest)
			for j, b := range rest {
				if b.Name == n.Name {
					k = j
					break
				}
			}
			for j := 0; j <= k && j < len(rest); j++ {
				values[i+1+j] = sdql.Subst(values[i+1+j], s)
			}
			if k == len(rest) {
				// Subst may rename binders of the body; the names of this
				// let are not binders of the body, so they stay.
				body = sdql.Subst(body, s)
			}
			continue
		}
		outN = append(outN, n)
		outV = append(outV, v)
	}
	body = cleanLets(body)
	if len(outN) == 0 {
		return body
	}
	return &sdql.LetExpr{Let: let.Let, Names: outN, Values: outV, Body: body}
}

// capturedLater reports whether a later name of the same let (up to a
// rebinding of name) would capture a free variable of v.
func capturedLater(v sdql.Expr, later []sdql.Binder, name string) bool {
	fv := map[string]bool{}
	for _, x := range sdql.FreeVars(v) {
		fv[x] = true
	}
	for _, b := range later {
		if b.Name == name {
			return false
		}
		if fv[b.Name] {
			return true
		}
	}
	return false
}

func shadowedLater(names []sdql.Binder, name string) bool {
	for _, b := range names {
		if b.Name == name {
			return true
		}
	}
	return false
}

// uses counts the free occurrences of name in e and reports whether one of
// them is inside a sum body.
func uses(e sdql.Expr, name string) (count int, inLoop bool) {
	var walk func(e sdql.Expr, loop bool)
	walk = func(e sdql.Expr, loop bool) {
		if id, ok := e.(*sdql.Ident); ok {
			if id.Name == name {
				count++
				inLoop = inLoop || loop
			}
			return
		}
		_, isSum := e.(*sdql.SumExpr)
		for i, k := range sdql.Children(e) {
			bound := false
			for _, b := range sdql.Binders(e, i) {
				bound = bound || b == name
			}
			if bound {
				continue
			}
			walk(k, loop || isSum && i == 1)
		}
	}
	walk(e, false)
	return count, inLoop
}
