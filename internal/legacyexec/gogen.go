package legacyexec

import (
	"bytes"
	"fmt"
	"go/format"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// GoLayout is how the destination of a generated kernel holds the result.
type GoLayout int

const (
	// GoScalar: no destination; the function returns the float64 result.
	GoScalar GoLayout = iota
	// GoDense: dst []float64, the value at key k in dst[k] (order 1).
	GoDense
	// GoMap: dst *FUNCMap, an int-keyed map, entries dst.Keys[i] -> dst.Vals[i] (order 1).
	GoMap
	// GoDiag: dst []float64, the matrix {k -> {k -> dst[k]}} (order 2).
	GoDiag
	// GoPositions: dst []float64 on the stored positions of an input in
	// CSR: row k holds IDX[q] -> dst[q] for q in POS[k]:POS[k+1] (order 2).
	GoPositions
	// GoRows: dst []FUNCMap, row k the map dst[k] (order 2).
	GoRows
	// GoCSR: dst *FUNCCSR, a matrix the kernel writes row by row in CSR
	// (order 2): the caller sizes dst.Pos to the result's extent + 1; the
	// kernel sets Pos[1:] and overwrites Idx and Val, reusing their
	// capacity, so row k holds Idx[q] -> Val[q] for q in Pos[k]:Pos[k+1].
	GoCSR
	// GoValue: no destination; the function returns the result as a Go
	// value of type GoKernel.ResultType: float64, int or bool for scalars,
	// a map[int]V for a dictionary (nested for higher orders). It is the
	// general translation of any program, the fallback when no layout
	// above expresses it; its inputs may also be dictionaries (maps).
	// GoOptions.ResultShape and Workspace do not apply to it.
	GoValue
)

func (l GoLayout) String() string {
	return [...]string{"scalar", "dense", "map", "diag", "positions", "rows", "csr", "value"}[l]
}

// GoOptions configures GenerateGoKernel.
type GoOptions struct {
	// ResultShape gives the extents of the result's levels where the
	// caller knows them (as Options.ResultShape; 0 = unknown). A known
	// extent makes that level a dense slice the caller allocates.
	ResultShape []int
	// Package is the generated file's package (default "kernels").
	Package string
	// Doc lines are added to the function's doc comment (where its
	// parameters come from, ...).
	Doc []string
	// Workspace makes the kernel take its scratch vectors from a
	// workspace, the parameter ws *FUNCWork after dst (a zero FUNCWork
	// is ready; reused across runs it saves their allocation), when it
	// needs any (GoKernel.WorkType); else it allocates them per run.
	Workspace bool
}

// GoKernel is generated Go source and its calling convention.
type GoKernel struct {
	Source []byte
	Func   string
	// Params are the inputs in parameter order (their names sorted; GoValue
	// renames those that are not Go identifiers); the destination, when
	// there is one, is the last parameter, dst.
	Params []string
	Layout GoLayout
	// DstType is the destination's Go type ("" for GoScalar and GoValue).
	DstType string
	// ResultType is the Go type the function returns (GoValue).
	ResultType string
	// MapType names the generated map type (GoMap, GoRows).
	MapType string
	// CSRType names the generated CSR matrix type (GoCSR).
	CSRType string
	// Extent is a Go expression over the parameters giving len(dst) when
	// the inputs determine it; "" when it is ResultShape[0] (GoDense,
	// GoRows) or irrelevant (GoMap).
	Extent string
	// Pos and Idx name the inputs holding the structure (GoPositions).
	Pos, Idx string
	// WorkType names the generated workspace type when the kernel takes
	// ws *WorkType as its last parameter (GoOptions.Workspace).
	WorkType string
	// Overwrites: the kernel only stores into dst (=), never adds, so dst
	// need not be zero on entry: positions it does not store stay as
	// they are (zero when dst was allocated for these inputs), and a
	// rerun over the same inputs into the same dst needs no clear.
	Overwrites bool
}

// GenerateGo writes a self-contained, gofmt-clean Go source file (package
// kernels, standard library only, no interface values) holding funcName,
// the kernel of the optimized physical program prog in the shape of the
// paper's generated C++ (section 5.5), in destination-passing style:
//
//	func funcName(in1 T1, ..., inN TN, dst D)     // dictionary results
//	func funcName(in1 T1, ..., inN TN) float64    // scalar results
//
// The inputs are the free variables of prog, sorted by name: int and real
// scalars as int and float64, the storage arrays of the formats (A_pos,
// A_idx, A_val, ...) as []int and []float64. The destination D depends on
// the result (see GoLayout and GenerateGoKernel): a dense []float64 when
// the key range is known from the inputs (the key is the index of a range
// over the inputs), values on an input's stored positions ([]float64 of
// len(IDX)), a diagonal, or an int-keyed map (*funcNameMap, generated in
// the file) otherwise. dst must be zero (empty) on entry: the kernel adds
// into it with += (and stores with = at keys that are unique).
//
// Sums become counted for loops over ranges and sub-arrays, lookups into
// arrays become slice indexing, scalar lets become locals, dictionaries
// built by lets are iterated in place (loops over their definition) or,
// when looked up by key, held in dense or map locals. Whatever the
// generator cannot express in this shape falls back to the general
// translation (GoValue):
//
//	func funcName(in1 T1, ..., inN TN) R          // any program
//
// which returns the result as a typed Go value (float64, int, bool, or
// nested map[int]V for dictionaries), takes dictionary inputs as maps, and
// mirrors the reference interpreter construct by construct. What neither
// can express is an error naming the construct and its position, never
// wrong code. bindings give the inputs' types when info is nil.
func GenerateGo(prog sdql.Expr, info *sdql.Info, bindings map[string]sdql.Value, funcName string) ([]byte, error) {
	k, err := GenerateGoKernel(prog, info, bindings, funcName, GoOptions{})
	if err != nil {
		return nil, err
	}
	return k.Source, nil
}

// GenerateGoKernel is GenerateGo with options; it also returns the calling
// convention of the generated function. It tries the specialized layouts
// first and takes the general translation (GoValue) when none applies.
func GenerateGoKernel(prog sdql.Expr, info *sdql.Info, bindings map[string]sdql.Value, funcName string, opts GoOptions) (*GoKernel, error) {
	if info == nil {
		types := map[string]sdql.Type{}
		for n, v := range bindings {
			types[n] = sdql.TypeOfValue(v)
		}
		var err error
		if info, err = sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true}); err != nil {
			return nil, err
		}
	}
	if live := dropDeadLets(dropDeadValues(prog, info)); live != prog {
		var err error
		if info, err = sdql.Check(live, &sdql.CheckConfig{Inputs: info.Free, Strict: true}); err != nil {
			return nil, err
		}
		prog = live
	}
	if opts.Package == "" {
		opts.Package = "kernels"
	}
	k, err := generateGoLayouts(prog, info, funcName, opts)
	if err != nil {
		return generateGoValue(prog, info, funcName, opts)
	}
	return k, nil
}

// generateGoLayouts tries the specialized layouts in turn.
func generateGoLayouts(prog sdql.Expr, info *sdql.Info, funcName string, opts GoOptions) (*GoKernel, error) {
	order := sdql.Order(info.Types[prog])
	var layouts []GoLayout
	shape := func(i int) bool { return i < len(opts.ResultShape) && opts.ResultShape[i] > 0 }
	switch order {
	case 0:
		layouts = []GoLayout{GoScalar}
	case 1:
		if shape(0) {
			layouts = []GoLayout{GoDense}
		} else {
			layouts = []GoLayout{GoDense, GoMap} // dense when the keys are ranges' indices
		}
	case 2:
		layouts = []GoLayout{GoPositions, GoDiag}
		if shape(0) {
			layouts = append(layouts, GoCSR, GoRows)
		}
	default:
		return nil, fmt.Errorf("exec: GenerateGo: a result of order %d (up to 2 supported)", order)
	}
	var firstErr error
	for _, l := range layouts {
		g := &gogen{info: info, fn: funcName, layout: l, shaped: shape(0), extra: map[sdql.Expr]sdql.Type{}, wsOK: opts.Workspace}
		k, err := g.file(prog, opts)
		if err == nil {
			return k, nil
		}
		if firstErr == nil || l == GoRows || l == GoMap {
			firstErr = err
		}
	}
	if order == 2 && !shape(0) {
		return nil, fmt.Errorf("%v (a matrix result not on an input's positions needs GoOptions.ResultShape)", firstErr)
	}
	return nil, firstErr
}

// gvar is what an SDQL name stands for in generated code.
type gvar struct {
	kind string // "real", "int", "bool", "arrI", "arrR", "view", "map", "vec"
	g    string // the Go expression (a name, or an expression of locals)
	// view: a dictionary not built but iterated or looked up in place:
	// the expression defining it, in the environment it was bound in
	view *sdql.LetExpr
	def  sdql.Expr
	env  map[string]*gvar
	// guard: a Go condition under which a view is its definition; when it
	// fails the view is the empty dictionary (a row looked up at a key
	// outside its range). "" always holds.
	guard string
	// int loop variables of ranges starting at 0: the range's end when it
	// is an expression of the inputs (the extent of dense destinations)
	hi string
	// the loop an int variable indexes (for unique-key coverage), and
	// whether it is that range's index (distinct in every iteration)
	loop int
	rng  bool
}

type gogen struct {
	info   *sdql.Info
	extra  map[sdql.Expr]sdql.Type
	fn     string
	layout GoLayout
	shaped bool
	b      bytes.Buffer
	used   map[string]bool
	vars   map[string]*gvar
	decls  []string
	err    error
	params map[string]bool

	loops   []int // the destination loops open (ids)
	nloop   int
	writes  int
	setOK   bool // every write so far covers its loops with unique keys
	extent  string
	needMap bool
	needVec bool
	nest    int
	wsOK    bool     // GoOptions.Workspace
	work    []string // the workspace's fields
}

func (g *gogen) failf(e sdql.Expr, format string, args ...any) string {
	if g.err == nil {
		pos := ""
		if e != nil {
			pos = e.Pos().String() + ": "
		}
		g.err = fmt.Errorf("exec: GenerateGo: %s%s", pos, fmt.Sprintf(format, args...))
	}
	return "0"
}

func (g *gogen) typeOf(e sdql.Expr) sdql.Type {
	if t := g.info.Types[e]; t != nil {
		return t
	}
	if t := g.extra[e]; t != nil {
		return t
	}
	return sdql.RealType
}

func (g *gogen) p(format string, args ...any) {
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

// name returns a fresh Go name close to base.
func (g *gogen) name(base string) string {
	var sb strings.Builder
	for _, r := range base {
		switch {
		case r == '\'':
			sb.WriteByte('d')
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' && sb.Len() > 0:
			sb.WriteRune(r)
		}
	}
	base = sb.String()
	if base == "" {
		base = "t"
	}
	for i := 0; ; i++ {
		n := base
		if i > 0 {
			n = base + strconv.Itoa(i)
		}
		if !g.used[n] && !goReserved[n] {
			g.used[n] = true
			return n
		}
	}
}

var goReserved = map[string]bool{"break": true, "case": true, "chan": true, "const": true, "continue": true,
	"default": true, "defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true,
	"goto": true, "if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true, "len": true,
	"math": true, "int": true, "float64": true, "bool": true, "true": true, "false": true, "dst": true,
	"make": true, "clear": true, "max": true, "min": true, "append": true, "copy": true, "new": true}

func (g *gogen) clone() map[string]*gvar {
	m := make(map[string]*gvar, len(g.vars))
	for k, v := range g.vars {
		m[k] = v
	}
	return m
}

func (g *gogen) file(prog sdql.Expr, opts GoOptions) (*GoKernel, error) {
	g.vars, g.used, g.params = map[string]*gvar{}, map[string]bool{}, map[string]bool{}
	if g.wsOK {
		g.used["ws"] = true
	}
	g.setOK = true
	k := &GoKernel{Func: g.fn, Layout: g.layout}
	var params []string
	for _, name := range g.info.FreeNames() {
		t := g.info.Free[name]
		var gt, kd string
		switch physClass(t) {
		case vReal:
			gt, kd = "float64", "real"
		case vInt:
			gt, kd = "int", "int"
		case vBool:
			gt, kd = "bool", "bool"
		case vIntArr:
			gt, kd = "[]int", "arrI"
		case vRealArr:
			gt, kd = "[]float64", "arrR"
		default:
			return nil, fmt.Errorf("exec: GenerateGo: input %s of type %s: inputs must be scalars or storage arrays (the optimized physical program)", name, t)
		}
		if goReserved[name] || strings.ContainsAny(name, "'") {
			return nil, fmt.Errorf("exec: GenerateGo: input name %q is not a Go identifier", name)
		}
		g.used[name], g.params[name] = true, true
		g.vars[name] = &gvar{kind: kd, g: name}
		params = append(params, name+" "+gt)
		k.Params = append(k.Params, name)
	}
	mapT := g.fn + "Map"
	switch g.layout {
	case GoScalar:
		acc := g.name("acc")
		g.p("var %s float64", acc)
		g.scalarStmt(prog, acc)
		g.p("return %s", acc)
	case GoDense, GoMap, GoRows:
		if !g.copyPattern(prog) && !g.gram(prog) {
			g.into(prog, &gdest{lvl: 0})
		}
		if g.layout == GoDense && !g.shaped {
			if g.extent == "" || g.extent == "?" {
				return nil, fmt.Errorf("exec: GenerateGo: the result's keys are not indices of a range over the inputs")
			}
			k.Extent = g.extent
		}
	case GoPositions, GoDiag:
		if !g.denseLetPositions(prog, k) && !g.pattern(prog, k) {
			return nil, fmt.Errorf("exec: GenerateGo: not a %s result", g.layout)
		}
	case GoCSR:
		if !g.gram(prog) {
			return nil, fmt.Errorf("exec: GenerateGo: not a matrix built row by row")
		}
	}
	if g.err != nil {
		return nil, g.err
	}
	switch g.layout {
	case GoDense, GoDiag, GoPositions:
		k.DstType = "[]float64"
	case GoMap:
		k.DstType, k.MapType, g.needMap = "*"+mapT, mapT, true
	case GoRows:
		k.DstType, k.MapType, g.needMap = "[]"+mapT, mapT, true
	case GoCSR:
		k.DstType, k.CSRType = "*"+g.fn+"CSR", g.fn+"CSR"
	}
	body := g.b.String()
	if g.writes == 1 && g.setOK {
		body = strings.ReplaceAll(body, " +=: ", " = ")
		k.Overwrites = g.layout == GoDense
	}
	if g.layout == GoDiag || g.layout == GoPositions || g.layout == GoCSR {
		k.Overwrites = true // pattern and gram store every value
	}
	body = strings.ReplaceAll(body, " +=: ", " += ")
	var f bytes.Buffer
	fmt.Fprintf(&f, "// Code generated by nablasd (exec.GenerateGo); DO NOT EDIT.\n\npackage %s\n\n", opts.Package)
	var imports []string
	if strings.Contains(body, "math.") {
		imports = append(imports, `"math"`)
	}
	if len(imports) > 0 {
		fmt.Fprintf(&f, "import %s\n\n", strings.Join(imports, "\n"))
	}
	fmt.Fprintf(&f, "// %s is the kernel of\n//\n", g.fn)
	for _, line := range strings.Split(sdql.Print(prog), "\n") {
		fmt.Fprintf(&f, "//\t%s\n", line)
	}
	f.WriteString("//\n")
	switch g.layout {
	case GoScalar:
		f.WriteString("// It returns the result.\n")
	case GoDense:
		ext := "the result's extent"
		if k.Extent != "" {
			ext = k.Extent
		}
		zero := "zero on entry"
		if k.Overwrites {
			zero = "stored, not added into"
		}
		fmt.Fprintf(&f, "// dst (len %s, %s) receives the result: dst[k] is the value at key k.\n", ext, zero)
	case GoMap:
		f.WriteString("// dst (empty on entry) receives the result.\n")
	case GoDiag:
		fmt.Fprintf(&f, "// dst (len %s, zero on entry) receives the result {k -> {k -> dst[k]}}.\n", k.Extent)
	case GoPositions:
		fmt.Fprintf(&f, "// dst (len %s, zero on entry) receives the result on %s's positions:\n// row k holds %s[q] -> dst[q] for q in %s[k]:%s[k+1].\n", k.Extent, strings.TrimSuffix(k.Pos, "_pos"), k.Idx, k.Pos, k.Pos)
	case GoRows:
		f.WriteString("// dst (one empty map per row, len the result's extent) receives the result: row k is dst[k].\n")
	case GoCSR:
		f.WriteString("// dst (len(dst.Pos) the result's extent + 1) receives the result in CSR,\n// its Idx and Val overwritten: row k holds dst.Idx[q] -> dst.Val[q] for q in dst.Pos[k]:dst.Pos[k+1].\n")
	}
	writeDoc(&f, opts.Doc)
	ret := ""
	if g.layout == GoScalar {
		ret = " float64"
	} else {
		params = append(params, "dst "+k.DstType)
	}
	if len(g.work) > 0 && g.params["ws"] {
		return nil, fmt.Errorf("exec: GenerateGo: an input named ws and a workspace")
	}
	if len(g.work) > 0 {
		k.WorkType = g.fn + "Work"
		params = append(params, "ws *"+k.WorkType)
	}
	fmt.Fprintf(&f, "func %s(%s)%s {\n", g.fn, strings.Join(params, ", "), ret)
	for _, d := range g.decls {
		f.WriteString(d + "\n")
	}
	f.WriteString(body)
	f.WriteString("}\n")
	if g.needMap {
		f.WriteString(strings.ReplaceAll(goMapRuntime, "MAP", mapT))
	}
	if g.layout == GoCSR {
		f.WriteString(strings.ReplaceAll(goCSRRuntime, "MATRIX", k.CSRType))
	}
	if len(g.work) > 0 {
		fmt.Fprintf(&f, "\n// %sWork holds %s's scratch vectors across runs (the zero value is ready).\ntype %sWork struct {\n", g.fn, g.fn, g.fn)
		for _, w := range g.work {
			fmt.Fprintf(&f, "\t%s\n", w)
		}
		f.WriteString("}\n")
	}
	if g.needVec {
		f.WriteString(strings.ReplaceAll(goVecRuntime, "FN", g.fn))
	}
	out, err := format.Source(f.Bytes())
	if err != nil {
		return nil, fmt.Errorf("exec: GenerateGo: generated Go does not parse: %v\n%s", err, f.Bytes())
	}
	k.Source = out
	return k, nil
}

func stripUnique(e sdql.Expr) (sdql.Expr, bool) {
	if u, ok := e.(*sdql.UniqueExpr); ok {
		return u.X, true
	}
	return e, false
}

func isName(e sdql.Expr, name string) bool {
	id, ok := e.(*sdql.Ident)
	return ok && name != "_" && id.Name == name
}

func single(e sdql.Expr) (key, val sdql.Expr, ok bool) {
	if d, isD := e.(*sdql.DictExpr); isD && len(d.Entries) == 1 {
		return d.Entries[0].Key, d.Entries[0].Val, true
	}
	return nil, nil, false
}

// pattern generates the two order-2 shapes stored flat (after top-level
// scalar lets):
//
//	sum(<_, k> in (L:H)) { k -> sum(<q, j> in IDX(POS(k):POS(k+1))) { j -> V } }   positions
//	sum(<_, i> in (L:H)) { i -> { i -> V } }                                        diagonal
//
// (keys possibly unique(...)).
func (g *gogen) pattern(prog sdql.Expr, k *GoKernel) bool {
	for {
		let, ok := prog.(*sdql.LetExpr)
		if !ok {
			break
		}
		g.let(let)
		prog = let.Body
	}
	s, ok := prog.(*sdql.SumExpr)
	if !ok {
		return false
	}
	rg, ok := s.Src.(*sdql.RangeExpr)
	if !ok || s.Key.Name != "_" {
		return false
	}
	key, val, ok := single(s.Body)
	if !ok {
		return false
	}
	key, _ = stripUnique(key)
	if !isName(key, s.Val.Name) || mentions(rg.Lo, s.Val.Name) || mentions(rg.Hi, s.Val.Name) {
		return false
	}
	if g.layout == GoDiag {
		k2, v, ok := single(val)
		if !ok || kindOf(g.typeOf(v)) == kDict {
			return false
		}
		if k2, _ = stripUnique(k2); !isName(k2, s.Val.Name) {
			return false
		}
		k.Extent = g.inputExpr(rg.Hi)
		if k.Extent == "" {
			return false
		}
		g.loop(s, func() {
			g.p("dst[%s] = %s", g.vars[s.Val.Name].g, g.real(v))
		})
		g.writes++
		return true
	}
	in, ok := val.(*sdql.SumExpr)
	if !ok {
		return false
	}
	sl, ok := in.Src.(*sdql.SliceExpr)
	if !ok {
		return false
	}
	idx, ok1 := sl.X.(*sdql.Ident)
	lo, ok2 := sl.Lo.(*sdql.LookupExpr)
	hi, ok3 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || !ok3 || !isName(lo.Key, s.Val.Name) || !isPlusOne(hi.Key, s.Val.Name) || !sameIdent(lo.X, hi.X) {
		return false
	}
	pos, _ := lo.X.(*sdql.Ident)
	if pos == nil || !g.params[pos.Name] || !g.params[idx.Name] || g.vars[pos.Name].kind != "arrI" || g.vars[idx.Name].kind != "arrI" {
		return false
	}
	j, v, ok := single(in.Body)
	if !ok || kindOf(g.typeOf(v)) == kDict || in.Key.Name == "_" {
		return false
	}
	if j, _ = stripUnique(j); !isName(j, in.Val.Name) {
		return false
	}
	k.Pos, k.Idx, k.Extent = pos.Name, idx.Name, "len("+idx.Name+")"
	g.loop(s, func() {
		g.loop(in, func() {
			g.p("dst[%s] = %s", g.vars[in.Key.Name].g, g.real(v))
		})
	})
	g.writes++
	return true
}

// inputExpr returns e as Go when it depends on the inputs only.
func (g *gogen) inputExpr(e sdql.Expr) string {
	for _, n := range sdql.FreeVars(e) {
		if !g.params[n] {
			return ""
		}
	}
	return g.int(e)
}

// writeDoc adds the lines of GoOptions.Doc to a doc comment.
func writeDoc(f *bytes.Buffer, doc []string) {
	if len(doc) == 0 {
		return
	}
	f.WriteString("//\n")
	for _, l := range doc {
		if l == "" {
			f.WriteString("//\n")
			continue
		}
		fmt.Fprintf(f, "// %s\n", l)
	}
}
