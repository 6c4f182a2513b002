package main

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd/sdql"
)

// demoProgram is BATAx (section 5.4 of the ∇SD paper): βAᵀAx.
const demoProgram = `// BATAx: beta * A^T * A * x (section 5.4 of the paper)
sum(<i, r> in A)
  sum(<j, v1> in r)
    sum(<k, v2> in r)
      { j -> ((beta * v1) * v2) * (x(k)) }
`

// cmdDemo evaluates the paper's BATAx kernel on built-in data.
func cmdDemo(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usagef("demo takes no arguments")
	}
	A := sdql.NewDict()
	for i, row := range [][]float64{{1, 0, 2}, {0, 3, 0}, {4, 0, 5}} {
		r := sdql.NewDict()
		for j, v := range row {
			if v != 0 {
				r.Set(j, sdql.Real(v))
			}
		}
		A.Set(i, r)
	}
	x := sdql.NewDict()
	for i, v := range []float64{1, 2, 3} {
		x.Set(i, sdql.Real(v))
	}
	inputs := map[string]sdql.Value{"A": A, "x": x, "beta": sdql.Real(0.5)}
	e, err := sdql.Parse("batax.sdql", demoProgram)
	if err != nil {
		return err
	}
	v, err := sdql.Eval(e, inputs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "program (batax.sdql):\n%s\n", sdql.Print(e))
	fmt.Fprintf(stdout, "inputs:\n  A    = %s   (3×3, 5 stored entries)\n  x    = %s\n  beta = 0.5\n", sdql.FormatValue(A), sdql.FormatValue(x))
	fmt.Fprintf(stdout, "result (βAᵀAx):\n  %s\n", sdql.FormatValue(v))
	return nil
}
