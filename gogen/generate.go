package gogen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"sort"
	"strings"
	"unicode"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// Options configure Generate.
type Options struct {
	// Func names the kernel's function (default Kernel). The file's other
	// top-level names start with it: FUNCResult, FUNCWork, and unexported
	// ones prefixed by it in lower case, so several kernels may share a
	// package.
	Func string
	// Package is the generated file's package (default kernels).
	Package string
	// Doc lines open the function's doc comment (the program the kernel
	// computes, where it comes from); indented lines print as code.
	Doc []string
	// Formats gives the storage of each tensor input bound as its
	// format's arrays, as lower.Options.Formats did: the doc comment and
	// Kernel.Params say which field of a formats.Tensor each parameter
	// is, and the kernel may rely on the format's invariants (a dense
	// vector's values have its extent's length). Without it, what the
	// arrays of the program (lower.Array.Level) say is used.
	Formats map[string]lower.Format
	// Workspace makes the kernel keep its intermediate tensors in a
	// FUNCWork the caller passes (ws *FUNCWork, after dst), so that
	// repeated calls reuse their memory; a zero FUNCWork is ready. Without
	// it the kernel allocates them on every call. A kernel without
	// intermediates takes no workspace (Kernel.WorkType is "").
	Workspace bool
	// ResultSizes names, for the result's levels lowered dense and full
	// with a size given by lower.Options.ResultShape, the int parameters
	// that give those sizes at run time ("" keeps the size the program
	// was lowered with, as does a name that is not an int parameter of
	// the program), so that the kernel serves inputs of other
	// shapes: a gradient with respect to a dense vector x has x_len keys.
	ResultSizes []string
	// Parallel makes a kernel whose program has loops lowering marked
	// parallel (lower.Par) take a last parameter threads int and run those
	// loops on up to threads goroutines where they have enough work, as the
	// closure runtime does with exec.Options.Threads (parallel.go). Its
	// results equal the serial ones up to the order of floating-point
	// additions. Kernel.Parallel says whether the function takes threads.
	Parallel bool
	// MinParallel is the least work (iterations, and the entries of the
	// rows they read) a parallel loop is split for (0: 8192, exec's);
	// tests lower it to split small inputs.
	MinParallel int
}

// Kernel is a generated Go kernel and its calling convention.
type Kernel struct {
	// Source is the generated file: gofmt-clean, standard library only.
	Source []byte
	// Func is the function's name.
	Func string
	// Params are the function's parameters in order, one per parameter
	// of the program (lower.Program.Params); the destination and the
	// workspace follow them.
	Params []Param
	// Scalar is the Go type of a scalar result ("float64", "int" or
	// "bool"), which the function returns with an error:
	//
	//	func FUNC(params...) (float64, error)
	//
	// It is "" for a tensor result, which the function writes into a
	// destination of type ResultType:
	//
	//	func FUNC(params..., dst *FUNCResult) error
	Scalar string
	// ResultType names the destination type of a tensor result (""
	// otherwise). A zero value is an empty destination; the kernel
	// refills it on every call, reusing its memory. Its Entries method
	// calls a function for every stored value with its keys, ascending;
	// String prints it as an SDQL value literal; Reset empties it; its
	// fields (documented in the file) give direct access.
	ResultType string
	// Order is the result's order (0 for a scalar), Leaf the Go type of
	// its values (Entries passes them as float64).
	Order int
	Leaf  string
	// WorkType names the workspace type when the function takes
	// ws *WorkType after dst (Options.Workspace and intermediates, or
	// loops that may run in parallel); "".
	WorkType string
	// Parallel says that the function takes a last parameter threads int,
	// after dst and ws: the most goroutines its parallel loops may run on
	// (Options.Parallel, and a loop that may run on several).
	Parallel bool
}

// Param is one parameter of a generated kernel.
type Param struct {
	// Name is the program's name of the parameter (lower.Param.Name),
	// GoName the Go identifier (the same unless Name is not one, or
	// collides), and GoType its Go type: float64, int or bool for a
	// scalar, []int or []float64 for a format's array, a nested
	// map[int]... for a dictionary input.
	Name, GoName, GoType string
	// Field says which field of a formats.Tensor the parameter is, when
	// it is one of a format's arrays or extents: "t.Pos[1]" (Input's
	// Pos[1]), "t.Val", "t.Shape[0]", "len(t.Idx[0])". Input names the
	// tensor input and Format its format.
	Field, Input, Format string
}

// genError is raised (panicked) inside the generator and returned by
// Generate.
type genError struct{ err error }

func (g *gen) failf(format string, args ...any) {
	panic(genError{fmt.Errorf("gogen: "+format, args...)})
}

// Generate writes the Go source of the kernel of a lowered program: one
// self-contained, gofmt-clean file (standard library only, no interface
// values, no Go maps when the inputs are formats) holding
//
//	func FUNC(params..., dst *FUNCResult) error     // a tensor result
//	func FUNC(params...) (float64, error)           // a scalar (int, bool likewise)
//
// with the program's parameters in order (scalars as float64, int, bool;
// the formats' arrays as []int and []float64, bound without copying;
// dictionary inputs as nested maps, converted at entry), a type per
// tensor the program builds mirroring its levels' storage, and the
// result type's methods. The function's statements are the IR's, one for
// one: loops stay loops, a Select is an if into a temporary, a Fail
// returns an error naming the program position. A key a dense result
// cannot hold, or an input that breaks its format's invariants, is an
// error too, never a panic.
func Generate(p *lower.Program, opts Options) (k *Kernel, err error) {
	defer func() {
		if r := recover(); r != nil {
			ge, ok := r.(genError)
			if !ok {
				panic(r)
			}
			k, err = nil, ge.err
		}
	}()
	if opts.Func == "" {
		opts.Func = "Kernel"
	}
	if opts.Package == "" {
		opts.Package = "kernels"
	}
	if !isIdent(opts.Func) {
		return nil, fmt.Errorf("gogen: the function name %q is not a Go identifier", opts.Func)
	}
	if !isIdent(opts.Package) {
		return nil, fmt.Errorf("gogen: the package name %q is not a Go identifier", opts.Package)
	}
	if p.ResultVar == nil && p.ResultTensor == nil {
		return nil, fmt.Errorf("gogen: the program has no result")
	}
	g := newGen(p, opts)
	return g.file()
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != "" && s != "_" && !reserved[s] && sanitize(s) == s && !token.IsKeyword(s)
}

// gen is the state of one generation.
type gen struct {
	p    *lower.Program
	opts Options
	fn   string // the function's name
	pfx  string // the prefix of the file's unexported names
	top  *namer // the file's identifiers (types)
	// typeNames are the Go types of the tensors other than the result
	typeNames map[*lower.Tensor]string
	loc       *namer // the function's identifiers
	w         *bytes.Buffer
	// the Go names of the program's variables and arrays
	vars   map[*lower.Var]string
	arrays map[*lower.Array]string
	temps  []*lower.Array // the Temp arrays, locals
	ts     map[*lower.Tensor]*tinfo
	order  []*tinfo // the tensors, in the program's order
	// liveness and scopes (scope.go)
	read map[*lower.Var]bool
	// negated are the variables bound to their negation's operand and
	// subtracted where they are added (negate.go)
	negated map[*lower.Var]bool
	// deferred are the Inits whose clear a parallel loop's first worker
	// does, and the loops and ifs that do it (deferclear.go)
	deferred lower.DeferredClears
	hoisted  map[*lower.Var]bool
	scopes   []map[*lower.Var]bool
	// override maps loads A[v] to the Go expression reading them from a
	// segment of A (loops.go)
	override map[loadKey]string
	// backSegs maps the backward reads of the loops being emitted to
	// their segments' elements (backsegments.go).
	backSegs map[backKey]string
	// idxLets are the program's int lets (letsegments.go); segVars the
	// variables of the loops whose segments are being read, innermost
	// last
	idxLets map[*lower.Var]lower.Expr
	segVars []*lower.Var
	// segInsert maps a positions insert marking through a segment to its
	// Present element, segStore the position it binds to its Vals
	// element (loops.go)
	segInsert map[*lower.Insert]string
	segStore  map[*lower.Var]string
	// synced are the tensors whose locals are known to equal their
	// struct's fields at the point of emission (tensor.go)
	synced map[*tinfo]bool
	// all says, in a loop emitted twice (forStmt), whether every row of
	// a tensor's diagonal level is known present (its All)
	all map[*lower.Tensor]bool
	// facts are the conjuncts of the enclosing ifs' conditions, by
	// canonical form (facts.go)
	facts map[string]int
	// rowSegs are the segments sliced before an enclosing loop (rowseg.go)
	rowSegs map[rowSegKey]string
	// grownBefore are the appended inserts whose marks the enclosing
	// loop grew to its segment's largest key (pregrow.go); lets, the
	// expressions variables are let-bound to (resolveLet)
	grownBefore map[*lower.Insert]bool
	lets        map[*lower.Var]lower.Expr
	// coveredInit are the tensors an Init of which is Covered (covered)
	coveredInit map[*lower.Tensor]bool
	imports     map[string]bool
	helpers     map[string]bool
	params      []Param
	formats     map[string]lower.Format // the inputs' formats (Options.Formats or inferred)
	fields      map[string]paramField   // array and extent parameters: their format field
	lens        []lenFact               // arrays whose length an extent gives
	scalar      string                  // the Go type of a scalar result
	resName     string                  // the scalar result's name in the function
	// outlined row loops (outline.go): the bodies of the loops that
	// enclose the code being emitted, the types of the locals loops
	// declare, and the functions written
	loopBodies  []lower.Stmt
	passes      int // the loop nests at the top of the program (countPasses)
	typedLocals map[string]string
	baseTypes   map[string]string // localTypes, once made
	outlined    bytes.Buffer
	// parallel loops (parallel.go): how each loop marked parallel is
	// emitted, in program order; the threads parameter ("" when the
	// function has none); the worker being emitted, the tensors whose
	// locals it must not store back, the tensors whose copies are merged
	// and the workspace's fields of the copies
	pars      map[*lower.For]*parPlan
	parOrder  []*lower.For
	threads   string
	worker    *parWorker
	frozen    map[*tinfo]bool
	merged    map[*lower.Tensor]bool
	copies    map[*lower.Tensor]string
	setCounts map[*lower.Var]int
	// burstAt maps the insert of an appended level's parent to the only
	// insert into that level, begun where the parent is inserted
	// (storage_appended.go); begun, during emission, the appended
	// inserts whose parent's insert has begun their burst
	burstAt map[*lower.Insert]*lower.Insert
	begun   map[*lower.Insert]bool
	// wvals are the tensors whose appended last level adds into a dense
	// workspace by key, gathered into Vals as each burst ends
	// (storage_appended.go, workspaceRows)
	wvals map[*lower.Tensor]*lower.Insert
	// inResInit and inResLoop are the Inits and copy loops of the
	// temporaries kept in the result (inresult.go)
	inResInit map[*lower.Init]*inResult
	inResLoop map[*lower.For]*inResult
}

// loadKey is a load A[off + v] a segment serves (off "" for A[v]: the
// offset's canonical form).
type loadKey struct {
	a   *lower.Array
	v   *lower.Var
	off string
}

func newGen(p *lower.Program, opts Options) *gen {
	g := &gen{p: p, opts: opts, fn: opts.Func, loc: newNamer(), w: &bytes.Buffer{},
		vars: map[*lower.Var]string{}, arrays: map[*lower.Array]string{}, ts: map[*lower.Tensor]*tinfo{},
		override: map[loadKey]string{}, backSegs: map[backKey]string{}, segInsert: map[*lower.Insert]string{}, segStore: map[*lower.Var]string{}, synced: map[*tinfo]bool{}, all: map[*lower.Tensor]bool{}, facts: map[string]int{}, rowSegs: map[rowSegKey]string{}, grownBefore: map[*lower.Insert]bool{}, imports: map[string]bool{}, helpers: map[string]bool{},
		typedLocals: map[string]string{}, frozen: map[*tinfo]bool{}, merged: map[*lower.Tensor]bool{}, copies: map[*lower.Tensor]string{},
		burstAt: bursts(p), begun: map[*lower.Insert]bool{}, wvals: workspaceRows(p), idxLets: indexLets(p)}
	g.pfx = strings.ToLower(opts.Func[:1]) + opts.Func[1:]
	g.top = newNamer()
	// the file's names the function refers to: no parameter or local may
	// shadow them
	for _, n := range []string{g.fn, g.fn + "Result", g.fn + "Work", g.pfx + "Hash", g.pfx + "Appended", g.pfx + "Transpose", g.pfx + "Room", g.pfx + "Search", g.pfx + "Gallop", g.pfx + "GallopFar", g.pfx + "B2f",
		g.pfx + "B2i", g.pfx + "Sigmoid", g.pfx + "Softplus", g.pfx + "Sign", g.pfx + "FormatReal",
		g.pfx + "MinParallel", g.pfx + "Workers", g.pfx + "Split", g.pfx + "Run", g.pfx + "Ranges"} {
		g.top.reserve(n)
		g.loc.reserve(n)
	}
	return g
}

// file assembles the generated file.
func (g *gen) file() (*Kernel, error) {
	g.describeParams()
	g.nameAll()
	g.analyze()
	g.findNegated()
	for _, s := range g.wvals {
		// the stores address the workspace by key (segStore): the
		// insert's position is not a variable of the function
		delete(g.read, s.Pos)
	}
	g.planParallel()
	g.findDeferredClears() // deferclear.go
	g.findInResults()      // inresult.go
	body := g.function()
	var types bytes.Buffer
	for _, ti := range g.order {
		g.tensorType(&types, ti)
	}
	g.parallelMethods(&types)
	g.workType(&types)
	helpers := g.parallelSource(g.helperSource())

	var f bytes.Buffer
	fmt.Fprintf(&f, "// Code generated by nablasd (gogen); DO NOT EDIT.\n\npackage %s\n\n", g.opts.Package)
	if len(g.imports) > 0 {
		var names []string
		for n := range g.imports {
			names = append(names, n)
		}
		sort.Strings(names)
		f.WriteString("import (\n")
		for _, n := range names {
			fmt.Fprintf(&f, "\t%q\n", n)
		}
		f.WriteString(")\n\n")
	}
	f.Write(body)
	f.Write(g.outlined.Bytes())
	f.Write(types.Bytes())
	f.WriteString(helpers)
	src, err := format.Source(f.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gogen: internal error: the generated source does not parse: %v\n%s", err, numbered(f.String()))
	}
	k := &Kernel{Source: src, Func: g.fn, Params: g.params, Scalar: g.scalar}
	if rt := g.p.ResultTensor; rt != nil {
		k.ResultType = g.ts[rt].typ
		k.Order = rt.Order()
		k.Leaf = goKind(rt.Leaf)
	} else {
		k.Leaf = g.scalar
	}
	if g.opts.Workspace && g.hasWork() {
		k.WorkType = g.fn + "Work"
	}
	k.Parallel = g.threads != ""
	return k, nil
}

func numbered(src string) string {
	lines := strings.Split(src, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%4d %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

// goKind is the Go type of a kind.
func goKind(k lower.Kind) string {
	switch k {
	case lower.Int:
		return "int"
	case lower.Bool:
		return "bool"
	}
	return "float64"
}

// goType is the Go type of a dictionary input of SDQL type t: nested maps.
func (g *gen) goType(t sdql.Type) string {
	switch t := t.(type) {
	case *sdql.DictType:
		return "map[int]" + g.goType(t.Val)
	case sdql.BasicType:
		switch t {
		case sdql.IntType, sdql.DenseIntType:
			return "int"
		case sdql.BoolType:
			return "bool"
		}
		return "float64"
	}
	g.failf("a dictionary input of type %s", t)
	return ""
}

// nameAll names the parameters, the program's variables and arrays, and
// the tensors.
func (g *gen) nameAll() {
	// the tensors' types first: no parameter may shadow them
	g.typeNames = map[*lower.Tensor]string{}
	for _, t := range g.p.Tensors {
		if t != g.p.ResultTensor {
			typ := g.top.name(g.pfx + "_" + sanitize(t.Name))
			g.loc.reserve(typ)
			g.typeNames[t] = typ
		}
	}
	for _, pa := range g.p.Params {
		name := g.loc.name(pa.Name)
		prm := Param{Name: pa.Name, GoName: name}
		switch {
		case pa.Var != nil:
			g.vars[pa.Var] = name
			prm.GoType = goKind(pa.Var.Kind)
		case pa.Array != nil:
			g.arrays[pa.Array] = name
			prm.GoType = "[]" + goKind(pa.Array.Kind)
		case pa.Tensor != nil:
			prm.GoType = g.goType(pa.Tensor.Type)
		}
		if f, ok := g.fields[pa.Name]; ok {
			prm.Field, prm.Input, prm.Format = f.field, f.input, f.format
		}
		g.params = append(g.params, prm)
	}
	for _, a := range g.p.Arrays {
		if _, ok := g.arrays[a]; ok {
			continue
		}
		if !a.Temp {
			g.failf("internal error: the array %s is not a parameter", a.Name)
		}
		// a Temp array (Transpose) is a local, kept in the workspace
		g.arrays[a] = g.loc.name(a.Name)
		g.temps = append(g.temps, a)
	}
	for _, t := range g.p.Tensors {
		g.newTensor(t)
	}
	for _, v := range g.p.Vars {
		if _, ok := g.vars[v]; !ok {
			g.vars[v] = g.loc.name(v.Name)
		}
	}
	if g.p.ResultVar != nil {
		g.scalar = goKind(g.p.ResultVar.Kind)
	}
}

// hasWork reports whether the kernel has intermediate tensors (kept in
// the workspace with Options.Workspace).
func (g *gen) hasWork() bool {
	if len(g.temps) > 0 || g.threads != "" {
		return true
	}
	for _, ti := range g.order {
		if !ti.result {
			return true
		}
	}
	return false
}
