// The Go source gorun writes besides the kernels: a runner per case and
// the main program with its printers.

package gorun

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// runnerSource is the file of case i: func gorunCaseI() (string, error)
// binds the inputs, runs the kernel and returns its result as SDQL
// literals (String, then a tab and Entries, for a tensor), or the error
// the kernel returned.
func runnerSource(i int, c Case) (string, error) {
	k := c.Kernel
	var b strings.Builder
	fmt.Fprintf(&b, "package main\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n\nfunc gorunCase%d() (string, error) {\n", i)
	bind := func(in map[string]sdql.Value, prefix string) ([]string, error) {
		var args []string
		for _, p := range k.Params {
			v, ok := in[p.Name]
			if !ok {
				return nil, fmt.Errorf("no binding for the input %s", p.Name)
			}
			lit, err := goLiteral(v, p.GoType)
			if err != nil {
				return nil, fmt.Errorf("input %s: %v", p.Name, err)
			}
			name := prefix + p.GoName
			fmt.Fprintf(&b, "\tvar %s %s = %s\n", name, p.GoType, lit)
			args = append(args, name)
		}
		return args, nil
	}
	args, err := bind(c.Inputs, "gorunIn")
	if err != nil {
		return "", err
	}
	var prime []string
	if c.Prime != nil {
		if prime, err = bind(c.Prime, "gorunPrime"); err != nil {
			return "", fmt.Errorf("prime: %v", err)
		}
	}
	// the threads argument goes last, after dst and ws
	var threads []string
	if k.Parallel {
		threads = []string{strconv.Itoa(max(c.Threads, 1))}
	}
	if k.Scalar != "" {
		if k.WorkType != "" {
			fmt.Fprintf(&b, "\tgorunWs := &%s{}\n", k.WorkType)
			args = append(args, "gorunWs")
			prime = append(prime, "gorunWs")
		}
		if c.Prime != nil {
			fmt.Fprintf(&b, "\t_, _ = %s(%s)\n", k.Func, strings.Join(append(prime, threads...), ", "))
		}
		fmt.Fprintf(&b, "\tr, err := %s(%s)\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n", k.Func, strings.Join(append(args, threads...), ", "))
		fmt.Fprintf(&b, "\treturn %s(r), nil\n}\n", map[string]string{"float64": "gorunFloat", "int": "gorunInt", "bool": "gorunBool"}[k.Scalar])
		return b.String(), nil
	}
	fmt.Fprintf(&b, "\tvar gorunDst %s\n", k.ResultType)
	args = append(args, "&gorunDst")
	if c.PrimeApart {
		fmt.Fprintf(&b, "\tvar gorunPrimeDst %s\n", k.ResultType)
		prime = append(prime, "&gorunPrimeDst")
	} else {
		prime = append(prime, "&gorunDst")
	}
	if k.WorkType != "" {
		fmt.Fprintf(&b, "\tgorunWs := &%s{}\n", k.WorkType)
		args = append(args, "gorunWs")
		prime = append(prime, "gorunWs")
	}
	if c.Prime != nil {
		fmt.Fprintf(&b, "\t_ = %s(%s)\n", k.Func, strings.Join(append(prime, threads...), ", "))
	}
	if c.PrimeApart {
		b.WriteString("\tprimed := gorunPrimeDst.String()\n")
		b.WriteString("\tdefer func() {\n\t\tif s := gorunPrimeDst.String(); s != primed {\n\t\t\tpanic(\"gorun: a later call changed an earlier call's destination: \" + primed + \" then \" + s)\n\t\t}\n\t}()\n")
	}
	call := k.Func + "(" + strings.Join(append(args, threads...), ", ") + ")"
	// twice into the same destination and workspace: the second run must
	// find them as the first left them and give the same result
	fmt.Fprintf(&b, "\tif err := %s; err != nil {\n\t\treturn \"\", err\n\t}\n\tfirst := gorunDst.String()\n", call)
	fmt.Fprintf(&b, "\tif err := %s; err != nil {\n\t\treturn \"\", err\n\t}\n", call)
	b.WriteString("\tif s := gorunDst.String(); s != first {\n\t\tpanic(\"gorun: rerun into the same destination: \" + first + \" then \" + s)\n\t}\n")
	b.WriteString("\treturn first + \"\\t\" + gorunEntries(gorunDst.Entries), nil\n}\n")
	return b.String(), nil
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
			switch t {
			case "int":
				return strconv.Itoa(int(v)), nil
			case "float64":
				return floatLit(float64(v)), nil
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
// printers.
func mainSource(live []int) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"strconv\"\n\t\"strings\"\n)\n\nfunc main() {\n")
	for _, i := range live {
		fmt.Fprintf(&b, "\tgorunDo(%d, gorunCase%d)\n", i, i)
	}
	b.WriteString("}\n" + printers)
	return b.String()
}

// printers are main.go's fixed functions: running a case, and printing
// scalars and a result's entries as SDQL literals.
const printers = `
func gorunDo(i int, run func() (string, error)) {
	oneLine := func(s string) string { return strings.ReplaceAll(s, "\n", " ") }
	defer func() {
		if p := recover(); p != nil {
			fmt.Printf("gorun:%d:panic:%s\n", i, oneLine(fmt.Sprint(p)))
		}
	}()
	s, err := run()
	if err != nil {
		fmt.Printf("gorun:%d:error:%s\n", i, oneLine(err.Error()))
		return
	}
	fmt.Printf("gorun:%d:ok:%s\n", i, s)
}

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

func gorunInt(x int) string { return strconv.Itoa(x) }

func gorunBool(x bool) string { return strconv.FormatBool(x) }

// gorunEntries prints what a result's Entries gives as a nested literal:
// the entries come keys ascending, so braces open and close as the keys
// change.
func gorunEntries(each func(func([]int, float64) bool)) string {
	var b strings.Builder
	var prev []int
	each(func(keys []int, v float64) bool {
		d := 0
		if prev == nil {
			b.WriteString("{")
		} else {
			for d < len(keys)-1 && keys[d] == prev[d] {
				d++
			}
			b.WriteString(strings.Repeat("}", len(prev)-1-d) + ", ")
		}
		for l := d; l < len(keys); l++ {
			b.WriteString(strconv.Itoa(keys[l]) + " -> ")
			if l < len(keys)-1 {
				b.WriteString("{")
			}
		}
		b.WriteString(gorunFloat(v))
		prev = append(prev[:0], keys...)
		return true
	})
	if prev == nil {
		return "{}"
	}
	return b.String() + strings.Repeat("}", len(prev))
}
`
