package ad

import "github.com/nablasd/nablasd/sdql"

// OnStoredPositions returns the gradient g of a scalar program with respect
// to an input whose value is x, given on exactly x's stored positions: g
// with every key of x added where g lacks it, at every level (0 at a
// position the program does not depend on, {} for an empty inner
// dictionary of x). It is how a gradient's structure is defined (DESIGN,
// "Gradients"): the executors compute the derivative program, which only
// builds the positions the program reads, and the gradient API completes
// it, so that every executor gives the same dictionary. g is updated in
// place when it is a dictionary; a scalar x leaves g as it is.
func OnStoredPositions(g, x sdql.Value) sdql.Value {
	xd, ok := x.(*sdql.Dict)
	if !ok {
		return g
	}
	gd, ok := g.(*sdql.Dict)
	if !ok {
		if !sdql.IsZero(g) {
			return g // not a gradient of x's shape: leave it alone
		}
		gd = sdql.NewDict()
	}
	complete(gd, xd)
	return gd
}

func complete(g, x *sdql.Dict) {
	x.Range(func(k int, xv sdql.Value) bool {
		gv, found := g.Get(k)
		switch xv := xv.(type) {
		case *sdql.Dict:
			inner, ok := gv.(*sdql.Dict)
			if !found || !ok {
				inner = sdql.NewDict()
				g.Set(k, inner)
			}
			complete(inner, xv)
		default:
			if !found {
				g.Set(k, sdql.Real(0))
			}
		}
		return true
	})
}
