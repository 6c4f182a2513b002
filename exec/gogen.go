package exec

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
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
)

func (l GoLayout) String() string {
	return [...]string{"scalar", "dense", "map", "diag", "positions", "rows"}[l]
}

// GoOptions configures GenerateGoKernel.
type GoOptions struct {
	// ResultShape gives the extents of the result's levels where the
	// caller knows them (as Options.ResultShape; 0 = unknown). A known
	// extent makes that level a dense slice the caller allocates.
	ResultShape []int
	// Package is the generated file's package (default "kernels").
	Package string
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
	// Params are the inputs in parameter order (their names sorted); the
	// destination, when there is one, is the last parameter, dst.
	Params []string
	Layout GoLayout
	// DstType is the destination's Go type ("" for GoScalar).
	DstType string
	// MapType names the generated map type (GoMap, GoRows).
	MapType string
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
// generator cannot express in this shape is an error naming the construct,
// never wrong code. bindings give the inputs' types when info is nil.
func GenerateGo(prog sdql.Expr, info *sdql.Info, bindings map[string]sdql.Value, funcName string) ([]byte, error) {
	k, err := GenerateGoKernel(prog, info, bindings, funcName, GoOptions{})
	if err != nil {
		return nil, err
	}
	return k.Source, nil
}

// GenerateGoKernel is GenerateGo with options; it also returns the calling
// convention of the generated function.
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
	if opts.Package == "" {
		opts.Package = "kernels"
	}
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
			layouts = append(layouts, GoRows)
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
	}
	body := g.b.String()
	if g.writes == 1 && g.setOK {
		body = strings.ReplaceAll(body, " +=: ", " = ")
		k.Overwrites = g.layout == GoDense
	}
	if g.layout == GoDiag || g.layout == GoPositions {
		k.Overwrites = true // pattern stores every value
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
	}
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

// ---- scalars

func (g *gogen) real(e sdql.Expr) string { return g.scalar(e, false) }

func (g *gogen) int(e sdql.Expr) string { return g.scalar(e, true) }

func (g *gogen) lookupVar(e *sdql.Ident) *gvar {
	v, ok := g.vars[e.Name]
	if !ok {
		g.failf(e, "undefined: %s", e.Name)
		return &gvar{kind: "real", g: "0"}
	}
	return v
}

// scalar returns a Go expression of type float64 (int when asInt); it may
// first emit statements computing parts of it.
func (g *gogen) scalar(e sdql.Expr, asInt bool) string {
	k := kindOf(g.typeOf(e))
	conv := func(s string, isInt bool) string {
		switch {
		case asInt && !isInt:
			return "int(" + s + ")"
		case !asInt && isInt:
			return "float64(" + s + ")"
		}
		return s
	}
	if k == kBool {
		c := g.name("c")
		g.p("%s := 0.0", c)
		g.p("if %s {", g.boolean(e))
		g.p("%s = 1", c)
		g.p("}")
		return conv(c, false)
	}
	if k == kDict {
		return g.failf(e, "a dictionary where a scalar is expected")
	}
	switch e := e.(type) {
	case *sdql.IntLit:
		if asInt {
			return strconv.Itoa(e.Value)
		}
		return strconv.FormatFloat(float64(e.Value), 'g', -1, 64)
	case *sdql.RealLit:
		s := strconv.FormatFloat(e.Value, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return conv(s, false)
	case *sdql.Ident:
		v := g.lookupVar(e)
		switch v.kind {
		case "int":
			return conv(v.g, true)
		case "real":
			return conv(v.g, false)
		}
		return g.failf(e, "%s is not a scalar", e.Name)
	case *sdql.UniqueExpr:
		return g.scalar(e.X, asInt)
	case *sdql.LookupExpr:
		d := g.dictRef(e.X)
		if d == nil {
			return "0"
		}
		return conv(g.lookup(d, e), k == kInt)
	case *sdql.BinaryExpr:
		op := map[sdql.Kind]string{sdql.ADD: "+", sdql.SUB: "-", sdql.MUL: "*", sdql.QUO: "/"}[e.Op]
		if op == "" {
			return g.failf(e, "operator %s", e.Op)
		}
		if e.Op == sdql.QUO || k != kInt {
			return conv(paren(g.real(e.X))+" "+op+" "+paren(g.real(e.Y)), false)
		}
		return conv(paren(g.int(e.X))+" "+op+" "+paren(g.int(e.Y)), true)
	case *sdql.UnaryExpr:
		return "-" + paren(g.scalar(e.X, asInt))
	case *sdql.CallExpr:
		fn := map[string]string{"exp": "math.Exp", "log": "math.Log", "sin": "math.Sin", "cos": "math.Cos", "tan": "math.Tan", "sqrt": "math.Sqrt", "tanh": "math.Tanh", "abs": "math.Abs"}[e.Op]
		if fn == "" {
			return g.failf(e, "operation %s", e.Op)
		}
		return conv(fn+"("+g.real(e.X)+")", false)
	case *sdql.ZeroExpr:
		return conv("0", asInt)
	case *sdql.SumExpr, *sdql.IfExpr, *sdql.LetExpr:
		acc := g.name("s")
		if asInt {
			g.p("%s := 0", acc)
		} else {
			g.p("%s := 0.0", acc)
		}
		save := g.clone()
		g.scalarStmt(e, acc)
		g.vars = save
		return acc
	}
	return g.failf(e, "cannot generate %T", e)
}

// scalarStmt emits statements adding the value of e to acc.
func (g *gogen) scalarStmt(e sdql.Expr, acc string) {
	asInt := kindOf(g.typeOf(e)) == kInt
	switch e := e.(type) {
	case *sdql.SumExpr:
		if f, cond := g.flatten(e); f != nil {
			g.p("if %s {", cond)
			g.loop(f, func() { g.scalarStmt(f.Body, acc) })
			g.p("}")
			return
		}
		g.loop(e, func() { g.scalarStmt(e.Body, acc) })
	case *sdql.IfExpr:
		g.p("if %s {", g.boolean(e.Cond))
		save := g.clone()
		g.scalarStmt(e.Then, acc)
		g.vars = save
		if e.Else != nil {
			g.p("} else {")
			g.scalarStmt(e.Else, acc)
			g.vars = save
		}
		g.p("}")
	case *sdql.LetExpr:
		save := g.clone()
		g.let(e)
		g.scalarStmt(e.Body, acc)
		g.vars = save
	case *sdql.ZeroExpr:
	default:
		g.p("%s += %s", acc, g.scalar(e, asInt))
	}
}

func (g *gogen) boolean(e sdql.Expr) string {
	switch e := e.(type) {
	case *sdql.BoolLit:
		return strconv.FormatBool(e.Value)
	case *sdql.Ident:
		v := g.lookupVar(e)
		if v.kind == "bool" {
			return v.g
		}
	case *sdql.UnaryExpr:
		return "!(" + g.boolean(e.X) + ")"
	case *sdql.BinaryExpr:
		switch e.Op {
		case sdql.LAND:
			return "(" + g.boolean(e.X) + " && " + g.boolean(e.Y) + ")"
		case sdql.LOR:
			return "(" + g.boolean(e.X) + " || " + g.boolean(e.Y) + ")"
		}
		op := map[sdql.Kind]string{sdql.EQ: "==", sdql.NEQ: "!=", sdql.LT: "<", sdql.LEQ: "<=", sdql.GT: ">", sdql.GEQ: ">="}[e.Op]
		if op != "" && kindOf(g.typeOf(e.X)) != kBool && kindOf(g.typeOf(e.X)) != kDict {
			if kindOf(g.typeOf(e.X)) == kInt && kindOf(g.typeOf(e.Y)) == kInt {
				return "(" + g.int(e.X) + " " + op + " " + g.int(e.Y) + ")"
			}
			return "(" + g.real(e.X) + " " + op + " " + g.real(e.Y) + ")"
		}
	}
	g.failf(e, "cannot generate the condition %s", sdql.PrintFlat(e))
	return "false"
}

// ---- dictionaries: references, lookups, lets, loops

// dictRef resolves a dictionary-valued expression used as a lookup or sum
// source to an array, a local or a view.
func (g *gogen) dictRef(e sdql.Expr) *gvar {
	switch x := e.(type) {
	case *sdql.Ident:
		v := g.lookupVar(x)
		switch v.kind {
		case "arrI", "arrR", "view", "map", "vec":
			return v
		}
		g.failf(e, "%s is not a dictionary", x.Name)
		return nil
	case *sdql.LookupExpr:
		d := g.dictRef(x.X)
		if d == nil {
			return nil
		}
		if d.kind != "view" {
			g.failf(e, "lookup of a nested dictionary %s", sdql.PrintFlat(e))
			return nil
		}
		return g.viewLookup(d, x)
	case *sdql.SumExpr, *sdql.DictExpr, *sdql.LetExpr:
		return &gvar{kind: "view", def: e, env: g.clone()}
	}
	g.failf(e, "cannot generate the dictionary %s", sdql.PrintFlat(e))
	return nil
}

// rangeView recognizes a view sum(<_, i> in (L:H)) { i -> V } (keys
// unique: the range's index).
func rangeView(def sdql.Expr) (s *sdql.SumExpr, rg *sdql.RangeExpr, val sdql.Expr, ok bool) {
	s, ok = def.(*sdql.SumExpr)
	if !ok {
		return
	}
	rg, ok = s.Src.(*sdql.RangeExpr)
	if !ok {
		return
	}
	var key sdql.Expr
	key, val, ok = single(s.Body)
	if !ok {
		return
	}
	key, _ = stripUnique(key)
	i := s.Val.Name
	if s.Key.Name != "_" && s.Key.Name != i {
		i = s.Key.Name
	}
	ok = isName(key, s.Val.Name) || isName(key, s.Key.Name)
	return
}

// viewLookup looks up the key of e in the view d whose values are
// dictionaries: a view of d's value at that key.
func (g *gogen) viewLookup(d *gvar, e *sdql.LookupExpr) *gvar {
	s, rg, val, ok := rangeView(d.def)
	if !ok {
		g.failf(e, "lookup into %s: only dictionaries indexed by a range are looked up in place", sdql.PrintFlat(d.def))
		return nil
	}
	kg := g.int(e.Key)
	k := g.name("k")
	g.p("%s := %s", k, kg)
	save := g.vars
	g.vars = cloneEnv(d.env)
	lo, hi := g.int(rg.Lo), g.int(rg.Hi)
	g.vars = save
	g.p("if %s < %s || %s >= %s {", k, lo, k, hi)
	g.p("panic(\"%s: lookup of a missing key of a nested dictionary\")", g.fn)
	g.p("}")
	env := cloneEnv(d.env)
	for _, b := range []string{s.Key.Name, s.Val.Name} {
		if b != "_" {
			env[b] = &gvar{kind: "int", g: k}
		}
	}
	return &gvar{kind: "view", def: val, env: env}
}

func cloneEnv(m map[string]*gvar) map[string]*gvar {
	c := make(map[string]*gvar, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// lookup returns the scalar d(e.Key).
func (g *gogen) lookup(d *gvar, e *sdql.LookupExpr) string {
	switch d.kind {
	case "arrI", "arrR":
		return d.g + "[" + g.int(e.Key) + "]"
	case "map":
		return d.g + ".Get(" + g.int(e.Key) + ")"
	case "vec":
		return g.fn + "At(" + d.g + ", " + g.int(e.Key) + ")"
	case "view":
		s, rg, val, ok := rangeView(d.def)
		if !ok || kindOf(g.typeOf(val)) == kDict {
			return g.failf(e, "lookup into %s: only dictionaries indexed by a range are looked up in place", sdql.PrintFlat(d.def))
		}
		kg := g.int(e.Key)
		x := g.name("x")
		k := g.name("k")
		save := g.vars
		g.vars = cloneEnv(d.env)
		lo, hi := g.int(rg.Lo), g.int(rg.Hi)
		g.p("%s := 0.0", x)
		g.p("if %s := %s; %s <= %s && %s < %s {", k, kg, lo, k, k, hi)
		for _, b := range []string{s.Key.Name, s.Val.Name} {
			if b != "_" {
				g.vars[b] = &gvar{kind: "int", g: k}
			}
		}
		g.p("%s = %s", x, g.real(val))
		g.p("}")
		g.vars = save
		return x
	}
	return g.failf(e, "lookup into %s", d.kind)
}

// let emits the bindings of a let: scalars as locals, dictionaries as
// views (iterated or looked up in place) or, when a use needs it, as
// locals built once.
func (g *gogen) let(e *sdql.LetExpr) {
	for i, b := range e.Names {
		v := e.Values[i]
		var rest sdql.Expr = e.Body
		switch kindOf(g.typeOf(v)) {
		case kReal, kInt:
			x := g.scalar(v, kindOf(g.typeOf(v)) == kInt)
			if b.Name == "_" || !mentions(rest, b.Name) && !laterMention(e, i, b.Name) {
				continue
			}
			n := g.name(b.Name)
			g.p("%s := %s", n, x)
			kind := "real"
			if kindOf(g.typeOf(v)) == kInt {
				kind = "int"
			}
			g.vars[b.Name] = &gvar{kind: kind, g: n}
		case kBool:
			x := g.boolean(v)
			if b.Name == "_" || !mentions(rest, b.Name) && !laterMention(e, i, b.Name) {
				continue
			}
			n := g.name(b.Name)
			g.p("%s := %s", n, x)
			g.vars[b.Name] = &gvar{kind: "bool", g: n}
		default:
			if b.Name == "_" {
				continue
			}
			if id, ok := v.(*sdql.Ident); ok {
				g.vars[b.Name] = g.lookupVar(id)
				continue
			}
			if lk, ok := v.(*sdql.LookupExpr); ok {
				if d := g.dictRef(lk); d != nil {
					g.vars[b.Name] = d
				}
				continue
			}
			if g.inPlace(v, e, i, b.Name) {
				g.vars[b.Name] = &gvar{kind: "view", def: v, env: g.clone()}
				continue
			}
			g.materialize(b.Name, v)
		}
	}
}

func laterMention(e *sdql.LetExpr, i int, name string) bool {
	for _, v := range e.Values[i+1:] {
		if mentions(v, name) {
			return true
		}
	}
	return false
}

// inPlace reports whether the dictionary v bound to name is used in place:
// it is one loop (re-running it costs what iterating a built dictionary
// costs) and every use is a sum over it, a lookup a range-indexed
// dictionary answers, or an addition into the destination.
func (g *gogen) inPlace(v sdql.Expr, e *sdql.LetExpr, i int, name string) bool {
	s, ok := v.(*sdql.SumExpr)
	if !ok {
		return false
	}
	key, _, ok := single(s.Body)
	if !ok {
		return false
	}
	switch s.Src.(type) {
	case *sdql.RangeExpr, *sdql.SliceExpr:
	case *sdql.Ident:
	default:
		return false
	}
	_, _, _, isRange := rangeView(v)
	good := true
	var visit func(x sdql.Expr, parent sdql.Expr)
	visit = func(x sdql.Expr, parent sdql.Expr) {
		if !good {
			return
		}
		if isName(x, name) {
			switch p := parent.(type) {
			case *sdql.SumExpr:
				_, uniq := stripUnique(key)
				if p.Src != x || !isRange && !uniq && !linear(p.Body, p.Val.Name) {
					good = false
				}
			case *sdql.LookupExpr:
				if !isRange {
					good = false
				}
			case *sdql.LetExpr, nil:
			case *sdql.BinaryExpr:
				if p.Op != sdql.MUL && p.Op != sdql.ADD {
					good = false
				}
			default:
				good = false
			}
			return
		}
		for _, c := range sdql.Children(x) {
			visit(c, x)
		}
	}
	for _, x := range e.Values[i+1:] {
		visit(x, nil)
	}
	visit(e.Body, e)
	return good
}

// materialize builds the order-1 dictionary v into a local: a growable
// dense slice when it is built once (outside loops) and only looked up,
// else a map reset at each evaluation.
func (g *gogen) materialize(name string, v sdql.Expr) {
	if sdql.Order(g.typeOf(v)) != 1 {
		g.failf(v, "a nested dictionary built by a let (%s)", sdql.PrintFlat(v))
		return
	}
	n := g.name(name)
	saveLoops, saveW, saveSet, saveExt := g.loops, g.writes, g.setOK, g.extent
	g.loops = nil
	if g.nest == 0 {
		g.needVec = true
		g.p("var %s []float64", n)
		g.into(v, &gdest{local: n, vec: true})
		g.vars[name] = &gvar{kind: "vec", g: n}
	} else {
		g.needMap = true
		g.decls = append(g.decls, fmt.Sprintf("var %s %sMap", n, g.fn))
		g.p("%s.Reset()", n)
		g.into(v, &gdest{local: n, mapv: true})
		g.vars[name] = &gvar{kind: "map", g: n}
	}
	g.loops, g.writes, g.setOK, g.extent = saveLoops, saveW, saveSet, saveExt
}

// linear reports whether e is additive in name (so that a sum over a
// dictionary may visit a key once per contribution instead of once).
func linear(e sdql.Expr, name string) bool {
	if !mentions(e, name) {
		return false
	}
	switch e := e.(type) {
	case *sdql.Ident:
		return e.Name == name
	case *sdql.BinaryExpr:
		switch e.Op {
		case sdql.MUL:
			return linear(e.X, name) && !mentions(e.Y, name) || linear(e.Y, name) && !mentions(e.X, name)
		case sdql.QUO:
			return linear(e.X, name) && !mentions(e.Y, name)
		case sdql.ADD, sdql.SUB:
			return linear(e.X, name) && linear(e.Y, name)
		}
	case *sdql.UnaryExpr:
		return e.Op == sdql.SUB && linear(e.X, name)
	case *sdql.DictExpr:
		for _, en := range e.Entries {
			if mentions(en.Key, name) || !linear(en.Val, name) {
				return false
			}
		}
		return true
	case *sdql.SumExpr:
		if mentions(e.Src, name) || e.Key.Name == name || e.Val.Name == name {
			return false
		}
		return linear(e.Body, name)
	case *sdql.LetExpr:
		for i, v := range e.Values {
			if mentions(v, name) || e.Names[i].Name == name {
				return false
			}
		}
		return linear(e.Body, name)
	case *sdql.IfExpr:
		return !mentions(e.Cond, name) && linear(e.Then, name) && (e.Else == nil || linear(e.Else, name))
	}
	return false
}

// loop emits the loop of a sum, binding its variables, around body.
func (g *gogen) loop(e *sdql.SumExpr, body func()) {
	g.loopOver(e.Src, e.Key.Name, e.Val.Name, linear(e.Body, e.Val.Name), e.Body, body)
}

// loopOver emits a loop over the dictionary src binding key and val;
// linear tells whether the loop's body is additive in val.
func (g *gogen) loopOver(src sdql.Expr, key, val string, lin bool, bodyExpr sdql.Expr, body func()) {
	save := g.clone()
	defer func() { g.vars = save }()
	g.nloop++
	id := g.nloop
	g.nest++
	defer func() { g.nest-- }()
	g.loops = append(g.loops, id)
	defer func() { g.loops = g.loops[:len(g.loops)-1] }()
	bindInt := func(name, goName, hi string) {
		if name != "_" {
			g.vars[name] = &gvar{kind: "int", g: goName, hi: hi, loop: id, rng: hi != "?"}
		}
	}
	// bindVal binds the value of an array element to a local when it is
	// used more than once or in an inner loop, else to the expression.
	bindVal := func(name, kind, x string) {
		if name == "_" {
			return
		}
		if uses(bodyExpr, name) > 1 || inLoop(bodyExpr, name) {
			n := g.name(name)
			g.p("%s := %s", n, x)
			x = n
		}
		g.vars[name] = &gvar{kind: kind, g: x, loop: id}
	}
	switch s := src.(type) {
	case *sdql.RangeExpr:
		lo, hi := g.int(s.Lo), g.int(s.Hi)
		base := val
		if base == "_" {
			base = key
		}
		i := g.name(base)
		start := g.b.Len()
		g.p("for %s := %s; %s < %s; %s++ {", i, lo, i, hi, i)
		ext := "?"
		if lo == "0" {
			if e := g.inputExpr(s.Hi); e != "" {
				ext = e
			}
		}
		bindInt(key, i, ext)
		bindInt(val, i, ext)
		for _, n := range []string{key, val} {
			if n != "_" {
				g.vars[n].rng = true
			}
		}
		body()
		g.p("}")
		if lo == "0" && ext != "?" && isSimple(hi) {
			g.bce(start, i, hi)
		}
		return
	case *sdql.SliceExpr:
		if id, ok := s.X.(*sdql.Ident); ok {
			a := g.lookupVar(id)
			if a.kind == "arrI" || a.kind == "arrR" {
				lo, hi := g.int(s.Lo), g.int(s.Hi)
				p := g.name(nonBlank(key, "p"))
				start := g.b.Len()
				g.p("for %s, %s_end := %s, %s; %s < %s_end; %s++ {", p, p, lo, hi, p, p, p)
				bindInt(key, p, "?")
				bindVal(val, map[string]string{"arrI": "int", "arrR": "real"}[a.kind], a.g+"["+p+"]")
				body()
				g.p("}")
				g.bceSlice(start, p, lo, hi)
				return
			}
		}
		g.failf(s, "a sub-array of a computed dictionary")
		return
	}
	d := g.dictRef(src)
	if d == nil {
		return
	}
	switch d.kind {
	case "arrI", "arrR":
		p := g.name(nonBlank(key, "p"))
		g.p("for %s := range %s {", p, d.g)
		bindInt(key, p, "?")
		bindVal(val, map[string]string{"arrI": "int", "arrR": "real"}[d.kind], d.g+"["+p+"]")
		body()
		g.p("}")
	case "map":
		t := g.name("t")
		k := nonBlank(key, "_")
		if k != "_" {
			k = g.name(key)
		}
		g.p("for %s, %s := range %s.Keys {", t, k, d.g)
		bindInt(key, k, "?")
		bindVal(val, "real", d.g+".Vals["+t+"]")
		body()
		g.p("}")
	case "view":
		g.loopView(d, key, val, lin, body)
	default:
		g.failf(src, "cannot iterate over %s", sdql.PrintFlat(src))
	}
}

// loopView iterates the view d = sum(<a, b> in S) { K -> V } in place:
// a loop over S binding key to K and val to V, valid when the keys K are
// unique or the body is additive in val.
func (g *gogen) loopView(d *gvar, key, val string, lin bool, body func()) {
	var def = d.def
	s, ok := def.(*sdql.SumExpr)
	if !ok {
		g.failf(def, "cannot iterate over %s in place", sdql.PrintFlat(def))
		return
	}
	K, V, ok := single(s.Body)
	if !ok {
		g.failf(def, "cannot iterate over %s in place", sdql.PrintFlat(def))
		return
	}
	_, _, _, isRange := rangeView(def)
	_, uniq := K.(*sdql.UniqueExpr)
	if !isRange && !uniq && !lin {
		g.failf(def, "iterating %s in place needs unique keys or a body additive in the value", sdql.PrintFlat(def))
		return
	}
	outer := g.vars
	g.vars = cloneEnv(d.env)
	innerLin := val == "_" || lin
	if val != "_" && kindOf(g.typeOf(V)) == kDict {
		innerLin = innerLin && linear(V, s.Val.Name)
	}
	g.loopOver(s.Src, s.Key.Name, s.Val.Name, innerLin, s.Body, func() {
		inner := g.vars
		env := cloneEnv(outer)
		if key != "_" {
			kk, _ := stripUnique(K)
			if id, ok := kk.(*sdql.Ident); ok && inner[id.Name] != nil {
				env[key] = inner[id.Name]
			} else {
				n := g.name(key)
				g.p("%s := %s", n, g.int(kk))
				env[key] = &gvar{kind: "int", g: n, hi: "?", loop: g.loops[len(g.loops)-1]}
			}
		}
		if val != "_" {
			if kindOf(g.typeOf(V)) == kDict {
				env[val] = &gvar{kind: "view", def: V, env: cloneEnv(inner)}
			} else {
				x := g.real(V)
				if strings.ContainsAny(x, " ()") {
					n := g.name(val)
					g.p("%s := %s", n, x)
					x = n
				}
				env[val] = &gvar{kind: "real", g: x}
			}
		}
		g.vars = env
		body()
		g.vars = inner
	})
	g.vars = outer
}

func nonBlank(s, def string) string {
	if s == "_" {
		return def
	}
	return s
}

func uses(e sdql.Expr, name string) int {
	n := 0
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if isName(x, name) {
			n++
		}
		return true
	})
	return n
}

func inLoop(e sdql.Expr, name string) bool {
	found := false
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if s, ok := x.(*sdql.SumExpr); ok && mentions(s.Body, name) {
			found = true
		}
		return !found
	})
	return found
}

// ---- destinations

// gdest is where into adds: the kernel's destination at a level (row is
// the Go expression of the current row for GoRows' level 1), or a local.
type gdest struct {
	lvl   int
	row   string
	keys  []sdql.Expr // the keys on the path, for unique coverage
	local string
	vec   bool
	mapv  bool
	// bounded: local is a dense []float64 of a fixed len; keys outside
	// it are dropped (never read)
	bounded bool
}

// into emits statements adding s * e into d (s is "" for 1).
func (g *gogen) into(e sdql.Expr, d *gdest) { g.intoScaled(e, d, "") }

func (g *gogen) intoScaled(e sdql.Expr, d *gdest, s string) {
	switch e := e.(type) {
	case *sdql.DictExpr:
		for _, en := range e.Entries {
			if kindOf(g.typeOf(en.Val)) != kDict {
				g.write(d, en.Key, mulS(s, g.real(en.Val)))
				continue
			}
			g.descend(d, en.Key, en.Val, s)
		}
	case *sdql.SumExpr:
		e = g.hoist(e)
		if f, cond := g.flatten(e); f != nil {
			g.p("if %s {", cond)
			g.loop(f, func() { g.intoScaled(f.Body, d, s) })
			g.p("}")
			return
		}
		g.loop(e, func() { g.intoScaled(e.Body, d, s) })
	case *sdql.LetExpr:
		save := g.clone()
		g.let(e)
		g.intoScaled(e.Body, d, s)
		g.vars = save
	case *sdql.IfExpr:
		g.p("if %s {", g.boolean(e.Cond))
		save := g.clone()
		g.intoScaled(e.Then, d, s)
		g.vars = save
		if e.Else != nil {
			g.p("} else {")
			g.intoScaled(e.Else, d, s)
			g.vars = save
		}
		g.p("}")
		g.setOK = false
	case *sdql.BinaryExpr:
		switch e.Op {
		case sdql.ADD:
			g.intoScaled(e.X, d, s)
			g.intoScaled(e.Y, d, s)
			return
		case sdql.SUB:
			g.intoScaled(e.X, d, s)
			g.intoScaled(e.Y, d, mulS(s, "-1"))
			return
		case sdql.MUL:
			tx, ty := g.typeOf(e.X), g.typeOf(e.Y)
			switch {
			case isScalarType(tx):
				g.intoScaled(e.Y, d, g.scale(s, e.X))
				return
			case isScalarType(ty):
				g.intoScaled(e.X, d, g.scale(s, e.Y))
				return
			case isLeafDictType(tx) && isLeafDictType(ty):
				g.intoScaled(g.outer(e), d, s)
				return
			}
		}
		g.failf(e, "cannot generate %s of dictionaries", e.Op)
	case *sdql.Ident, *sdql.LookupExpr:
		v := g.dictRef(e)
		if v == nil {
			return
		}
		switch v.kind {
		case "view":
			save := g.vars
			g.vars = cloneEnv(v.env)
			g.intoScaled(v.def, d, s)
			g.vars = save
		default:
			// add a built local or an array: a loop over it
			k, x := &sdql.Ident{Name: "k·"}, &sdql.Ident{Name: "v·"}
			sum := &sdql.SumExpr{Key: sdql.Binder{Name: k.Name}, Val: sdql.Binder{Name: x.Name}, Src: e,
				Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: k, Val: x}}}}
			g.extra[k], g.extra[x] = sdql.IntType, sdql.RealType
			g.extra[sum.Body] = g.typeOf(e)
			g.intoScaled(sum, d, s)
		}
	case *sdql.ZeroExpr:
	default:
		g.failf(e, "cannot generate the dictionary %s", sdql.PrintFlat(e))
	}
}

// scale returns a local holding s * x.
func (g *gogen) scale(s string, x sdql.Expr) string {
	v := mulS(s, g.real(x))
	if isSimple(v) {
		return v
	}
	c := g.name("c")
	g.p("%s := %s", c, v)
	return c
}

func isSimple(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return true
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// outer rewrites X * Y of leaf dictionaries as
// sum(<k1, v1> in X) { k1 -> sum(<k2, v2> in Y) { k2 -> v1 * v2 } }.
func (g *gogen) outer(e *sdql.BinaryExpr) sdql.Expr {
	g.nloop++
	n := strconv.Itoa(g.nloop)
	k1, v1, k2, v2 := &sdql.Ident{Name: "k·" + n}, &sdql.Ident{Name: "a·" + n}, &sdql.Ident{Name: "l·" + n}, &sdql.Ident{Name: "b·" + n}
	prod := &sdql.BinaryExpr{X: v1, Op: sdql.MUL, Y: v2}
	inner := &sdql.SumExpr{Key: sdql.Binder{Name: k2.Name}, Val: sdql.Binder{Name: v2.Name}, Src: e.Y,
		Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: k2, Val: prod}}}}
	out := &sdql.SumExpr{Key: sdql.Binder{Name: k1.Name}, Val: sdql.Binder{Name: v1.Name}, Src: e.X,
		Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: k1, Val: inner}}}}
	for _, x := range []sdql.Expr{k1, k2} {
		g.extra[x] = sdql.IntType
	}
	for _, x := range []sdql.Expr{v1, v2, prod} {
		g.extra[x] = sdql.RealType
	}
	g.extra[inner], g.extra[inner.Body] = g.typeOf(e.Y), g.typeOf(e.Y)
	g.extra[out.Body] = g.typeOf(e)
	g.extra[out] = g.typeOf(e)
	return out
}

// descend emits the child of d at key and adds s * val into it.
func (g *gogen) descend(d *gdest, key, val sdql.Expr, s string) {
	if d.local != "" || g.layout != GoRows || d.lvl != 0 {
		g.failf(key, "a nested dictionary into a %s destination", g.layout)
		return
	}
	row := g.name("row")
	g.p("%s := &dst[%s]", row, g.int(key))
	nd := &gdest{lvl: 1, row: row, keys: append(append([]sdql.Expr(nil), d.keys...), key)}
	g.intoScaled(val, nd, s)
}

// write emits the addition of v at key into d.
func (g *gogen) write(d *gdest, key sdql.Expr, v string) {
	k := g.int(key)
	switch {
	case d.vec:
		g.p("if %s >= len(%s) {", k, d.local)
		g.p("%s = %sGrow(%s, %s)", d.local, g.fn, d.local, k)
		g.p("}")
		g.p("%s[%s] += %s", d.local, k, v)
		return
	case d.mapv:
		g.p("%s.Add(%s, %s)", d.local, k, v)
		return
	case d.bounded:
		if !isSimple(k) {
			kk := g.name("j")
			g.p("%s := %s", kk, k)
			k = kk
		}
		if !isSimple(v) { // evaluated for every key, as the dictionary is
			x := g.name("x")
			g.p("%s := %s", x, v)
			v = x
		}
		g.p("if uint(%s) < uint(len(%s)) {", k, d.local)
		g.p("%s[%s] += %s", d.local, k, v)
		g.p("}")
		return
	}
	g.writes++
	keys := append(append([]sdql.Expr(nil), d.keys...), key)
	if !g.covered(keys) {
		g.setOK = false
	}
	switch {
	case g.layout == GoDense:
		if !g.shaped {
			ext := "?"
			if id, ok := key.(*sdql.Ident); ok {
				if x := g.vars[id.Name]; x != nil && x.hi != "" {
					ext = x.hi
				}
			}
			if g.extent == "" {
				g.extent = ext
			} else if g.extent != ext {
				g.extent = "?"
			}
		}
		g.p("dst[%s] +=: %s", k, v)
	case g.layout == GoMap:
		g.p("dst.Add(%s, %s)", k, v)
	case g.layout == GoRows && d.lvl == 1:
		g.p("%s.Add(%s, %s)", d.row, k, v)
	default:
		g.failf(key, "a scalar at the top level of a matrix destination")
	}
}

// covered reports whether each loop open in the destination's nest is
// indexed by a unique key of the path (so that keys never repeat).
func (g *gogen) covered(keys []sdql.Expr) bool {
	got := map[int]bool{}
	for _, k := range keys {
		u, isU := k.(*sdql.UniqueExpr)
		if isU {
			for _, n := range sdql.FreeVars(u.X) {
				if v := g.vars[n]; v != nil && v.loop != 0 {
					got[v.loop] = true
				}
			}
		} else if id, ok := k.(*sdql.Ident); ok {
			if v := g.vars[id.Name]; v != nil && v.loop != 0 && v.rng {
				got[v.loop] = true
			}
		}
	}
	for _, l := range g.loops {
		if !got[l] {
			return false
		}
	}
	return true
}

func mulS(s, v string) string {
	switch s {
	case "":
		return v
	case "-1":
		return "-" + paren(v)
	}
	return paren(s) + " * " + paren(v)
}

func paren(s string) string {
	if strings.ContainsAny(s, " +-*/") && !(strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balanced(s[1:len(s)-1])) {
		if strings.HasSuffix(s, ")") && !strings.ContainsAny(s[:strings.IndexByte(s, '(')+1], " +-*/") && isCall(s) {
			return s
		}
		return "(" + s + ")"
	}
	return s
}

func isCall(s string) bool {
	i := strings.IndexByte(s, '(')
	return i > 0 && balanced(s[i+1:len(s)-1])
}

func balanced(s string) bool {
	d := 0
	for _, r := range s {
		switch r {
		case '(', '[':
			d++
		case ')', ']':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

var _ = sort.Ints

// goMapRuntime is the int-keyed map of generated kernels: open addressing
// with linear probing over slots holding entry indices; entries in
// insertion order. MAP is replaced by the type's name.
const goMapRuntime = `
// MAP is an int-keyed map of reals: entries Keys[i] -> Vals[i], in
// insertion order. The zero value is empty.
type MAP struct {
	Keys  []int
	Vals  []float64
	slots []int32 // 1 + the entry in each slot, 0 when free; len a power of two
	shift uint
}

func (m *MAP) slot(k int) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> m.shift)
}

// Add adds v at k.
func (m *MAP) Add(k int, v float64) {
	if len(m.slots) == 0 {
		m.index()
	}
	mask := len(m.slots) - 1
	h := m.slot(k)
	for {
		e := m.slots[h]
		if e == 0 {
			break
		}
		if m.Keys[e-1] == k {
			m.Vals[e-1] += v
			return
		}
		h = (h + 1) & mask
	}
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, v)
	m.slots[h] = int32(len(m.Keys))
	if 2*len(m.Keys) > len(m.slots) {
		m.grow()
	}
}

func (m *MAP) grow() {
	m.slots = make([]int32, 2*len(m.slots))
	m.shift--
	mask := len(m.slots) - 1
	for i, k := range m.Keys {
		h := m.slot(k)
		for m.slots[h] != 0 {
			h = (h + 1) & mask
		}
		m.slots[h] = int32(i + 1)
	}
}

// Append adds the entry k -> v for a key k not in m; the entries are
// indexed by the next Add or Get.
func (m *MAP) Append(k int, v float64) {
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, v)
	m.slots = m.slots[:0]
}

// AppendDense adds the entries k -> w[k] for the distinct keys, none in m;
// they are indexed by the next Add or Get.
func (m *MAP) AppendDense(keys []int, w []float64) {
	m.Keys = append(m.Keys, keys...)
	vals := m.Vals
	for _, k := range keys {
		vals = append(vals, w[k])
	}
	m.Vals = vals
	m.slots = m.slots[:0]
}

// index sizes the slots for the entries (and one more) and fills them.
func (m *MAP) index() {
	n, shift := 8, uint(61)
	for n < 2*len(m.Keys)+2 {
		n, shift = 2*n, shift-1
	}
	if cap(m.slots) >= n {
		m.slots = m.slots[:n]
		clear(m.slots)
	} else {
		m.slots = make([]int32, n)
	}
	m.shift = shift
	mask := n - 1
	for i, k := range m.Keys {
		h := m.slot(k)
		for m.slots[h] != 0 {
			h = (h + 1) & mask
		}
		m.slots[h] = int32(i + 1)
	}
}

// Get returns the value at k (0 when absent).
func (m *MAP) Get(k int) float64 {
	if len(m.slots) == 0 {
		if len(m.Keys) == 0 {
			return 0
		}
		m.index()
	}
	mask := len(m.slots) - 1
	for h := m.slot(k); ; h = (h + 1) & mask {
		e := m.slots[h]
		if e == 0 {
			return 0
		}
		if m.Keys[e-1] == k {
			return m.Vals[e-1]
		}
	}
}

// Reset empties the map, keeping its storage.
func (m *MAP) Reset() {
	if 4*len(m.Keys) < len(m.slots) {
		mask := len(m.slots) - 1
		for _, k := range m.Keys {
			h := m.slot(k)
			for m.slots[h] == 0 || m.Keys[m.slots[h]-1] != k {
				h = (h + 1) & mask
			}
			m.slots[h] = 0
		}
	} else {
		clear(m.slots)
	}
	m.Keys, m.Vals = m.Keys[:0], m.Vals[:0]
}
`

// goVecRuntime holds the growable dense locals of generated kernels.
const goVecRuntime = `
// FNGrow returns v extended with zeros to cover index k.
func FNGrow(v []float64, k int) []float64 {
	if k < 0 {
		panic("FN: a negative key")
	}
	return append(v, make([]float64, max(k+1, 2*len(v))-len(v))...)
}

// FNAt returns v[k], 0 beyond v.
func FNAt(v []float64, k int) float64 {
	if uint(k) < uint(len(v)) {
		return v[k]
	}
	return 0
}
`
