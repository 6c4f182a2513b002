package ad

import (
	"github.com/nablasd/nablasd/sdql"
)

// unzipped is a tangent program split in two ("You Only Linearize Once",
// U): the primal sweep, the non-linear lets at the top level (the
// program's own values and the tapes Lift made), and the linear program,
// which mentions the primal ones and the wrt tangents. Inside the linear
// program's loops only light non-linear lets remain (lookups into tapes,
// scalar arithmetic such as the derivative 1 - tanh(z)²): they are
// recomputed where they are used, at the cost of the primal's own loop.
type unzipped struct {
	primal []binding
	linear sdql.Expr
	// vars are the linear variables: the wrt tangents and the linear lets.
	vars map[string]bool
	// result is the primal program's result (an atom in ANF).
	result sdql.Expr
}

// unzip splits lin's tangent program. Primal lets never mention linear
// variables, so they can all go first: the primal sweep is the top-level
// chain of the primal program in ANF (Forward copies those lets into the
// tangent program unchanged), with its result, and the linear program is
// the tangent program's top-level linear lets and its result.
func unzip(lin *linearization) *unzipped {
	u := &unzipped{vars: linearVars(lin.tangent, lin.names)}
	u.primal, u.result = letChain(lin.primal)
	bs, body := letChain(lin.tangent)
	var lets []binding
	for _, b := range bs {
		if u.vars[b.name.Name] {
			lets = append(lets, b)
		}
	}
	u.linear = wrapLets(lets, body)
	return u
}

// program is the unzipped program as one SDQL program: the primal lets,
// then the linear program. With the wrt tangents bound it computes the JVP.
func (u *unzipped) program() sdql.Expr {
	return wrapLets(cloneBindings(u.primal), clone(u.linear))
}

func cloneBindings(bs []binding) []binding {
	out := make([]binding, len(bs))
	for i, b := range bs {
		out[i] = binding{b.name, clone(b.val)}
	}
	return out
}
