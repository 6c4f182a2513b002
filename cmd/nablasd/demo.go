package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nablasd/nablasd"
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
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			return helpShown
		}
		return usagef("demo takes no arguments")
	}
	A, err := formats.FromCoords([]int{3, 3}, [][]int{{0, 0, 1, 2, 2}, {0, 2, 1, 0, 2}}, []float64{1, 2, 3, 4, 5}, formats.CSR)
	if err != nil {
		return err
	}
	x := nablasd.DenseVector([]float64{1, 2, 3})
	q, err := nablasd.Prepare(demoProgram, nablasd.Inputs{"A": A, "x": x, "beta": 0.5}, &nablasd.Options{File: "batax.sdql", JITAfter: oneShot})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "program (batax.sdql):\n%s\n\n", sdql.Print(q.Program()))
	fmt.Fprintf(stdout, "inputs: A (3×3, CSR) = %s\n        x (dense)    = %s\n        beta         = 0.5\n\n",
		sdql.FormatValue(formats.ToValue(A)), sdql.FormatValue(formats.ToValue(x)))
	for _, wrt := range [][]string{nil, {"x"}} {
		k, err := q.Compile(wrt...)
		if err != nil {
			return err
		}
		res := k.NewResult()
		if err := k.Run(res, nil); err != nil {
			return err
		}
		prog := indent(sdql.Print(k.Plan().Program))
		if wrt == nil {
			fmt.Fprintf(stdout, "βAᵀAx, compiled from the optimized program:\n%s\n= %s\n\n", prog, res)
			continue
		}
		fmt.Fprintf(stdout, "its gradient with respect to x (βAᵀA), differentiated, optimized and fused with CSR\n(the paper's section 5.4 loop nest):\n%s\n= %s\n",
			prog, res)
	}
	fmt.Fprintln(stdout, "\nTry: go run ./cmd/nablasd plan -e '...' --wrt x   (every stage), or see doc/cli.md.")
	return nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
