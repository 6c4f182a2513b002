package gogen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// Outlined row loops. A kernel of several passes keeps many slices and
// extents live through its loops, and Go's register allocator, which
// allocates a function at a time, then keeps an inner loop's counter or a
// length it tests in memory: a store and a load on every iteration of the
// hottest loop (a three-pass gradient ran 1.3× its hand-written closed
// form for that alone). A hand-written kernel calls small functions for its row
// loops (a dot product, a scatter) and so does the generated one: a loop
// over a row's segment nested in another loop becomes a function of its
// own, not inlined (go:noinline), called with the slices and values it
// reads and returning the variables it sets, and the error it may return.
// The call costs a few nanoseconds a row; rows of a dense matrix indexed
// at an offset (a few columns of a dense factor), or read backward (the
// band's gather of 5 taps, ȳ(t - z)), stay inline.

// outlineWanted reports whether the loop about to be emitted over the
// segments segs should become a function: over the segments of rows (no
// dense row at an offset), nested in a loop that calls a function (exp,
// tanh, ...: everything live across the call is spilled, and reloaded in
// the inner loop) or in a kernel of several passes (whose arrays are live
// from one to the next). Measured both ways on the workloads:
// gradients whose pass calls exp or tanh, or of three passes, gained 5–15%
// outlined; a one-pass kernel calling nothing lost 15%, the call costing
// more than the registers saved. A loop storing into a row at an offset
// (dsegs: the downsampling's x̄(2i + k) += ȳ(i) K(k), 8 taps a row) stays
// inline too: outlined, its native gradient ran at 1.16-1.20x the
// hand-written loop, inline at 0.96-0.99x.
func (g *gen) outlineWanted(segs []segRef, back []backRef, dsegs []denseSeg, body lower.Stmt) bool {
	if len(g.loopBodies) == 0 || len(segs) == 0 || len(back) > 0 {
		return false // a backward read is at an offset (backsegments.go)
	}
	if g.passes < 2 && !callsOut(g.loopBodies[len(g.loopBodies)-1]) {
		return false
	}
	for _, sg := range segs {
		if sg.off != nil {
			return false
		}
	}
	for _, d := range dsegs {
		if d.off != nil {
			return false
		}
	}
	nested := false
	lower.WalkStmts(body, func(s lower.Stmt) {
		switch s.(type) {
		case *lower.For, *lower.ForLevel, *lower.Search, *lower.Transpose, *lower.Init:
			nested = true
		}
	})
	return !nested
}

// goBuiltins are the predeclared names and packages generated code uses
// that a loop's function needs no parameter for.
var goBuiltins = map[string]bool{
	"len": true, "cap": true, "uint": true, "int": true, "float64": true, "bool": true,
	"true": true, "false": true, "nil": true, "max": true, "min": true, "append": true,
	"clear": true, "copy": true, "make": true, "panic": true, "string": true, "int32": true,
	"math": true, "fmt": true, "strconv": true, "strings": true, "sort": true,
}

// localType is the Go type of a local a loop's body may read: one a loop
// declared (typed), else one of localTypes'.
func (g *gen) localType(n string) (string, bool) {
	if t, ok := g.typedLocals[n]; ok {
		return t, true
	}
	if g.baseTypes == nil {
		g.baseTypes = g.localTypes()
	}
	t, ok := g.baseTypes[n]
	return t, ok
}

// localTypes are the Go types of the function's locals that setting up
// names (before any loop is emitted): the program's variables, its arrays
// and the tensors' locals. localType makes it once: emitting every loop
// outlined asking for it again was quadratic in the program's loops.
func (g *gen) localTypes() map[string]string {
	ts := map[string]string{}
	for v, n := range g.vars {
		ts[n] = goKind(v.Kind)
	}
	for a, n := range g.arrays {
		ts[n] = "[]" + goKind(a.Kind)
	}
	for _, ti := range g.order {
		for f, n := range ti.local {
			switch {
			case f == valsField:
				ts[n] = "[]" + goKind(ti.t.Leaf)
			case strings.HasPrefix(f, "N"):
				ts[n] = "int"
			case strings.HasPrefix(f, "Present"), strings.HasPrefix(f, "Mark"):
				ts[n] = "[]bool"
			case strings.HasPrefix(f, "All"):
				ts[n] = "bool"
			}
		}
	}
	return ts
}

// typed records the Go type of a local a loop declares, for outlining.
func (g *gen) typed(name, goType string) { g.typedLocals[name] = goType }

// emitOutlined emits a loop (its Go text, from its first statement to the
// end of the for) as a call of a new function that runs it, and reports
// whether it could: every name the text reads from outside must be a
// local of known type, and none a tensor's pointer. segments are the
// loop's own segments, which it reslices.
func (g *gen) emitOutlined(text string, segments map[string]bool) bool {
	fset, f, err := parseBody([]byte(text))
	if err != nil {
		return false
	}
	free := freeNamesIn(f)
	var params []string
	for _, n := range free.order {
		if goBuiltins[n] {
			continue
		}
		if _, ok := g.localType(n); !ok {
			if strings.HasPrefix(n, g.pfx) && g.top.taken(n) {
				continue // a helper of the file
			}
			return false
		}
		params = append(params, n)
	}
	fn := f.Decls[0].(*ast.FuncDecl)
	// the outside variables the loop sets, returned (a segment of the
	// loop is resliced in it, and dead after it); its returns (of an
	// error) return them too
	var sets []string
	for _, n := range free.sets {
		if !segments[n] && !goBuiltins[n] {
			sets = append(sets, n)
		}
	}
	var returns []*ast.ReturnStmt
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ReturnStmt:
			returns = append(returns, x)
		case *ast.FuncLit:
			return false
		}
		return true
	})
	for _, n := range sets {
		if t, _ := g.localType(n); strings.HasPrefix(t, "[]") {
			return false // a slice that grows: its new header would have to come back
		}
	}
	for _, r := range returns {
		if len(r.Results) == 0 {
			return false
		}
		res := make([]ast.Expr, 0, len(sets)+1)
		for _, n := range sets {
			res = append(res, ast.NewIdent(n))
		}
		r.Results = append(res, r.Results[len(r.Results)-1])
	}
	name := g.top.name(g.pfx + "Loop")
	for g.loc.taken(name) {
		name = g.top.name(g.pfx + "Loop")
	}
	g.loc.reserve(name)
	var b bytes.Buffer
	var ps, rs []string
	for _, n := range params {
		t, _ := g.localType(n)
		ps = append(ps, n+" "+t)
	}
	for _, n := range sets {
		t, _ := g.localType(n)
		rs = append(rs, t)
	}
	fails := len(returns) > 0
	if fails {
		rs = append(rs, "error")
	}
	fmt.Fprintf(&b, "// %s runs a row loop of %s (outline.go).\n//\n//go:noinline\nfunc %s(%s)", name, g.fn, name, strings.Join(ps, ", "))
	if len(rs) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(rs, ", "))
	}
	b.WriteString(" {\n")
	for _, s := range fn.Body.List {
		if err := printer.Fprint(&b, fset, s); err != nil {
			return false
		}
		b.WriteByte('\n')
	}
	if len(rs) > 0 {
		res := append([]string(nil), sets...)
		if fails {
			res = append(res, "nil")
		}
		fmt.Fprintf(&b, "return %s\n", strings.Join(res, ", "))
	}
	b.WriteString("}\n\n")
	g.outlined.Write(b.Bytes())

	lhs := append([]string(nil), sets...)
	var e string
	if fails {
		e = g.loc.name("err")
		g.line("var %s error", e)
		lhs = append(lhs, e)
	}
	call := fmt.Sprintf("%s(%s)", name, strings.Join(params, ", "))
	if len(lhs) > 0 {
		g.line("%s = %s", strings.Join(lhs, ", "), call)
	} else {
		g.line("%s", call)
	}
	if fails {
		g.line("if %s != nil {", e)
		g.returnErr(e)
		g.line("}")
	}
	return true
}

// callsOut reports whether a statement calls a function Go does not
// compile inline (every math function but sqrt and abs).
func callsOut(s lower.Stmt) bool {
	found := false
	lower.WalkStmtExprs(s, func(e lower.Expr) {
		lower.WalkExpr(e, func(x lower.Expr) {
			if c, ok := x.(*lower.Call); ok && c.Fn != "sqrt" && c.Fn != "abs" {
				found = true
			}
		})
	})
	return found
}

// countPasses counts the top-level statements of a program's body that
// hold nested loops (a loop over rows and their entries): the kernel's
// passes whose arrays stay live into the next. A flat loop (a norm
// over a vector) does not count: outlining the other pass's rows for it cost more
// than it saved.
func countPasses(body lower.Stmt) int {
	n := 0
	for _, s := range topLevel(body) {
		if loopDepth(s) >= 2 {
			n++
		}
	}
	return n
}

// loopDepth is the deepest nesting of loops in s.
func loopDepth(s lower.Stmt) int {
	deepest := 0
	var walk func(s lower.Stmt, d int)
	walk = func(s lower.Stmt, d int) {
		switch x := s.(type) {
		case *lower.Block:
			for _, y := range x.List {
				walk(y, d)
			}
		case *lower.If:
			walk(x.Then, d)
			walk(x.Else, d)
		case *lower.For:
			deepest = max(deepest, d+1)
			walk(x.Body, d+1)
		case *lower.ForLevel:
			deepest = max(deepest, d+1)
			walk(x.Body, d+1)
		case *lower.Search:
			walk(x.Body, d)
		case *lower.Locate:
			walk(x.Body, d)
		}
	}
	walk(s, 0)
	return deepest
}
