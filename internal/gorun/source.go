// The Go source gorun writes besides the kernels: a runner per case and
// the main program with its printers.

package gorun

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math"
	"sort"
	"strconv"
	"strings"

	nexec "github.com/nablasd/nablasd/internal/legacyexec"
	"github.com/nablasd/nablasd/sdql"
)

// signature returns the Go names and types of the parameters of the
// kernel's function.
func signature(k *nexec.GoKernel) (names, types []string, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, k.Func+".go", k.Source, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Name.Name != k.Func {
			continue
		}
		for _, field := range fd.Type.Params.List {
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, field.Type); err != nil {
				return nil, nil, err
			}
			for _, n := range field.Names {
				names = append(names, n.Name)
				types = append(types, b.String())
			}
		}
		return names, types, nil
	}
	return nil, nil, fmt.Errorf("no func %s in the kernel's source", k.Func)
}

// runnerSource is the file of case i: func gorunCaseI() string binds the
// inputs, runs the kernel and returns its result as an SDQL literal.
func runnerSource(i int, c Case) (string, error) {
	k := c.Kernel
	names, types, err := signature(k)
	if err != nil {
		return "", err
	}
	if len(names) < len(k.Params) {
		return "", fmt.Errorf("func %s has %d parameters for %d inputs", k.Func, len(names), len(k.Params))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package main\n\nfunc gorunCase%d() string {\n", i)
	goName := map[string]string{}
	var args []string
	for j, p := range k.Params {
		v, ok := c.Inputs[p]
		if !ok {
			return "", fmt.Errorf("no binding for the input %s", p)
		}
		lit, err := goLiteral(v, types[j])
		if err != nil {
			return "", fmt.Errorf("input %s: %v", p, err)
		}
		fmt.Fprintf(&b, "\tvar %s %s = %s\n", names[j], types[j], lit)
		goName[p] = names[j]
		args = append(args, names[j])
	}
	call := func(extra ...string) string {
		return k.Func + "(" + strings.Join(append(append([]string(nil), args...), extra...), ", ") + ")"
	}
	dst := []string{"gorunDst"}
	if k.WorkType != "" { // one workspace, reused by reruns
		fmt.Fprintf(&b, "\tgorunWs := &%s{}\n", k.WorkType)
		dst = append(dst, "gorunWs")
	}
	ext := k.Extent
	if ext == "" && len(c.Shape) > 0 {
		ext = strconv.Itoa(c.Shape[0])
	}
	needExt := func() error {
		if ext == "" {
			return fmt.Errorf("a %s kernel needs the result's extent (Case.Shape)", k.Layout)
		}
		return nil
	}
	// twice: a rerun into the same destination, uncleared
	twice := func() string {
		s := "\t" + call(dst...) + "\n"
		return s + s
	}
	switch k.Layout {
	case nexec.GoScalar:
		fmt.Fprintf(&b, "\treturn gorunFloat(%s)\n", call(dst[1:]...))
	case nexec.GoDense, nexec.GoDiag, nexec.GoPositions:
		if err := needExt(); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\tgorunDst := make([]float64, %s)\n", ext)
		if k.Overwrites {
			b.WriteString(twice())
		} else {
			fmt.Fprintf(&b, "\t%s\n", call(dst...))
		}
		switch k.Layout {
		case nexec.GoDense:
			b.WriteString("\treturn gorunDense(gorunDst)\n")
		case nexec.GoDiag:
			b.WriteString("\treturn gorunDiag(gorunDst)\n")
		default:
			fmt.Fprintf(&b, "\treturn gorunPos(%s, %s, gorunDst)\n", goName[k.Pos], goName[k.Idx])
		}
	case nexec.GoMap:
		fmt.Fprintf(&b, "\tgorunDst := &%s{}\n\t%s\n\treturn gorunMap(gorunDst.Keys, gorunDst.Vals)\n", k.MapType, call(dst...))
	case nexec.GoCSR:
		if err := needExt(); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\tgorunDst := &%s{Pos: make([]int, (%s)+1)}\n%s\treturn gorunPos(gorunDst.Pos, gorunDst.Idx, gorunDst.Val)\n", k.CSRType, ext, twice())
	case nexec.GoRows:
		if err := needExt(); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\tgorunDst := make([]%s, %s)\n\t%s\n", k.MapType, ext, call(dst...))
		b.WriteString("\treturn gorunRows(len(gorunDst), func(k int) ([]int, []float64) { return gorunDst[k].Keys, gorunDst[k].Vals })\n")
	case nexec.GoValue:
		sig, err := typeSig(k.ResultType)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\treturn gorunPrint%s(%s)\n", sig, call())
	default:
		return "", fmt.Errorf("unknown layout %s", k.Layout)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// typeSig names a GoValue result type in printer names: R, I, B for
// float64, int, bool, M followed by the values' sig for map[int]V.
func typeSig(t string) (string, error) {
	switch t {
	case "float64":
		return "R", nil
	case "int":
		return "I", nil
	case "bool":
		return "B", nil
	}
	if v, ok := strings.CutPrefix(t, "map[int]"); ok {
		s, err := typeSig(v)
		return "M" + s, err
	}
	return "", fmt.Errorf("cannot print a result of type %s", t)
}

// goLiteral writes an input value as a Go literal of the parameter type t.
func goLiteral(v sdql.Value, t string) (string, error) {
	bad := func() (string, error) {
		s := sdql.FormatValue(v)
		if len(s) > 60 {
			s = s[:60] + "..."
		}
		return "", fmt.Errorf("cannot bind %s as a %s", s, t)
	}
	switch t {
	case "float64", "int", "bool":
		switch v := v.(type) {
		case sdql.Real:
			if t == "float64" {
				return floatLit(float64(v)), nil
			}
		case sdql.Int:
			if t != "bool" {
				return strconv.Itoa(int(v)), nil
			}
		case sdql.Bool:
			if t == "bool" {
				return strconv.FormatBool(bool(v)), nil
			}
		}
		return bad()
	case "[]int":
		a, ok := v.(sdql.IntArray)
		if !ok {
			return bad()
		}
		parts := make([]string, len(a))
		for i, x := range a {
			parts[i] = strconv.Itoa(x)
		}
		return "[]int{" + strings.Join(parts, ", ") + "}", nil
	case "[]float64":
		a, ok := v.(sdql.RealArray)
		if !ok {
			return bad()
		}
		parts := make([]string, len(a))
		for i, x := range a {
			parts[i] = floatLit(x)
		}
		return "[]float64{" + strings.Join(parts, ", ") + "}", nil
	}
	elem, ok := strings.CutPrefix(t, "map[int]")
	if !ok {
		return bad()
	}
	var parts []string
	var err error
	isDict := sdql.Entries(v, func(k int, x sdql.Value) bool {
		var lit string
		if lit, err = goLiteral(x, elem); err != nil {
			return false
		}
		parts = append(parts, strconv.Itoa(k)+": "+lit)
		return true
	})
	if err != nil {
		return "", err
	}
	if !isDict {
		return bad()
	}
	return t + "{" + strings.Join(parts, ", ") + "}", nil
}

// floatLit writes a float64 for a float64 variable or element.
func floatLit(x float64) string {
	switch {
	case math.IsNaN(x):
		return "gorunNaN()"
	case math.IsInf(x, 1):
		return "gorunInf(1)"
	case math.IsInf(x, -1):
		return "gorunInf(-1)"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// mainSource is main.go: it runs the live cases in order and holds the
// printers, those of GoValue results generated per result type.
func mainSource(cases []Case, live []int) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"sort\"\n\t\"strconv\"\n\t\"strings\"\n)\n\nfunc main() {\n")
	sigs := map[string]bool{"R": true, "I": true, "B": true}
	for _, i := range live {
		fmt.Fprintf(&b, "\tgorunDo(%d, gorunCase%d)\n", i, i)
		if k := cases[i].Kernel; k.Layout == nexec.GoValue {
			if s, err := typeSig(k.ResultType); err == nil {
				for ; strings.HasPrefix(s, "M"); s = s[1:] {
					sigs[s] = true
				}
			}
		}
	}
	b.WriteString("}\n" + printers)
	var names []string
	for s := range sigs {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		if !strings.HasPrefix(s, "M") {
			continue
		}
		fmt.Fprintf(&b, `
func gorunPrint%s(m %s) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.Itoa(k) + " -> " + gorunPrint%s(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
`, s, sigType(s), s[1:])
	}
	return b.String()
}

// sigType is the Go type of a sig (the inverse of typeSig).
func sigType(s string) string {
	switch s {
	case "R":
		return "float64"
	case "I":
		return "int"
	case "B":
		return "bool"
	}
	return "map[int]" + sigType(s[1:])
}

// printers are main.go's fixed functions: running a case, and printing
// scalars and the destinations of the layouts as SDQL literals.
const printers = `
func gorunDo(i int, run func() string) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Printf("gorun:%d:panic:%s\n", i, strings.ReplaceAll(fmt.Sprint(p), "\n", " "))
		}
	}()
	s := run()
	fmt.Printf("gorun:%d:ok:%s\n", i, s)
}

var _ = sort.Ints // used by the printers of map results

func gorunInf(sign int) float64 { return math.Inf(sign) }

func gorunNaN() float64 { return math.NaN() }

// gorunFloat prints a float64 so that SDQL reads it back exactly.
func gorunFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "(0.0 / 0.0)"
	case math.IsInf(x, 1):
		return "(1.0 / 0.0)"
	case math.IsInf(x, -1):
		return "(-1.0 / 0.0)"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func gorunPrintR(x float64) string { return gorunFloat(x) }

func gorunPrintI(x int) string { return strconv.Itoa(x) }

func gorunPrintB(x bool) string { return strconv.FormatBool(x) }

func gorunMap(keys []int, vals []float64) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.Itoa(k) + " -> " + gorunFloat(vals[i])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func gorunDense(d []float64) string {
	keys := make([]int, len(d))
	for i := range keys {
		keys[i] = i
	}
	return gorunMap(keys, d)
}

func gorunDiag(d []float64) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = strconv.Itoa(i) + " -> {" + strconv.Itoa(i) + " -> " + gorunFloat(x) + "}"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func gorunPos(pos, idx []int, d []float64) string {
	var parts []string
	for k := 0; k+1 < len(pos); k++ {
		parts = append(parts, strconv.Itoa(k)+" -> "+gorunMap(idx[pos[k]:pos[k+1]], d[pos[k]:pos[k+1]]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func gorunRows(n int, row func(int) ([]int, []float64)) string {
	parts := make([]string, n)
	for k := range parts {
		keys, vals := row(k)
		parts[k] = strconv.Itoa(k) + " -> " + gorunMap(keys, vals)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
`
