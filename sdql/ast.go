package sdql

// Expr is an expression of SDQLite. The node types are named after the
// grammar's productions (doc/spec.md); the set is closed.
type Expr interface {
	Pos() Pos // position of the first token
	exprNode()
}

// Binder is a name bound by sum or let, with its position. The name "_"
// binds nothing.
type Binder struct {
	NamePos Pos
	Name    string
}

type (
	// Ident is a variable reference.
	Ident struct {
		NamePos Pos
		Name    string
	}

	// IntLit is an integer literal.
	IntLit struct {
		ValuePos Pos
		Value    int
	}

	// RealLit is a real literal.
	RealLit struct {
		ValuePos Pos
		Value    float64
	}

	// BoolLit is true or false.
	BoolLit struct {
		ValuePos Pos
		Value    bool
	}

	// SumExpr is sum(<Key, Val> in Src) Body.
	SumExpr struct {
		Sum      Pos
		Key, Val Binder
		Src      Expr
		Body     Expr
	}

	// DictExpr is { k1 -> v1, ... } (the empty dictionary when it has no entries).
	DictExpr struct {
		Lbrace  Pos
		Entries []Entry
	}

	// LookupExpr is X(Key).
	LookupExpr struct {
		X   Expr
		Key Expr
	}

	// SliceExpr is the sub-array X(Lo:Hi) of Physical SDQLite.
	SliceExpr struct {
		X      Expr
		Lo, Hi Expr
	}

	// RangeExpr is the dense range (Lo:Hi) of Physical SDQLite.
	RangeExpr struct {
		Lparen Pos
		Lo, Hi Expr
	}

	// LetExpr is let x = e in body, or the tupled let <x1, ..., xn> =
	// <e1, ..., en> in body, which binds sequentially.
	LetExpr struct {
		Let    Pos
		Names  []Binder
		Values []Expr
		Body   Expr
	}

	// IfExpr is if Cond then Then [else Else]; a missing Else (nil) is the
	// zero of Then's type.
	IfExpr struct {
		If   Pos
		Cond Expr
		Then Expr
		Else Expr
	}

	// UnaryExpr is -X or not X.
	UnaryExpr struct {
		OpPos Pos
		Op    Kind // SUB or NOT
		X     Expr
	}

	// BinaryExpr is X Op Y.
	BinaryExpr struct {
		X     Expr
		OpPos Pos
		Op    Kind
		Y     Expr
	}

	// CallExpr is a real operation op(X) or op(X, Y) from the Ops table;
	// Y is nil for an operation of arity 1.
	CallExpr struct {
		NamePos Pos
		Op      string
		X, Y    Expr
	}

	// UniqueExpr is unique(X): X as a key that is distinct in every iteration.
	UniqueExpr struct {
		Unique Pos
		X      Expr
	}

	// ZeroExpr is zero[T].
	ZeroExpr struct {
		Zero Pos
		T    Type
	}

	// OneHotExpr is onehot[T] X (Fig. 7).
	OneHotExpr struct {
		OneHot Pos
		T      Type
		X      Expr
	}
)

// Entry is one key -> value pair of a DictExpr.
type Entry struct {
	Key, Val Expr
}

// Pos implementations.
func (x *Ident) Pos() Pos      { return x.NamePos }
func (x *IntLit) Pos() Pos     { return x.ValuePos }
func (x *RealLit) Pos() Pos    { return x.ValuePos }
func (x *BoolLit) Pos() Pos    { return x.ValuePos }
func (x *SumExpr) Pos() Pos    { return x.Sum }
func (x *DictExpr) Pos() Pos   { return x.Lbrace }
func (x *LookupExpr) Pos() Pos { return x.X.Pos() }
func (x *SliceExpr) Pos() Pos  { return x.X.Pos() }
func (x *RangeExpr) Pos() Pos  { return x.Lparen }
func (x *LetExpr) Pos() Pos    { return x.Let }
func (x *IfExpr) Pos() Pos     { return x.If }
func (x *UnaryExpr) Pos() Pos  { return x.OpPos }
func (x *BinaryExpr) Pos() Pos { return x.X.Pos() }
func (x *CallExpr) Pos() Pos   { return x.NamePos }
func (x *UniqueExpr) Pos() Pos { return x.Unique }
func (x *ZeroExpr) Pos() Pos   { return x.Zero }
func (x *OneHotExpr) Pos() Pos { return x.OneHot }

func (*Ident) exprNode()      {}
func (*IntLit) exprNode()     {}
func (*RealLit) exprNode()    {}
func (*BoolLit) exprNode()    {}
func (*SumExpr) exprNode()    {}
func (*DictExpr) exprNode()   {}
func (*LookupExpr) exprNode() {}
func (*SliceExpr) exprNode()  {}
func (*RangeExpr) exprNode()  {}
func (*LetExpr) exprNode()    {}
func (*IfExpr) exprNode()     {}
func (*UnaryExpr) exprNode()  {}
func (*BinaryExpr) exprNode() {}
func (*CallExpr) exprNode()   {}
func (*UniqueExpr) exprNode() {}
func (*ZeroExpr) exprNode()   {}
func (*OneHotExpr) exprNode() {}
