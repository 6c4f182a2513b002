// The general translation of the Go code generator (layout GoValue): any
// checked program, logical or physical, as a Go function that returns its
// result as a typed Go value. GenerateGoKernel falls back to it when no
// specialized layout expresses the program. It mirrors the reference
// interpreter (sdql/eval.go) construct by construct and favours exactness
// and readability over speed.
//
// This file holds the entry point, the representations of values and their
// inference; gogen_general_emit.go translates expressions and
// gogen_general_helpers.go writes the helper functions of generated files.

package exec

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// gvKind is the kind of Go representation of a value in the general
// translation.
type gvKind int

const (
	gvScalar gvKind = iota // a float64, int or bool
	gvMap                  // a dictionary built by the program or an input's: map[int]V
	gvSeq                  // a storage array or a sub-array X(lo:hi) of one, keyed by position in X
	gvRange                // the range (lo:hi): the keys lo..hi-1, each its own value
)

// gvRep is how the general translation holds a value in Go. A value's
// representation depends on where it came from, not only on its SDQL type:
// an array input, a sub-array, a range and a built dictionary all have
// dictionary types. Representations mirror the interpreter's run-time
// values: an int that the interpreter promotes to a real is a float64.
type gvRep struct {
	kind gvKind
	base string // gvScalar: float64, int or bool; gvSeq: the element type (float64 or int)
	val  *gvRep // gvMap: the values' representation, a scalar or a map
}

var (
	gvReal     = &gvRep{kind: gvScalar, base: "float64"}
	gvInt      = &gvRep{kind: gvScalar, base: "int"}
	gvBool     = &gvRep{kind: gvScalar, base: "bool"}
	gvRangeRep = &gvRep{kind: gvRange, base: "int"}
)

func gvMapOf(val *gvRep) *gvRep { return &gvRep{kind: gvMap, val: val} }

func gvSeqOf(base string) *gvRep { return &gvRep{kind: gvSeq, base: base} }

// goType is the Go type of a scalar, map or sequence ("" for a range,
// which is two ints).
func (r *gvRep) goType() string {
	switch r.kind {
	case gvScalar:
		return r.base
	case gvMap:
		return "map[int]" + r.val.goType()
	case gvSeq:
		return "[]" + r.base
	}
	return ""
}

// sig names a scalar or map representation in helper names: R, I, B for
// float64, int, bool and M followed by the values' sig for a map. No sig
// is a prefix of another, so concatenated sigs are unambiguous.
func (r *gvRep) sig() string {
	switch r.kind {
	case gvMap:
		return "M" + r.val.sig()
	case gvRange:
		return "Range"
	}
	return map[string]string{"float64": "R", "int": "I", "bool": "B"}[r.base]
}

func (r *gvRep) String() string {
	switch r.kind {
	case gvSeq:
		return "an array " + r.goType()
	case gvRange:
		return "a range"
	}
	return r.goType()
}

func (r *gvRep) isDict() bool { return r.kind != gvScalar }

func (r *gvRep) numeric() bool { return r.kind == gvScalar && r.base != "bool" }

// numericLeaves reports whether r is a number or a map of numbers.
func (r *gvRep) numericLeaves() bool {
	if r.kind == gvMap {
		return r.val.numericLeaves()
	}
	return r.kind == gvSeq || r.kind == gvRange || r.numeric()
}

// elem is the representation of the values iterating a dictionary binds.
func (r *gvRep) elem() *gvRep {
	switch r.kind {
	case gvMap:
		return r.val
	case gvSeq:
		return &gvRep{kind: gvScalar, base: r.base}
	}
	return gvInt
}

// built is the representation of r stored in a map or combined with other
// dictionaries: sequences and ranges become maps.
func (r *gvRep) built() *gvRep {
	switch r.kind {
	case gvSeq, gvRange:
		return gvMapOf(r.elem())
	}
	return r
}

func (r *gvRep) same(o *gvRep) bool {
	if r.kind != o.kind || r.base != o.base {
		return false
	}
	return r.kind != gvMap || r.val.same(o.val)
}

// gvJoin is the representation holding values of a and of b (nil when
// none does): int and float64 join to float64 (the interpreter's Add
// promotes, and a float64 holds the ints of a program exactly), maps
// join value-wise. With keep, two sequences or two ranges stay what they
// are; otherwise dictionaries join as maps.
func gvJoin(a, b *gvRep, keep bool) *gvRep {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.kind == gvScalar && b.kind == gvScalar:
		if a.base == b.base {
			return a
		}
		if a.numeric() && b.numeric() {
			return gvReal
		}
		return nil
	case a.kind == gvScalar || b.kind == gvScalar:
		return nil
	case keep && a.kind == b.kind && a.kind != gvMap && a.base == b.base:
		return a
	}
	v := gvJoin(a.built().val, b.built().val, false)
	if v == nil {
		return nil
	}
	return gvMapOf(v)
}

// gvTypeRep is the representation of a value of type t built by the
// program (a zero, an empty dictionary): dictionaries are maps.
func gvTypeRep(t sdql.Type) *gvRep {
	switch t := t.(type) {
	case sdql.BasicType:
		switch t {
		case sdql.RealType:
			return gvReal
		case sdql.IntType, sdql.DenseIntType:
			return gvInt
		case sdql.BoolType:
			return gvBool
		}
	case *sdql.DictType:
		if v := gvTypeRep(t.Val); v != nil {
			return gvMapOf(v)
		}
	}
	return nil
}

// gvMul is the representation of a * b (sdql.Mul): numbers multiply (int
// by int stays int), bools and, a number scales a dictionary, a dictionary
// times anything is {k -> v * b}.
func gvMul(a, b *gvRep) *gvRep {
	if a.isDict() {
		if v := gvMul(a.elem(), b); v != nil {
			return gvMapOf(v)
		}
		return nil
	}
	if b.isDict() {
		if !a.numeric() {
			return nil
		}
		if v := gvMul(a, b.elem()); v != nil {
			return gvMapOf(v)
		}
		return nil
	}
	switch {
	case a.base == "bool" && b.base == "bool":
		return gvBool
	case !a.numeric() || !b.numeric():
		return nil
	case a.base == "int" && b.base == "int":
		return gvInt
	}
	return gvReal
}

// gvReals is r with every number a float64 (the result of a division).
func gvReals(r *gvRep) *gvRep {
	if r.kind == gvMap {
		return gvMapOf(gvReals(r.val))
	}
	return gvReal
}

// gvCoerce is the interpreter's coerce: an int where the checker typed
// the value real is a real.
func gvCoerce(r *gvRep, t sdql.Type) *gvRep {
	if t == sdql.RealType && r.kind == gvScalar && r.base == "int" {
		return gvReal
	}
	return r
}

// gvVal is a translated value: its representation and Go expressions.
type gvVal struct {
	rep *gvRep
	// x is the Go expression of a scalar or map, the array of a sequence
	x string
	// lo, hi are the bounds of a sequence or range; lo is "" for a whole
	// array (0 and len(x))
	lo, hi string
	prec   int  // the precedence of x as a Go expression
	konst  bool // x is a Go constant
}

// Go operator precedences, for parenthesizing composed expressions.
const (
	precOr = 1 + iota
	precAnd
	precCmp
	precAdd
	precMul
	precUnary
	precAtom
)

// par returns v's expression parenthesized when its precedence is below p.
func par(v gvVal, p int) string {
	if v.prec < p {
		return "(" + v.x + ")"
	}
	return v.x
}

func gvAtomic(r *gvRep, x string) gvVal { return gvVal{rep: r, x: x, prec: precAtom} }

// gvEnv binds SDQL names to translated values.
type gvEnv struct {
	name string
	v    gvVal
	next *gvEnv
}

func (e *gvEnv) with(name string, v gvVal) *gvEnv {
	if name == "_" {
		return e
	}
	return &gvEnv{name, v, e}
}

func (e *gvEnv) lookup(name string) (gvVal, bool) {
	for ; e != nil; e = e.next {
		if e.name == name {
			return e.v, true
		}
	}
	return gvVal{}, false
}

// gvGen translates one program.
type gvGen struct {
	info    *sdql.Info
	fn      string
	b       *strings.Builder
	used    map[string]bool
	helpers map[string]string // generated helper functions by name
}

// gvFail carries a generation error out of the translation.
type gvFail struct{ err error }

func (g *gvGen) fail(e sdql.Expr, format string, args ...any) {
	pos := ""
	if e != nil && e.Pos().IsValid() {
		pos = e.Pos().String() + ": "
	}
	panic(gvFail{fmt.Errorf("exec: GenerateGo: %s%s", pos, fmt.Sprintf(format, args...))})
}

// static is the checker's type of e (real where it has none, as in the
// interpreter).
func (g *gvGen) static(e sdql.Expr) sdql.Type {
	if t := g.info.Types[e]; t != nil {
		return t
	}
	return sdql.RealType
}

// generateGoValue is the general translation: GoValue's layout.
func generateGoValue(prog sdql.Expr, info *sdql.Info, funcName string, opts GoOptions) (k *GoKernel, err error) {
	g := &gvGen{info: info, fn: funcName, b: &strings.Builder{}, used: map[string]bool{}, helpers: map[string]string{}}
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(gvFail)
			if !ok {
				panic(p)
			}
			k, err = nil, f.err
		}
	}()
	k = &GoKernel{Func: funcName, Layout: GoValue}
	var env *gvEnv
	var params []string
	for _, name := range info.FreeNames() {
		r := gvParamRep(info.Free[name])
		if r == nil {
			return nil, fmt.Errorf("exec: GenerateGo: input %s of type %s: not a scalar, storage array or dictionary", name, info.Free[name])
		}
		gname := g.fresh(name)
		env = env.with(name, gvAtomic(r, gname))
		params = append(params, gname+" "+r.goType())
		k.Params = append(k.Params, name)
	}
	res := g.emit(prog, env)
	res = g.conv(res, res.rep.built())
	g.p("return %s", res.x)
	k.ResultType = res.rep.goType()
	body := gvUseLocals(g.b.String())

	var f bytes.Buffer
	fmt.Fprintf(&f, "// Code generated by nablasd (exec.GenerateGo); DO NOT EDIT.\n\npackage %s\n\n", opts.Package)
	names := make([]string, 0, len(g.helpers))
	for n := range g.helpers {
		names = append(names, n)
	}
	sort.Strings(names)
	var helpers strings.Builder
	for _, n := range names {
		helpers.WriteString("\n" + g.helpers[n])
	}
	if strings.Contains(body, "math.") || strings.Contains(helpers.String(), "math.") {
		f.WriteString("import \"math\"\n\n")
	}
	fmt.Fprintf(&f, "// %s is the kernel of\n//\n", funcName)
	for _, line := range strings.Split(sdql.Print(prog), "\n") {
		fmt.Fprintf(&f, "//\t%s\n", line)
	}
	if res.rep.kind == gvScalar {
		f.WriteString("//\n// It returns the result.\n")
	} else {
		f.WriteString("//\n// It returns the result as a map from its keys to its values (a missing\n" +
			"// key is zero), nested for higher orders. The result may share maps with\n// the inputs: treat both as read-only.\n")
	}
	fmt.Fprintf(&f, "func %s(%s) %s {\n%s}\n%s", funcName, strings.Join(params, ", "), k.ResultType, body, helpers.String())
	out, err := format.Source(f.Bytes())
	if err != nil {
		return nil, fmt.Errorf("internal error: exec: GenerateGo: generated Go does not parse: %v\n%s", err, f.Bytes())
	}
	k.Source = out
	return k, nil
}

// gvParamRep is the representation of an input of type t: scalars,
// storage arrays ({dense_int -> int|real}) as slices, dictionaries as
// maps.
func gvParamRep(t sdql.Type) *gvRep {
	if d, ok := t.(*sdql.DictType); ok && d.Key == sdql.DenseIntType {
		switch d.Val {
		case sdql.IntType, sdql.DenseIntType:
			return gvSeqOf("int")
		case sdql.RealType:
			return gvSeqOf("float64")
		}
	}
	return gvTypeRep(t)
}

// gvUseMarker follows the declaration of a local the translation may end
// up not reading (Go rejects unused locals); gvUseLocals resolves it.
const gvUseMarker = "/*gv:use "

// gvUseLocals replaces each use marker by "_ = x" when x is never read
// (only declared or assigned), and drops it otherwise.
func gvUseLocals(body string) string {
	reads := map[string]int{}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\n\nfunc f() {\n"+body+"}\n", parser.SkipObjectResolution)
	if err != nil {
		return body // format.Source reports it
	}
	written := map[*ast.Ident]bool{}
	lhs := func(es ...ast.Expr) {
		for _, e := range es {
			if id, ok := e.(*ast.Ident); ok {
				written[id] = true
			}
		}
	}
	ast.Inspect(f.Decls[0], func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs(n.Lhs...)
		case *ast.RangeStmt:
			lhs(n.Key, n.Value)
		case *ast.IncDecStmt:
			lhs(n.X)
		case *ast.ValueSpec:
			for _, id := range n.Names {
				written[id] = true
			}
		case *ast.Ident:
			if !written[n] {
				reads[n.Name]++
			}
		}
		return true
	})
	var out strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		name, ok := strings.CutPrefix(line, gvUseMarker)
		if !ok {
			out.WriteString(line)
			continue
		}
		name = strings.TrimSuffix(strings.TrimSpace(name), "*/")
		if reads[name] == 0 {
			out.WriteString("_ = " + name + "\n")
		}
	}
	return out.String()
}

// rep infers the representation of e's value in env (whose values give
// the representations of the names), failing on what the translation
// cannot express.
func (g *gvGen) rep(e sdql.Expr, env *gvEnv) *gvRep {
	switch e := e.(type) {
	case *sdql.Ident:
		v, ok := env.lookup(e.Name)
		if !ok {
			g.fail(e, "undefined: %s", e.Name)
		}
		return v.rep
	case *sdql.IntLit:
		if g.static(e) == sdql.RealType {
			return gvReal
		}
		return gvInt
	case *sdql.RealLit:
		return gvReal
	case *sdql.BoolLit:
		return gvBool
	case *sdql.SumExpr:
		src := g.rep(e.Src, env)
		if !src.isDict() {
			g.fail(e.Src, "cannot iterate over %s", src)
		}
		inner := env.with(e.Key.Name, gvVal{rep: gvInt}).with(e.Val.Name, gvVal{rep: src.elem()})
		return g.sumRep(e, g.rep(e.Body, inner))
	case *sdql.DictExpr:
		var v *gvRep
		for _, en := range e.Entries {
			g.keyRep(en.Key, env)
			if v = gvJoin(v, g.rep(en.Val, env).built(), false); v == nil {
				g.fail(en.Val, "cannot generate dictionary values of representations that do not join")
			}
		}
		if v != nil {
			return gvMapOf(v)
		}
		if r := gvTypeRep(g.static(e)); r != nil && r.kind == gvMap {
			return r
		}
		g.fail(e, "cannot generate an empty dictionary of type %s", g.static(e))
	case *sdql.LookupExpr:
		x := g.rep(e.X, env)
		if !x.isDict() {
			g.fail(e.X, "cannot look up a key in %s", x)
		}
		g.keyRep(e.Key, env)
		return gvCoerce(x.elem(), g.static(e))
	case *sdql.SliceExpr:
		x := g.rep(e.X, env)
		if x.kind != gvSeq {
			g.fail(e.X, "cannot generate a sub-array of %s (want a storage array)", x)
		}
		g.keyRep(e.Lo, env)
		g.keyRep(e.Hi, env)
		return x
	case *sdql.RangeExpr:
		g.keyRep(e.Lo, env)
		g.keyRep(e.Hi, env)
		return gvRangeRep
	case *sdql.LetExpr:
		used := gvLetUses(e)
		for i, n := range e.Names {
			if used[i] {
				env = env.with(n.Name, gvVal{rep: g.rep(e.Values[i], env)})
			}
		}
		return g.rep(e.Body, env)
	case *sdql.IfExpr:
		if c := g.rep(e.Cond, env); !c.same(gvBool) {
			g.fail(e.Cond, "cannot generate an if condition of %s", c)
		}
		th := g.rep(e.Then, env)
		el := gvTypeRep(g.static(e))
		if e.Else != nil {
			el = g.rep(e.Else, env)
		}
		j := gvJoin(th, el, true)
		if j == nil {
			g.fail(e, "cannot generate if branches of %s and %s", th, el)
		}
		return gvCoerce(j, g.static(e))
	case *sdql.UnaryExpr:
		x := g.rep(e.X, env)
		if e.Op == sdql.NOT {
			if !x.same(gvBool) {
				g.fail(e, "cannot generate not of %s", x)
			}
			return gvBool
		}
		if !x.numericLeaves() {
			g.fail(e, "cannot negate %s", x)
		}
		return x.built()
	case *sdql.BinaryExpr:
		return g.binaryRep(e, env)
	case *sdql.CallExpr:
		if x := g.rep(e.X, env); !x.numeric() {
			g.fail(e.X, "cannot generate %s of %s", e.Op, x)
		}
		if _, ok := gvOps[e.Op]; !ok {
			g.fail(e, "cannot generate the operation %s", e.Op)
		}
		return gvReal
	case *sdql.UniqueExpr:
		return g.rep(e.X, env)
	case *sdql.ZeroExpr:
		if r := gvTypeRep(e.T); r != nil {
			return r
		}
		g.fail(e, "cannot generate zero of type %s", e.T)
	case *sdql.OneHotExpr:
		n := sdql.Order(e.T)
		if n <= 0 {
			return gvReal
		}
		x := g.rep(e.X, env)
		for i := 0; i < n; i++ {
			if !x.isDict() {
				g.fail(e.X, "cannot generate onehot[%s] of %s", e.T, x)
			}
			x = x.elem()
		}
		return gvTypeRep(sdql.Outer(e.T, e.T))
	}
	g.fail(e, "cannot generate the expression %T", e)
	return nil
}

// keyRep checks that e gives a number usable as a key.
func (g *gvGen) keyRep(e sdql.Expr, env *gvEnv) {
	if r := g.rep(e, env); !r.numeric() {
		g.fail(e, "cannot generate a key of %s", r)
	}
}

// sumRep is the representation of a sum whose body has representation
// body: a float64 where the interpreter accumulates reals, else the body's
// built representation joined with the zero of the sum's type.
func (g *gvGen) sumRep(e *sdql.SumExpr, body *gvRep) *gvRep {
	t := g.static(e)
	if t == sdql.RealType {
		if !body.numeric() {
			g.fail(e.Body, "cannot generate a real sum of %s", body)
		}
		return gvReal
	}
	r := gvJoin(body.built(), gvTypeRep(t), false)
	if r == nil {
		g.fail(e.Body, "cannot generate a sum of %s (of type %s)", body, t)
	}
	return r
}

func (g *gvGen) binaryRep(e *sdql.BinaryExpr, env *gvEnv) *gvRep {
	x, y := g.rep(e.X, env), g.rep(e.Y, env)
	t := g.static(e)
	switch e.Op {
	case sdql.LAND, sdql.LOR:
		if !x.same(gvBool) || !y.same(gvBool) {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvBool
	case sdql.ADD, sdql.SUB:
		var j *gvRep
		switch {
		case x.kind == gvScalar && y.kind == gvScalar:
			j = gvJoin(x, y, false)
		case x.isDict() && y.isDict():
			j = gvJoin(x.built(), y.built(), false)
		}
		if j == nil || e.Op == sdql.SUB && !j.numericLeaves() {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvCoerce(j, t)
	case sdql.MUL:
		m := gvMul(x, y)
		if m == nil {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvCoerce(m, t)
	case sdql.QUO:
		if !y.numeric() || !x.numericLeaves() {
			g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
		}
		return gvReals(x.built())
	}
	// comparisons
	bools := x.same(gvBool) && y.same(gvBool) && (e.Op == sdql.EQ || e.Op == sdql.NEQ)
	if !bools && !(x.numeric() && y.numeric()) {
		g.fail(e, "cannot generate %s of %s and %s", e.Op, x, y)
	}
	return gvBool
}

// gvLetUses reports which names of a let the translation binds: those
// its body or the later values it binds use (an unused value has no
// effect and is not computed).
func gvLetUses(e *sdql.LetExpr) []bool {
	used := make([]bool, len(e.Names))
	rest := &sdql.LetExpr{Let: e.Let, Body: e.Body}
	for i := len(e.Names) - 1; i >= 0; i-- {
		if used[i] = gvLive(rest, e.Names[i].Name); used[i] {
			rest = &sdql.LetExpr{Let: e.Let, Body: e.Body,
				Names:  append([]sdql.Binder{e.Names[i]}, rest.Names...),
				Values: append([]sdql.Expr{e.Values[i]}, rest.Values...)}
		}
	}
	return used
}

// gvLive reports whether the translation of e reads the free variable
// name: whether name is free in e, not counting the let values and onehot
// operands the translation drops.
func gvLive(e sdql.Expr, name string) bool {
	if name == "_" {
		return false
	}
	switch x := e.(type) {
	case *sdql.Ident:
		return x.Name == name
	case *sdql.SumExpr:
		if gvLive(x.Src, name) {
			return true
		}
		return x.Key.Name != name && x.Val.Name != name && gvLive(x.Body, name)
	case *sdql.LetExpr:
		used := gvLetUses(x)
		for i, n := range x.Names {
			if used[i] && gvLive(x.Values[i], name) {
				return true
			}
			if n.Name == name {
				return false
			}
		}
		return gvLive(x.Body, name)
	case *sdql.OneHotExpr:
		if sdql.Order(x.T) <= 0 {
			return false
		}
	}
	for _, k := range sdql.Children(e) {
		if gvLive(k, name) {
			return true
		}
	}
	return false
}
