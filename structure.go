package nablasd

import (
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// StageStructured names the stage after the logical program, when it
// differs: the program with its loop-invariant terms hoisted out of the
// loops and its repeated terms shared (structure).
const StageStructured = fuse.StageStructured

// structure returns the program the pipeline differentiates and
// optimizes: prog with every term that does not depend on a loop moved
// out of it (sdql.Hoist) and every repeated term computed once
// (sdql.Share), as the options allow (Options.NoHoist, NoShare; nothing
// with Opt "none"). However the program is written — a let inlined at
// its uses, a subterm repeated, an invariant inside a loop — the
// derivative and the optimizer then see the same program; fuse does the
// same again on the derivative.
func structure(prog sdql.Expr, o Options) sdql.Expr {
	return fuse.Structure(prog, o.Opt == "none" || o.NoHoist, o.Opt == "none" || o.NoShare)
}
