// Package nablasd is a sparse-tensor query engine with automatic
// differentiation: the Go API of the ∇SD design (Shaikhha, Huot,
// Hashemian, "∇SD: Differentiable Programming for Sparse Tensors").
//
// Programs are written in SDQLite (doc/spec.md), a small functional
// language over semi-ring dictionaries, against logical tensors: a vector
// is {i -> v}, a matrix {i -> {j -> v}}. They are differentiated there,
// then optimized and fused with the storage format of each input (CSR,
// CSC, COO, dense, ...) and compiled to a kernel over the formats' arrays.
//
// This package is the one way in, and owns the pipeline in one place:
//
//	Prepare(src, inputs, options)     parse, check, lint, shape and memory checks  → *Query
//	Query.Plan(wrt...)                differentiate (package ad), optimize (fuse)  → *Plan, every stage
//	Query.Compile(wrt...)             compile the program that runs (exec)         → *Kernel
//	                                  (native code once it has run long enough: Options.Exec "auto")
//	Kernel.NewResult, Kernel.Run      run into a reusable destination              → *Result
//	Query.Value, Grad, ValueAndGrad   the same in one call (several gradients and the value: one kernel)
//	Query.VJP, JVP, HVP               vector–Jacobian, Jacobian–vector and Hessian–vector products
//	Query.PlanDerivative, CompileDerivative   any of them as a Plan or a Kernel (Derivative)
//	Query.GenerateGo                  the kernel as Go source, ahead of time
//	Query.Problem, Query.Minimize     fit inputs to minimize the program: gonum's optimize
//	                                  (L-BFGS, CG, ...; Adam) over one kernel run per point
//
// The shortest use, the gradient of ½‖Ax − b‖² with respect to x:
//
//	q, err := nablasd.Prepare(`
//	    let r = sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) } in
//	    let d = r - b in
//	    0.5 * sum(<i, v> in d) v * v`,
//	    nablasd.Inputs{"A": A, "x": x, "b": b}, nil)
//	g, err := q.Grad("x") // g[0] is Aᵀ(Ax − b), on x's stored positions
//
// Inputs are formats.Tensor values in any storage format (CSR builds one
// from scipy-style arrays), gonum vectors and matrices, []float64, Go maps
// and numbers (see Inputs); Load reads Matrix Market files, SuiteSparse
// matrices and synthetic data as the command line does.
//
// The derivative of a result of type tensor n with respect to an input of
// type tensor m is a tensor (n+m), the result's indices first, given on
// the input's stored positions. Options.Mode chooses how it is computed:
// ∇SD's tensorized forward mode, or reverse mode (linearize, unzip,
// transpose), whose gradient costs a small constant times the program at
// any depth; "auto", the default, proposes reverse mode for a loss (a
// result of lower order than the inputs) and keeps the mode whose
// optimized program the cost model estimates cheaper (Plan.Mode,
// Plan.ModeChoice). A Kernel compiled once runs over new
// inputs of the same formats (a batch of groups) into a destination it
// reuses without allocating.
//
// Mistakes are caught before running: a lookup whose key ranges over
// another input's dimension is checked against it ("x has 100 entries but
// is indexed by A's columns (5300)"; Options.NoShapeCheck keeps the
// language's partial-dictionary semantics), the precedence trap of sum's
// body is a warning (Query.Warnings), and a program certain to need more
// memory than the budget (Options.MemoryLimit, by default 80% of the
// machine's; without a budget, than the machine has) is an error, not an
// exhausted machine.
//
// The command nablasd (cmd/nablasd) is this package behind flags.
package nablasd
