package exec

import (
	"github.com/nablasd/nablasd/lower"
)

// Columnar execution of loop nests.
//
// A closure per scalar operation costs a few nanoseconds, as much as the
// operation itself many times over. So the loop nests of a program run
// columnar: a loop's iterations are taken as a batch of lanes (up to
// batch at a time), and every statement of its body runs once per batch,
// as one tight Go loop over the lanes' columns of values. A loop inside
// runs as a child batch: the positions of all lanes' inner ranges (a row's
// entries, per row of the batch) flattened into lanes that remember their
// parent lane (up); a condition runs its branch on the child batch of the
// lanes where it holds; a locate or a search on the lanes where the key is
// found. A variable belongs to the level where it is defined and has a
// column there; a deeper level reads it through the map from its lanes to
// that level's (anc), and adds to it through the same map (a row's sum of
// its entries: a segmented reduction).
//
// The result is the serial one up to the order in which additions into
// the same place happen when two statements of a body add there (the
// lanes of each statement keep the serial order). A nest that needs the
// serial order (a workspace initialized in an iteration, a tensor both
// written and read in the nest, an outer variable overwritten) runs as
// scalar closures instead; its inner loops may still be columnar.

// batch is the most lanes a level processes at once.
const batch = 512

// vctx is a batch of lanes at one level of a columnar nest.
type vctx struct {
	n     int
	level int
	// base is the first of the level's loop positions when they are
	// consecutive and not negative (base, base+1, ...: a CSR nest's rows in
	// order), else -1 (a batch from a negative position has its column);
	// a load at them is then a slice of the array, not a gather
	base int
	// one is the lane of the batch above from whose range every lane of
	// this batch comes (one row's positions: the variables of the levels
	// above are then the same in every lane), else -1
	one int
	// anc[d] maps this batch's lanes to the lanes of the live batch at
	// level d < level (anc[level] is nil: the identity)
	anc [][]int32
}

// region is the compile-time state of one columnar nest.
type region struct {
	c  *compiler
	id int // index in the compiler's regions and the frame's
	// level of every variable defined in the nest (its column's level)
	level map[*lower.Var]int
	// column slots: per variable, its buffer index in the frame
	icol, fcol map[*lower.Var]int
	// scratch buffers, allocated at compile time per node
	nibuf, nfbuf, nbbuf, nubuf int
	maxLevel                   int
	scratchI                   map[[2]int]int
	// loopVar is the loop variable of each level that has one
	loopVar map[int]*lower.Var
	// colReads counts the readers of each variable's column compiled so
	// far (readI), but for the loads at a loop's positions that slice
	// their array when the positions are consecutive (forStmt's lazy)
	colReads map[*lower.Var]int
	// compiled are what compileNest runs once the whole nest is compiled
	// and every reader of a column counted
	compiled []func()
	// assigned: the variables an Assign writes in the nest (its lets'
	// variables are otherwise set once per batch: letAlias)
	assigned map[*lower.Var]bool
	// assigns counts the Assigns of each variable in the nest
	assigns map[*lower.Var]int
	// intLet is the expression of each int let of the nest that nothing
	// assigns (intLets reads index arithmetic through them)
	intLet map[*lower.Var]lower.Expr
	// spare is a scratch int column for broadcasting a uniform value
	spare int
	// ancUse[d] is the deepest level whose batches read their lane map to
	// level d (useAnc), -1 none: a child batch computes only the maps it
	// or a batch below it reads (regionBufs.keep)
	ancUse []int
}

// useAnc records that batches of level l read their lane map to level
// d < l (cx.anc[d]).
func (rg *region) useAnc(d, l int) {
	for len(rg.ancUse) <= d {
		rg.ancUse = append(rg.ancUse, -1)
	}
	rg.ancUse[d] = max(rg.ancUse[d], l)
}

// frame buffers of columnar nests (per frame, per region)
type colbufs struct {
	i [][]int
	f [][]float64
	b [][]bool
	u [][]int32 // lane maps
}

func (rg *region) newI() int { rg.nibuf++; return rg.nibuf - 1 }
func (rg *region) newF() int { rg.nfbuf++; return rg.nfbuf - 1 }
func (rg *region) newB() int { rg.nbbuf++; return rg.nbbuf - 1 }
func (rg *region) newU() int { rg.nubuf++; return rg.nubuf - 1 }

// eligibleNest reports whether a loop nest (a For or a ForLevel) can run
// columnar.
func (c *compiler) eligibleNest(s lower.Stmt) bool {
	w := map[*lower.Tensor]bool{}
	r := map[*lower.Tensor]bool{}
	inner := map[*lower.Var]bool{}
	ok := true
	var exprs func(e lower.Expr)
	exprs = func(e lower.Expr) {
		lower.WalkExpr(e, func(x lower.Expr) {
			if v, isVal := x.(*lower.ValAt); isVal {
				r[v.T] = true
			}
		})
	}
	var walk func(s lower.Stmt)
	walk = func(s lower.Stmt) {
		if !ok {
			return
		}
		switch s := s.(type) {
		case nil:
		case *lower.Block:
			for _, x := range s.List {
				walk(x)
			}
		case *lower.Let:
			inner[s.V] = true
			exprs(s.X)
		case *lower.Assign:
			if !inner[s.V] && s.Op != lower.AddTo {
				ok = false // an outer variable overwritten: last write wins
			}
			exprs(s.X)
		case *lower.If:
			exprs(s.Cond)
			walk(s.Then)
			walk(s.Else)
		case *lower.For:
			inner[s.V] = true
			exprs(s.Lo)
			exprs(s.Hi)
			walk(s.Body)
		case *lower.ForLevel:
			r[s.T] = true
			inner[s.Key] = true
			if s.Pos != nil {
				inner[s.Pos] = true
			}
			exprs(s.Parent)
			walk(s.Body)
		case *lower.Search:
			inner[s.Pos] = true
			exprs(s.Lo)
			exprs(s.Hi)
			exprs(s.Key)
			walk(s.Body)
		case *lower.Insert:
			w[s.T] = true
			inner[s.Pos] = true
			exprs(s.Parent)
			exprs(s.Key)
			if s.At != nil {
				exprs(s.At)
			}
		case *lower.Locate:
			r[s.T] = true
			inner[s.Pos] = true
			exprs(s.Parent)
			exprs(s.Key)
			walk(s.Body)
		case *lower.Store:
			w[s.T] = true
			exprs(s.Pos)
			exprs(s.X)
		case *lower.Fail:
		default: // Init: a workspace per iteration
			ok = false
		}
	}
	walk(s)
	for t := range w {
		if r[t] {
			return false
		}
	}
	return ok
}
