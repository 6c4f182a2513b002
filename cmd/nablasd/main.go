// Command nablasd is the command-line front of the nablasd engine: it
// evaluates SDQL programs and their gradients over sparse tensors bound
// from numbers, Matrix Market files, SuiteSparse matrices or synthetic
// data. See "nablasd help" and ../../README.md.
//
// Exit status: 0 on success, 1 on bad input (programs, files, values),
// 2 on bad usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// usageError is bad usage of the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

const usage = `nablasd: a sparse-tensor query engine with automatic differentiation

Usage:
  nablasd eval  (-f FILE | -e TEXT) [--in NAME=VALUE]... [--out FILE]
  nablasd grad  (-f FILE | -e TEXT) --wrt NAME[,NAME...] [--in NAME=VALUE]... [--out FILE]
  nablasd plan  (-f FILE | -e TEXT) [--wrt NAME[,NAME...]] [--in NAME=VALUE]...
  nablasd gen   (-f FILE | -e TEXT) [--wrt NAME[,NAME...]] --in NAME=VALUE... [-o kernel.go]
  nablasd demo
  nablasd help

VALUE is a number (beta=0.7) or tensor data with an optional storage format:
  A=matrix.mtx[.gz][:FORMAT]          a Matrix Market file (one column: a vector)
  A=suitesparse:bcspwr10[:FORMAT]     a SuiteSparse matrix by name ($NABLASD_DATA)
  A=synthetic:rows=1000,cols=1000,density=0.01,seed=1[:FORMAT]
FORMAT is one of dense, coo, csr, csc, dcsr, dense_col, csf (default csr for
sparse matrices, coo for sparse vectors, dense for array files).

The result prints as an SDQL literal with sorted keys; --out FILE.mtx writes
it as Matrix Market instead (orders 1 and 2).

grad, plan and gen differentiate in --mode auto (default), forward or reverse:
  --value               also the program's value, from the same run
  --wrt x,b             several inputs, from one reverse sweep
  --vjp NAME=VALUE      vector-Jacobian product: the cotangent (of the result's
                        type) bound to the new variable NAME; needs --wrt
  --jvp NAME=VALUE      Jacobian-vector product: the tangent of input NAME
                        (repeatable; no --wrt)
  --hvp NAME=VALUE      Hessian-vector product of a real-valued program with
                        respect to input NAME in the direction VALUE (no --wrt)
Several results print one per line: value: ..., grad x: ...

gen writes the Go source of the optimized program's kernel (--opt none: of
the logical program, its tensor inputs Go maps): loops into a destination for
the benchmark kernels' shapes, else a function returning the result as Go
values (nested map[int]V for dictionaries).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status. It never
// panics on any input: a panic is reported as an internal error.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "nablasd: internal error: %v\n", r)
			status = 3
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "eval":
		err = cmdEval(args[1:], stdout, stderr)
	case "grad":
		err = cmdGrad(args[1:], stdout, stderr)
	case "plan":
		err = cmdPlan(args[1:], stdout, stderr)
	case "gen":
		err = cmdGen(args[1:], stdout, stderr)
	case "demo":
		err = cmdDemo(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q (want eval, grad, plan, gen, demo or help)", args[0])
	}
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "nablasd: %v\nRun 'nablasd help' for usage.\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "nablasd: %v\n", err)
	return 1
}
