package lower

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Options configure Lower.
type Options struct {
	// Formats gives the storage of each tensor input bound as its
	// format's arrays: the physical program reads the inputs of
	// formats.Definition(f, name, order), and lowering asks
	// formats.Levels what those arrays are. An array not described here
	// is only loaded and looped over, never assumed sorted or unique.
	Formats map[string]Format
	// ResultShape gives the extents of the result's levels where the
	// caller knows them (0: unknown). A known extent makes the level dense
	// with every key present (a gradient on a dense input's positions).
	// With CompletedOn naming a dense input, the caller promises these are
	// that input's extents (the root package's gradient on it).
	ResultShape []int
	// NoDense hashes every level of every tensor the kernel builds (the
	// ∇SD paper's dictionary variant).
	NoDense bool
	// NoViews materializes every let-bound dictionary (the ablation
	// without destination passing: intermediates are built, then read).
	NoViews bool
	// CompletedOn names the input whose stored positions the caller
	// completes the result to, with zeros where the kernel leaves one out
	// (ad.OnStoredPositions: a scalar program's gradient with respect to
	// it). Where the result's levels can hold only that input's stored
	// positions, the kernel may then store zeros at more of them than the
	// program builds (complete.go, zeroextend.go, fullrows.go); "" promises nothing.
	CompletedOn string
	// EqualModes groups modes of the tensor inputs whose extents the
	// caller has checked to be equal, and checks again before every run
	// over other inputs (the shape check: x has as many entries as A has
	// columns, where the program looks x up by A's column keys). A key
	// read from a level's coordinates lies below its mode's extent once
	// the tensor is validated, so below the extent of every mode of its
	// group: a dense lookup x(j) by such a key needs no range test.
	EqualModes [][]Mode
	// Disable names passes of the table (Passes) that do not run: for
	// tests and debugging (`nablasd plan --disable`). Every pass but the
	// required ones keeps the program's meaning, so the kernel is still
	// right, only slower.
	Disable []string
	// Trace, when set, is called with the program as lowering built it
	// (BuildStep) and after each pass that ran, with the pass's name
	// (`nablasd plan --passes` and `--after`). The program is lowering's
	// own: print it, do not keep or change it.
	Trace func(pass string, p *Program)
}

// A Mode is one mode (dimension) of a tensor input.
type Mode struct {
	Tensor string
	Mode   int
}

// Format is the storage of one tensor input.
type Format struct {
	Format formats.Format
	Order  int
}

// Lower lowers a checked physical program (fuse's output, or any SDQL
// program: dictionary inputs are read as tensors) to the loop IR. info is
// the program's sdql.Check result with every free variable's type.
func Lower(prog sdql.Expr, info *sdql.Info, opts Options) (p *Program, err error) {
	l := &lowerer{info: info, opts: opts, prog: &Program{Type: info.Result}, used: map[string]int{},
		roles: map[string]*formats.LevelInfo{}, keys: map[*Tensor][]keyFact{}, workspace: map[*Tensor]bool{},
		letOf: map[*Var]Expr{}, segOf: map[*Var]segLoop{}, ordered: map[*Array]bool{}, inserts: map[*Tensor][]*Insert{}, insertOf: map[*Var]*Insert{},
		facts: facts{nonneg: map[*Var]bool{}, below: map[*Var][]*Var{},
			inRange: map[*Var][]*Array{}, lenOf: map[*Array]lenFact{}, same: map[*Array][]*Array{}, grid: map[*Array][2]*Var{}, extents: map[Mode][]*Var{}, modesOf: map[*Var][]Mode{}, hiOf: map[*Var]Expr{}, loOf: map[*Var]int{}, rangeLoop: map[*Var]bool{}}}
	defer func() {
		if r := recover(); r != nil {
			le, ok := r.(lowerError)
			if !ok {
				panic(r)
			}
			p, err = nil, le.err
		}
	}()
	off, err := checkDisable(opts.Disable)
	if err != nil {
		return nil, err
	}
	if err := l.describeFormats(); err != nil {
		return nil, err
	}
	env := l.params()
	l.describeArrays()
	l.equateModes()
	root := &Block{}
	l.out = root
	switch kindOf(info.Result) {
	case kDict:
		t := l.newTensor("out", info.Result)
		l.prog.ResultTensor = t
		l.resultTensor = t
		l.emit(&Init{T: t})
		l.into(prog, env, target{t: t, level: 0, parent: intConst(0)}, nil)
		l.decideStorage(t, opts.ResultShape)
	default:
		v := l.scalar(prog, env)
		r := l.newVar("out", v.Kind())
		l.emit(&Let{V: r, X: v})
		l.prog.ResultVar = r
	}
	for _, t := range l.prog.Tensors {
		if !t.Input && t != l.resultTensor {
			l.decideStorage(t, nil)
		}
	}
	l.prog.Body = root
	if opts.Trace != nil {
		opts.Trace(BuildStep, l.prog)
	}
	l.prog.facts = &l.facts // what the affine passes know of the inputs
	runPasses(l.prog, opts, off)
	l.collectOrdered()
	return l.prog, nil
}

// collectOrdered sets Program.Ordered: what lowering noted (unique
// segments) and the arrays the final program searches or stores on.
func (l *lowerer) collectOrdered() {
	WalkStmts(l.prog.Body, func(s Stmt) {
		if x, ok := s.(*Search); ok {
			l.ordered[x.A] = true
		}
	})
	for _, t := range l.prog.Tensors {
		for _, lv := range t.Levels {
			if lv.Storage == Positions {
				l.ordered[lv.Of.Idx] = true
			}
		}
	}
	for _, a := range l.prog.Arrays {
		if l.ordered[a] {
			l.prog.Ordered = append(l.prog.Ordered, a)
		}
	}
}

// lowerError is raised (panicked) inside lowering and returned by Lower.
type lowerError struct{ err error }

func (l *lowerer) failf(e sdql.Expr, format string, args ...any) {
	pos := ""
	if e != nil {
		pos = e.Pos().String() + ": "
	}
	panic(lowerError{fmt.Errorf("lower: %s%s", pos, fmt.Sprintf(format, args...))})
}

type lowerer struct {
	info  *sdql.Info
	opts  Options
	prog  *Program
	used  map[string]int                // names given, for unique names
	roles map[string]*formats.LevelInfo // array name -> its level (pos, idx and coordinate arrays)
	out   *Block                        // where statements are emitted

	resultTensor *Tensor
	// keys records, per tensor and level, what is known of the keys
	// inserted there (decideStorage)
	keys map[*Tensor][]keyFact
	// workspace marks tensors initialized inside a loop
	workspace map[*Tensor]bool
	loopDepth int
	facts
	undo  []*Var        // assumed facts to drop at the end of a block
	letOf map[*Var]Expr // the expression a hoisted variable holds
	// what decideStorage needs to store a level on an input's positions
	segOf    map[*Var]segLoop // a loop variable over one parent's segment of a level
	ordered  map[*Array]bool  // Program.Ordered
	inserts  map[*Tensor][]*Insert
	insertOf map[*Var]*Insert // the insert that bound a position variable
}

// segLoop is what is known of a loop over idx[pos[parent]:pos[parent+1]],
// one parent's positions of a format level.
type segLoop struct {
	idx, pos *Array
	parent   Expr
}

func (l *lowerer) emit(s Stmt) { l.out.List = append(l.out.List, s) }

// nested lowers f into a new block and returns it; the facts assumed in
// it (assume) end with it.
func (l *lowerer) nested(f func()) *Block {
	saved, mark := l.out, len(l.undo)
	b := &Block{}
	l.out = b
	f()
	l.out = saved
	for i := len(l.undo) - 1; i >= mark; i-- {
		v := l.undo[i]
		l.below[v] = l.below[v][:len(l.below[v])-1]
	}
	l.undo = l.undo[:mark]
	return b
}

// loopBody is nested for the body of a loop.
func (l *lowerer) loopBody(f func()) *Block {
	l.loopDepth++
	defer func() { l.loopDepth-- }()
	return l.nested(f)
}

// fresh returns a name based on base, unique in the program.
func (l *lowerer) fresh(base string) string {
	if base == "" || base == "_" {
		base = "t"
	}
	n := l.used[base]
	l.used[base] = n + 1
	if n == 0 {
		return base
	}
	for {
		name := base + strconv.Itoa(n)
		if l.used[name] == 0 {
			l.used[name] = 1
			return name
		}
		n++
	}
}

func (l *lowerer) newVar(base string, k Kind) *Var {
	v := &Var{Name: l.fresh(base), Kind: k, ID: len(l.prog.Vars)}
	l.prog.Vars = append(l.prog.Vars, v)
	return v
}

func (l *lowerer) newTensor(base string, t sdql.Type) *Tensor {
	dt, _ := t.(*sdql.DictType)
	order := 0
	leaf := Real
	for dt != nil {
		order++
		switch v := dt.Val.(type) {
		case *sdql.DictType:
			dt = v
			continue
		default:
			leaf = kindOfType(v)
		}
		dt = nil
	}
	ts := &Tensor{Name: l.fresh(base), ID: len(l.prog.Tensors), Leaf: leaf, Type: t}
	for i := 0; i < order; i++ {
		ts.Levels = append(ts.Levels, &Level{Storage: Hash})
	}
	l.prog.Tensors = append(l.prog.Tensors, ts)
	return ts
}

// describeFormats records, for each array of each input's format, the
// level it belongs to.
func (l *lowerer) describeFormats() error {
	names := make([]string, 0, len(l.opts.Formats))
	for n := range l.opts.Formats {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := l.opts.Formats[n]
		ls, err := formats.Levels(f.Format, n, f.Order)
		if err != nil {
			return fmt.Errorf("lower: input %s: %v", n, err)
		}
		for i := range ls {
			li := &ls[i]
			if li.Pos != "" {
				l.roles[li.Pos] = li
			}
			if li.Idx != "" {
				l.roles[li.Idx] = li
			}
		}
	}
	return nil
}

// params binds the program's free variables: scalars to variables,
// physical arrays to arrays, dictionaries to input tensors.
func (l *lowerer) params() *scope {
	var e *scope
	for _, name := range l.info.FreeNames() {
		t := l.info.Free[name]
		p := &Param{Name: name}
		l.used[name]++
		switch t := t.(type) {
		case *sdql.DictType:
			if t.Key == sdql.DenseIntType {
				a := &Array{Name: name, Kind: kindOfType(t.Val), ID: len(l.prog.Arrays), Level: l.roles[name]}
				l.prog.Arrays = append(l.prog.Arrays, a)
				p.Array = a
				e = e.bind(name, arrayB{a})
				break
			}
			ts := l.newTensor(name, t)
			ts.Name = name // the parameter's own name (reserved above)
			ts.Input = true
			p.Tensor = ts
			e = e.bind(name, dictB{tensorD{t: ts, level: 0, parent: intConst(0)}})
		default:
			v := &Var{Name: name, Kind: kindOfType(t), ID: len(l.prog.Vars)}
			l.prog.Vars = append(l.prog.Vars, v)
			p.Var = v
			e = e.bind(name, scalarB{&Ref{V: v}})
		}
		l.prog.Params = append(l.prog.Params, p)
	}
	return e
}

// ---- bindings

// binding is what an SDQL name stands for while lowering: a scalar
// expression, a physical array, or a dictionary.
type binding interface{ isBinding() }

type (
	scalarB struct{ x Expr }
	arrayB  struct{ a *Array }
	dictB   struct{ d dval }
)

func (scalarB) isBinding() {}
func (arrayB) isBinding()  {}
func (dictB) isBinding()   {}

// scope is the lowering environment: SDQL names to bindings.
type scope struct {
	name string
	b    binding
	next *scope
}

func (e *scope) bind(name string, b binding) *scope {
	if name == "_" {
		return e
	}
	return &scope{name, b, e}
}

func (e *scope) lookup(name string) (binding, bool) {
	for ; e != nil; e = e.next {
		if e.name == name {
			return e.b, true
		}
	}
	return nil, false
}

// ---- types

type vkind uint8

const (
	kReal vkind = iota
	kInt
	kBool
	kDict
	kArray
)

func kindOf(t sdql.Type) vkind {
	switch t := t.(type) {
	case *sdql.DictType:
		if t.Key == sdql.DenseIntType {
			return kArray
		}
		return kDict
	}
	switch t {
	case sdql.IntType, sdql.DenseIntType:
		return kInt
	case sdql.BoolType:
		return kBool
	}
	return kReal
}

func kindOfType(t sdql.Type) Kind {
	switch t {
	case sdql.IntType, sdql.DenseIntType:
		return Int
	case sdql.BoolType:
		return Bool
	}
	return Real
}

func (l *lowerer) typeOf(e sdql.Expr) sdql.Type {
	if t := l.info.Types[e]; t != nil {
		return t
	}
	return sdql.RealType
}

func (l *lowerer) vkindOf(e sdql.Expr) vkind { return kindOf(l.typeOf(e)) }

// ---- constants

func intConst(i int) *Const { return &Const{K: Int, I: i} }

func realConst(f float64) *Const { return &Const{K: Real, F: f} }

func boolConst(b bool) *Const {
	if b {
		return &Const{K: Bool, I: 1}
	}
	return &Const{K: Bool}
}

func isConst(e Expr, f float64) bool {
	c, ok := e.(*Const)
	if !ok {
		return false
	}
	if c.K == Real {
		return c.F == f
	}
	return float64(c.I) == f
}

// zeroOf is the zero of a kind.
func zeroOf(k Kind) Expr {
	switch k {
	case Int:
		return intConst(0)
	case Bool:
		return boolConst(false)
	}
	return realConst(0)
}
