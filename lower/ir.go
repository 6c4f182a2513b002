package lower

import (
	"strconv"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Kind is the kind of a scalar: every value the IR computes with.
type Kind uint8

// The kinds. Int is also the kind of keys and positions.
const (
	Real Kind = iota
	Int
	Bool
)

func (k Kind) String() string {
	switch k {
	case Real:
		return "real"
	case Int:
		return "int"
	case Bool:
		return "bool"
	}
	return "?"
}

// Var is a scalar variable: a parameter, a loop index, a position, a
// let-bound scalar or an accumulator. Names are unique within a Program.
type Var struct {
	Name string
	Kind Kind
	ID   int // index in Program.Vars
}

// Array is an array parameter: a storage format's pos, idx or val array,
// or a dense vector's values, bound without copying; or, with Temp, an
// int array the program fills itself (Transpose), kept between runs.
type Array struct {
	Name string
	Kind Kind // Int or Real
	ID   int  // index in Program.Arrays
	// Level says which level of which input's format the array belongs
	// to, as formats.Levels describes it; nil when unknown (an array
	// bound by name only).
	Level *formats.LevelInfo
	Temp  bool
}

// Storage is how a Tensor stores one level.
type Storage uint8

// The storages of a level.
const (
	// Dense: keys 0..Size-1; the child of parent position q at key k is
	// q*Size + k. Without Full, a presence bit per position says which
	// keys exist.
	Dense Storage = iota
	// Sparse: a dense workspace of Size values with a marker per key and
	// the list of keys present, in insertion order (Gustavson's sparse
	// accumulator); it has one parent, and Clear empties it in time
	// proportional to its keys.
	Sparse
	// Hash: keys mapped to child positions by open addressing; any int
	// key. The last resort.
	Hash
	// Positions: the positions of an input's level (Of): the child at
	// input position p is p, its key the input's coordinate there. A
	// gradient given on a sparse input's stored positions is stored so.
	Positions
	// Appended: children numbered in insertion order, and each parent's
	// children inserted in one burst, no other parent's in between (the
	// lowering proves it: a loop over distinct parents inserts under one
	// parent per iteration). A parent's children are then consecutive,
	// and a dense marker per key finds the current parent's: Gustavson's
	// workspace, its rows appended to a compressed result. Last level
	// only.
	Appended
	// Diagonal: at most one child per parent, at the parent's own key
	// and position: the child of parent q (a position of a dense level
	// 0, so also its key) is q. A diagonal matrix, such as the Jacobian
	// of an elementwise map, stored as its values; the lowering proves
	// every insert's key is its parent's (ChooseDiagonal). With Full,
	// every parent present has its child (each insert of a parent is
	// followed by its child's); without, a presence bit per parent says
	// which have. Level 1 under a Dense level 0 only.
	Diagonal
)

func (s Storage) String() string {
	switch s {
	case Dense:
		return "dense"
	case Sparse:
		return "sparse"
	case Hash:
		return "hash"
	case Positions:
		return "positions"
	case Appended:
		return "appended"
	case Diagonal:
		return "diagonal"
	}
	return "?"
}

// Level is one level of a Tensor.
type Level struct {
	Storage Storage
	// Size is the extent of a Dense or Sparse level (its keys are
	// 0..Size-1), evaluated when the tensor is initialized.
	Size Expr
	// Full: every key of a Dense level is present (a result whose every
	// position is defined, such as a gradient on a dense input); every
	// parent of a Diagonal level has its child; every position of a
	// Positions level under a present parent is present (FullPositions:
	// each row inserted is filled whole).
	Full bool
	// Unmarked: a Dense level that is not Full keeps no presence; every
	// key below its extent reads as present, zero until written. It
	// still grows like a level that is not full. DropMarks sets it where
	// the program cannot tell (no loop over the level; every lookup
	// defaults to zero).
	Unmarked bool
	// denseSize is an extent a hashed level below a sized dense level
	// may take instead (DensifyLevels): every key inserted there is
	// non-negative and below it, computed from range loops' variables
	denseSize Expr
	// Of is the input level a Positions level reuses: its pos and idx
	// arrays (Of.Pos is nil for the top level of a format).
	Of *PositionsOf
}

// Marked reports whether the level keeps which of its keys are present
// (a presence array): a Dense level neither Full nor Unmarked, a
// Diagonal or Positions level not Full.
func (l *Level) Marked() bool {
	switch l.Storage {
	case Dense:
		return !l.Full && !l.Unmarked
	case Diagonal:
		return !l.Full
	case Positions:
		return !l.Full
	}
	return false
}

// PositionsOf names the input level whose positions a Positions level
// reuses: the child positions of parent position q are Pos[q]..Pos[q+1]-1
// (0..len(Idx)-1 at the top, Pos nil), their keys Idx[p].
type PositionsOf struct {
	Pos, Idx *Array
}

// Tensor is a dictionary the program builds (its result, a materialized
// intermediate, a workspace) or a dictionary input (Input), bound from an
// sdql value and only read.
type Tensor struct {
	Name   string
	ID     int // index in Program.Tensors
	Levels []*Level
	Leaf   Kind // the values' kind (a bool dictionary adds by or)
	Input  bool
	// Type is the dictionary's SDQL type.
	Type sdql.Type
}

// Order is the number of key levels.
func (t *Tensor) Order() int { return len(t.Levels) }

// Param is a parameter of a Program, bound by name: a scalar (Var), an
// array or a dictionary input (Tensor with Input).
type Param struct {
	Name   string
	Var    *Var
	Array  *Array
	Tensor *Tensor
}

// Program is a lowered kernel.
type Program struct {
	Params  []*Param
	Vars    []*Var
	Arrays  []*Array
	Tensors []*Tensor
	Body    Stmt
	// The result: a scalar variable or a tensor; Type is its SDQL type.
	ResultVar    *Var
	ResultTensor *Tensor
	Type         sdql.Type
	// Ordered are the coordinate arrays of format levels whose order the
	// lowering relied on (strictly ascending within each parent: a
	// Search, a segment's coordinates taken as distinct keys, a result
	// stored on the level's positions), by ID. A back end validates them
	// before a run; other arrays' order does not change the result.
	Ordered []*Array
	// facts are what lowering knew of the inputs' arrays and extents
	// when it built the loops (the formats' lengths, the shape check's
	// equal extents), and affine the analysis AffineGuards left for
	// AffineLocates to continue: the affine passes' knowledge
	facts  *facts
	affine *affineAnalysis
	// names are the names in use (freshName), for namesCount entries
	names      map[string]bool
	namesCount int
}

// Expr is a scalar expression.
type Expr interface {
	Kind() Kind
	exprNode()
}

type (
	// Const is a constant; an Int or Bool constant holds its value in I
	// (a bool as 0 or 1), a Real in F.
	Const struct {
		K Kind
		I int
		F float64
	}

	// Ref reads a variable.
	Ref struct{ V *Var }

	// Load reads A[Index].
	Load struct {
		A     *Array
		Index Expr
	}

	// Len is len(A).
	Len struct{ A *Array }

	// Unary is -X, !X or real(X) (an int promoted).
	Unary struct {
		Op UnaryOp
		X  Expr
	}

	// Binary is X Op Y. Arithmetic on an Int and a Real promotes the Int.
	Binary struct {
		Op   BinaryOp
		X, Y Expr
	}

	// Call applies one of the language's functions (exp, log, tanh, pow,
	// max, ...: sdql.Ops and the binary ones) to reals.
	Call struct {
		Fn   string
		Args []Expr
	}

	// Select is Then when Cond holds, else Else (both evaluated lazily).
	Select struct {
		Cond, Then, Else Expr
	}

	// ValAt is the leaf value of T at position Pos of its last level.
	ValAt struct {
		T   *Tensor
		Pos Expr
	}
)

// UnaryOp is a unary operator.
type UnaryOp uint8

// The unary operators.
const (
	Neg UnaryOp = iota
	Not
	ToReal
)

// BinaryOp is a binary operator.
type BinaryOp uint8

// The binary operators: arithmetic, comparisons (Bool results) and the
// logical ones. Div divides reals; FloorDiv divides ints rounding down
// (⌊x / y⌋, y a positive constant: the split point of a strided loop,
// AffineGuards), where Go's / rounds toward zero.
const (
	Add BinaryOp = iota
	Sub
	Mul
	Div
	Lt
	Le
	Eq
	Ne
	And
	Or
	FloorDiv
)

// Kind implementations.
func (c *Const) Kind() Kind  { return c.K }
func (r *Ref) Kind() Kind    { return r.V.Kind }
func (l *Load) Kind() Kind   { return l.A.Kind }
func (*Len) Kind() Kind      { return Int }
func (c *Call) Kind() Kind   { return Real }
func (s *Select) Kind() Kind { return s.Then.Kind() }
func (v *ValAt) Kind() Kind  { return v.T.Leaf }

func (u *Unary) Kind() Kind {
	switch u.Op {
	case Not:
		return Bool
	case ToReal:
		return Real
	}
	return u.X.Kind()
}

func (b *Binary) Kind() Kind {
	switch b.Op {
	case Lt, Le, Eq, Ne, And, Or:
		return Bool
	case Div:
		return Real
	case FloorDiv:
		return Int
	}
	if b.X.Kind() == Real || b.Y.Kind() == Real {
		return Real
	}
	return b.X.Kind()
}

func (*Const) exprNode()  {}
func (*Ref) exprNode()    {}
func (*Load) exprNode()   {}
func (*Len) exprNode()    {}
func (*Unary) exprNode()  {}
func (*Binary) exprNode() {}
func (*Call) exprNode()   {}
func (*Select) exprNode() {}
func (*ValAt) exprNode()  {}

// Stmt is a statement.
type Stmt interface{ stmtNode() }

type (
	// Block runs its statements in order.
	Block struct{ List []Stmt }

	// Let declares V and sets it to X.
	Let struct {
		V *Var
		X Expr
	}

	// Assign sets V to X (Set) or adds X to it (Add: or for a Bool).
	Assign struct {
		V  *Var
		Op AssignOp
		X  Expr
	}

	// If runs Then when Cond holds, else Else (nil: nothing).
	If struct {
		Cond       Expr
		Then, Else Stmt
	}

	// For runs Body for V = Lo, Lo+1, ..., Hi-1. Par, when set, says the
	// iterations may run on several workers and how their results merge;
	// Prim names the primitive that runs the whole loop (rules.go, markprimitives.go).
	For struct {
		V      *Var
		Lo, Hi Expr
		Body   Stmt
		Par    *Par
		Prim   *Prim
		// Steady marks the steady state of a partitioned loop
		// (AffineGuards): every test of its variable against bounds it
		// does not change holds there, so its inner loops have none.
		Steady bool
	}

	// ForLevel runs Body for every child of position Parent at level
	// Level of T, binding its key and position (Pos may be nil when
	// unused), in the level's order: ascending keys for Dense, insertion
	// order for Sparse and Hash, storage order for Positions.
	ForLevel struct {
		T        *Tensor
		Level    int
		Parent   Expr
		Key, Pos *Var
		Body     Stmt
	}

	// Search finds Key in the sorted A[Lo:Hi] (a compressed level's
	// coordinates) and, when it is there, binds its index to Pos and runs
	// Body. Gallop says Key is likely near Lo (Lo is a finger, set past
	// the last key found: FingerSearches): the back ends then probe from
	// Lo at growing steps before they bisect.
	Search struct {
		Pos    *Var
		A      *Array
		Lo, Hi Expr
		Key    Expr
		Body   Stmt
		Gallop bool
	}

	// Insert binds Pos to the child of position Parent at key Key in level
	// Level of T, creating it (with a zero value or empty children) when
	// it does not exist. At is set for a Positions level: the position of
	// the input level it reuses whose coordinate is Key under Parent, which
	// is the child.
	Insert struct {
		Pos         *Var
		T           *Tensor
		Level       int
		Parent, Key Expr
		At          Expr
	}

	// Locate binds Pos to the child of position Parent at key Key in level
	// Level of T and runs Body, when that child exists.
	Locate struct {
		Pos         *Var
		T           *Tensor
		Level       int
		Parent, Key Expr
		Body        Stmt
	}

	// Store adds X to (or sets) the leaf value of T at position Pos of its
	// last level; the position must exist (Insert).
	Store struct {
		T   *Tensor
		Pos Expr
		Op  AssignOp
		X   Expr
	}

	// Init makes T empty with its levels' sizes evaluated now: at its
	// definition, and again wherever it is refilled (a workspace in a
	// loop; a Sparse level empties in time proportional to its keys).
	// Covered, when set, is a condition, evaluated with the sizes, under
	// which the statements that follow set every value and presence of T
	// before anything reads it (WriteOnce): T's memory is then sized but
	// not cleared. SetFirst says that every value of T the program reads
	// after this Init was set (a Store with Set) after it, so the values
	// need no zeroing; presence is cleared as usual (WriteOnce, for a
	// result on an input's positions).
	Init struct {
		T        *Tensor
		Covered  Expr
		SetFirst bool
	}

	// Transpose lists, for every coordinate j of the format level (Pos,
	// Idx) under the parents Lo..Hi-1, where it occurs: for t in
	// TPos[j]..TPos[j+1]-1, Parent[t] is a parent q and At[t] a position p
	// of q's segment with Idx[p] = j, ascending in q. N is set to one past
	// the largest coordinate (0 when there is none). TPos, Parent and At
	// are Temp arrays. A loop over a level's coordinates in an inner loop
	// can so become the outer one (interchange.go).
	Transpose struct {
		Pos, Idx         *Array
		Lo, Hi           Expr
		N                *Var
		TPos, Parent, At *Array
	}

	// Fail stops the run with an error: the message, formatted with Args
	// (fmt verbs), prefixed by the program position Pos.
	Fail struct {
		Pos  sdql.Pos
		Msg  string
		Args []Expr
	}
)

// AssignOp is how Assign and Store combine.
type AssignOp uint8

// The assignment operators: Set overwrites, AddTo adds by the kind's
// semi-ring (or for bools).
const (
	Set AssignOp = iota
	AddTo
)

func (*Block) stmtNode()     {}
func (*Let) stmtNode()       {}
func (*Assign) stmtNode()    {}
func (*If) stmtNode()        {}
func (*For) stmtNode()       {}
func (*ForLevel) stmtNode()  {}
func (*Search) stmtNode()    {}
func (*Insert) stmtNode()    {}
func (*Locate) stmtNode()    {}
func (*Store) stmtNode()     {}
func (*Init) stmtNode()      {}
func (*Fail) stmtNode()      {}
func (*Transpose) stmtNode() {}

// Par marks a loop whose iterations may run on several workers, and says
// how their results merge.
type Par struct {
	// Merge: Disjoint when iterations write disjoint positions of the
	// shared tensors (no merge); Sum when each worker accumulates into
	// its own copies of Tensors and Reduce, added by the semi-ring after.
	Merge   Merge
	Tensors []*Tensor
	Reduce  []*Var
	// Private are the workspaces the loop initializes itself: each
	// worker has its own, and nothing is merged from them.
	Private []*Tensor
	// Shared are the tensors the workers write in place: every
	// iteration inserts into level 0 only under its own key (the loop's
	// variable), and every level is dense and full, so the workers'
	// positions are disjoint and nothing grows.
	Shared []*Tensor
}

// Merge is how a parallel loop's workers combine their results.
type Merge uint8

// The merges.
const (
	Disjoint Merge = iota
	Sum
)

// NewVar adds a variable to the program, its name base made unique.
func (p *Program) NewVar(base string, k Kind) *Var {
	v := &Var{Name: p.freshName(base), Kind: k, ID: len(p.Vars)}
	p.Vars = append(p.Vars, v)
	return v
}

// NewTemp adds a Temp int array to the program.
func (p *Program) NewTemp(base string) *Array {
	a := &Array{Name: p.freshName(base), Kind: Int, ID: len(p.Arrays), Temp: true}
	p.Arrays = append(p.Arrays, a)
	return a
}

// freshName is base, or base with a number, unused by the program's
// variables, arrays, tensors and parameters. The names in use are kept
// between calls (passes that copy loops make many variables), read
// again when something was added otherwise.
func (p *Program) freshName(base string) string {
	count := len(p.Vars) + len(p.Arrays) + len(p.Tensors) + len(p.Params)
	if p.names == nil || p.namesCount != count {
		p.names = map[string]bool{}
		for _, v := range p.Vars {
			p.names[v.Name] = true
		}
		for _, a := range p.Arrays {
			p.names[a.Name] = true
		}
		for _, t := range p.Tensors {
			p.names[t.Name] = true
		}
		for _, pa := range p.Params {
			p.names[pa.Name] = true
		}
	}
	name := base
	for n := 1; p.names[name]; n++ {
		name = base + strconv.Itoa(n)
	}
	p.names[name] = true
	p.namesCount = count + 1 // the caller adds what it names
	return name
}
