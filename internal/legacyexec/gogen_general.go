// The general translation of the Go code generator (layout GoValue): any
// checked program, logical or physical, as a Go function that returns its
// result as a typed Go value. GenerateGoKernel falls back to it when no
// specialized layout expresses the program. It mirrors the reference
// interpreter (sdql/eval.go) construct by construct and favours exactness
// and readability over speed.
//
// This file holds the entry point and the representations of values;
// gogen_general_rep.go infers them, gogen_general_emit.go translates
// expressions, gogen_general_sum.go loops and accumulations, and
// gogen_general_helpers.go writes the helper functions of generated files.

package legacyexec

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

// The kinds of representation.
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

// The scalar and range representations.
var (
	gvReal     = &gvRep{kind: gvScalar, base: "float64"}
	gvInt      = &gvRep{kind: gvScalar, base: "int"}
	gvBool     = &gvRep{kind: gvScalar, base: "bool"}
	gvRangeRep = &gvRep{kind: gvRange, base: "int"}
)

// gvMapOf is the representation of a map of values of representation val.
func gvMapOf(val *gvRep) *gvRep { return &gvRep{kind: gvMap, val: val} }

// gvSeqOf is the representation of an array of base (float64 or int).
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

// String describes r in error messages.
func (r *gvRep) String() string {
	switch r.kind {
	case gvSeq:
		return "an array " + r.goType()
	case gvRange:
		return "a range"
	}
	return r.goType()
}

// isDict reports whether r holds a dictionary.
func (r *gvRep) isDict() bool { return r.kind != gvScalar }

// numeric reports whether r is a float64 or int.
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

// same reports whether r and o are the same representation.
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

// gvAtomic is the value of the Go operand x.
func gvAtomic(r *gvRep, x string) gvVal { return gvVal{rep: r, x: x, prec: precAtom} }

// gvEnv binds SDQL names to translated values.
type gvEnv struct {
	name string
	v    gvVal
	next *gvEnv
}

// with binds name (unless "_") to v.
func (e *gvEnv) with(name string, v gvVal) *gvEnv {
	if name == "_" {
		return e
	}
	return &gvEnv{name, v, e}
}

// lookup finds the innermost binding of name.
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

// fail stops the translation with an error at e's position.
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
	writeDoc(&f, opts.Doc)
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
