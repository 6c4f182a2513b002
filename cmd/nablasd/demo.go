package main

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// demoProgram is BATAx (section 5.4 of the ∇SD paper): βAᵀAx.
const demoProgram = `// BATAx: beta * A^T * A * x (section 5.4 of the paper)
sum(<i, r> in A)
  sum(<j, v1> in r)
    sum(<k, v2> in r)
      { j -> ((beta * v1) * v2) * (x(k)) }
`

// cmdDemo runs the paper's BATAx kernel and its gradient with respect to x
// on built-in data through the whole pipeline: A in CSR, x dense.
func cmdDemo(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usagef("demo takes no arguments")
	}
	e, err := sdql.Parse("batax.sdql", demoProgram)
	if err != nil {
		return err
	}
	A, err := formats.FromCoords([]int{3, 3}, [][]int{{0, 0, 1, 2, 2}, {0, 2, 1, 0, 2}}, []float64{1, 2, 3, 4, 5}, formats.CSR)
	if err != nil {
		return err
	}
	x, err := formats.FromCoords([]int{3}, [][]int{{0, 1, 2}}, []float64{1, 2, 3}, formats.Dense)
	if err != nil {
		return err
	}
	p := &program{name: "batax.sdql", expr: e,
		inputs: map[string]*input{"A": {name: "A", tensor: A}, "x": {name: "x", tensor: x}, "beta": {name: "beta", number: 0.5, isNum: true}},
		values: map[string]sdql.Value{"beta": sdql.Real(0.5)}}
	if p.info, err = sdql.Check(e, &sdql.CheckConfig{File: p.name, Inputs: p.types(), Strict: true}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "program (batax.sdql):\n%s\n\n", sdql.Print(e))
	fmt.Fprintf(stdout, "inputs: A (3×3, CSR) = %s\n        x (dense)    = %s\n        beta         = 0.5\n\n",
		sdql.FormatValue(formats.ToValue(A)), sdql.FormatValue(formats.ToValue(x)))
	var x1 execFlags
	x1.exec, x1.dict, x1.threads, x1.dps = "compiled", "intmap", 1, true
	for _, wrt := range []string{"", "x"} {
		var d *derivation
		if wrt != "" {
			if d, err = p.differentiate(&common{wrt: wrt, opt: "full"}, &diffFlags{mode: "forward"}); err != nil {
				return err
			}
		}
		pl, err := prepare(p, d, "full")
		if err != nil {
			return err
		}
		rs := runStats{repeat: 1}
		v, _, _, err := x1.execute(p, pl, &rs, nil)
		if err != nil {
			return err
		}
		if wrt == "" {
			fmt.Fprintf(stdout, "βAᵀAx, compiled from the optimized program:\n%s\n= %s\n\n", indent(sdql.Print(pl.prog)), sdql.FormatValue(v))
			continue
		}
		fmt.Fprintf(stdout, "its gradient with respect to x (βAᵀA), differentiated, optimized and fused with CSR\n(the paper's section 5.4 loop nest):\n%s\n= %s\n",
			indent(sdql.Print(pl.prog)), sdql.FormatValue(v))
	}
	fmt.Fprintln(stdout, "\nTry: go run ./cmd/nablasd plan -e '...' --wrt x   (every stage), or see README.md.")
	return nil
}

func indent(s string) string {
	out := "  "
	for _, c := range s {
		out += string(c)
		if c == '\n' {
			out += "  "
		}
	}
	return out
}
