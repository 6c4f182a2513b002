package ad

import "github.com/nablasd/nablasd/sdql"

// cleanLets removes dead lets, substitutes lets of atoms and inlines lets
// whose variable is used once, not inside a sum body relative to the let.
// It needs no types; substitution renames binders to avoid capture.
func cleanLets(e sdql.Expr) sdql.Expr { return cleanLetsWith(sdql.NewFreeIndex(), e) }

// cleanLetsWith is cleanLets asking idx which names a term uses.
func cleanLetsWith(idx *sdql.FreeIndex, e sdql.Expr) sdql.Expr {
	let, ok := e.(*sdql.LetExpr)
	if !ok {
		kids := sdql.Children(e)
		if len(kids) == 0 {
			return e
		}
		nk := make([]sdql.Expr, len(kids))
		for i, k := range kids {
			nk[i] = cleanLetsWith(idx, k)
		}
		return sdql.WithChildren(e, nk)
	}
	names := append([]sdql.Binder(nil), let.Names...)
	values := append([]sdql.Expr(nil), let.Values...)
	body := let.Body
	var outN []sdql.Binder
	var outV []sdql.Expr
	for i := 0; i < len(names); i++ {
		n, v := names[i], cleanLetsWith(idx, values[i])
		if n.Name == "_" {
			continue // binds nothing; pure
		}
		count, inLoop := 0, false
		for j := i + 1; j < len(names); j++ {
			u := idx.Use(values[j], n.Name)
			count, inLoop = count+u.Count, inLoop || u.InLoop
			if names[j].Name == n.Name {
				break // shadowed from here on
			}
		}
		if !shadowedLater(names[i+1:], n.Name) {
			u := idx.Use(body, n.Name)
			count, inLoop = count+u.Count, inLoop || u.InLoop
		}
		switch {
		case count == 0:
			continue
		case (isAtom(v) || count == 1 && !inLoop) && !capturedLater(idx, v, names[i+1:], n.Name):
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
				values[i+1+j] = idx.Subst(values[i+1+j], s)
			}
			if k == len(rest) {
				// Subst may rename binders of the body; the names of this
				// let are not binders of the body, so they stay.
				body = idx.Subst(body, s)
			}
			continue
		}
		outN = append(outN, n)
		outV = append(outV, v)
	}
	body = cleanLetsWith(idx, body)
	if len(outN) == 0 {
		return body
	}
	return &sdql.LetExpr{Let: let.Let, Names: outN, Values: outV, Body: body}
}

// capturedLater reports whether a later name of the same let (up to a
// rebinding of name) would capture a free variable of v.
func capturedLater(idx *sdql.FreeIndex, v sdql.Expr, later []sdql.Binder, name string) bool {
	for _, b := range later {
		if b.Name == name {
			return false
		}
		if idx.Use(v, b.Name).Count > 0 {
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
