// Package gogen generates Go source from the loop IR (package lower): the
// same kernel the closure runtime (package exec) runs, as a
// self-contained Go file for ahead-of-time use, in the manner of the ∇SD
// paper's generated C++ (section 5.5) and of TACO's and Finch's code
// generators.
//
// # The generated file
//
// Generate writes one gofmt-clean file, standard library only, with no
// interface values and, when the inputs are storage formats, no Go maps:
//
//	func FUNC(params..., dst *FUNCResult) error    // a dictionary result
//	func FUNC(params...) (float64, error)          // a scalar (int, bool likewise)
//
// The parameters are the program's (lower.Program.Params), in order:
// scalars as float64, int or bool, the formats' arrays as []int and
// []float64 (bound without copying: A_pos = t.Pos[1] of a formats.Tensor
// t, as the doc comment and Kernel.Params say), dictionary inputs as
// nested maps, converted at entry into the kernel's own tensors, keys
// ascending. With Options.Workspace the intermediates live in a FUNCWork
// the caller passes after dst (ws *FUNCWork), reused across calls.
//
// Every tensor of the program becomes a struct type mirroring its levels'
// storage (lower.Storage): a dense level is its extent and, unless every
// key is present, a presence slice; a sparse level (Gustavson's
// workspace) a marker slice and the list of its keys; a hashed level a
// generated open-addressing table keyed by (parent position, key), its
// children chained in insertion order; an appended level (each parent's
// children inserted in one burst) its keys in insertion order, each
// parent's consecutive, and per-key marks of the current parent's
// (Gustavson's workspace row appended to a compressed result); a
// positions level the input's own arrays (and, full, no presence of its
// own: a position is present with its parent). A Transpose (a counting
// sort of a compressed level) fills int slices the function keeps in the
// workspace, with a copy of the structure it sorted: a call over an equal
// structure (compared entry by entry) reuses them. Values are one slice,
// Vals. The result type (FUNCResult) also
// has Reset, Entries (every value with its keys, ascending, as
// exec.Result.Entries) and String (an SDQL value literal).
//
// # The function
//
// The function's statements are the IR's, one for one: loops stay loops
// (a loop over a compressed level's positions runs over the arrays'
// segments, and a loop over all rows of a level only to loop over their
// positions becomes one loop over all positions, so Go checks no bounds
// but the gathers' and scatters'; a result stored on an input's
// positions is marked and stored through segments too; a value a loop
// adds into at a fixed position is summed in a local by the lowering,
// lower.LocalAccumulators), a Select is
// an if into a temporary, so each branch is evaluated only when taken,
// and a Fail returns an error naming the program position. The tensors' hot fields are locals. A key
// a dense result cannot hold and an input that breaks its format's
// invariants (a runtime error of Go's bounds checks, recovered) are
// errors too: the function never panics on its inputs.
//
// Four rewrites serve Go's compiler where a hand would have written the
// loop differently:
//
//   - a loop storing into one row of a full dense level (a scaled row
//     added into a matrix row, an elementwise map's output), or an
//     innermost loop adding into a vector's sized dense level (a
//     gradient's x̄ at an offset), checks the row's keys once and stores
//     through a segment of the row (storage_dense_seg.go);
//   - a temporary vector whose only reader is a copy into the result (a
//     gradient's x̄) is kept in the result's memory when it fits there,
//     and the copy only clears the keys it does not hold (inresult.go);
//   - a tensor whose locals never drift from its struct (dense, diagonal
//     and positions levels) is not stored back at returns, so its locals
//     are dead after their last use (tensor.go, driftingLocals);
//   - a row loop nested in a pass that calls a math function, or in a
//     kernel of several passes, is a function of its own (go:noinline),
//     so that its counter and lengths stay in registers (outline.go).
//
// Primitive marks (lower.Prim) need nothing: the loop they mark, printed
// as it is, is what Go compiles well.
//
// # Parallel loops
//
// With Options.Parallel, a kernel whose program has loops lowering marked
// parallel (lower.Par) takes a last parameter, threads int, after dst and
// ws (Kernel.Parallel):
//
//	func FUNC(params..., dst *FUNCResult, ws *FUNCWork, threads int) error
//
// and runs each such loop, when threads > 1 and the loop has enough work
// (its iterations and the entries of the rows it reads, at least
// Options.MinParallel), on up to threads goroutines, as exec runs it with
// exec.Options.Threads: each takes a contiguous range of the iterations
// (balanced by the rows' entries where the loop reads a compressed
// level's rows), scalar sums are added up in worker order, a dense full
// result each iteration writes under its own key is written in place, a
// workspace the loop fills is each worker's own, and a tensor the loop
// adds into is the function's for the first worker and a zeroed copy for
// each other, added into it after, in worker order, range by range (when
// the loop follows the tensor's Init, the first worker also does the
// Init's clear, as the others zero their copies: deferclear.go). Results
// equal the serial ones up to the order of floating-point additions.
// Copies are made of tensors whose levels are dense, positions or
// diagonal, and of rows appended under a dense level (BATAx's Gustavson
// rows: each worker fills rows of its own, appended to the result whole);
// a loop adding into a sparse or hashed level runs serially, and a comment
// in the generated code says why.
// A loop that keeps no copies (it adds into variables, or writes by key in
// place), or copies of few values (a short gradient's: a copy a chunk),
// runs in chunks, 8 a worker, that the workers take in turn, so that a
// worker whose processor is slow takes fewer (PFXRunChunks).
// Each worker recovers its own panics; the function returns the first
// worker's (or chunk's) error in order, the serial loop's. The thread
// count is a parameter, not a package variable, so that goroutines may
// call one kernel with different counts; with a workspace the workers'
// copies are kept in it, and FUNCWork.Workers says how many goroutines a
// loop of the last call ran on. The file's PFXWorkers, PFXSplit,
// PFXChunks, PFXRun, PFXRunChunks and PFXRanges are the helpers
// (parallel.go has the details).
package gogen
