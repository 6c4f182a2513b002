// Package exec compiles optimized physical SDQL programs to kernels and
// runs them over the storage formats' arrays, in destination-passing style
// (Kernel.RunInto refills a Result without allocating), and generates the
// Go source of the same kernels ahead of time (GenerateGo).
//
// A kernel is a tree of typed closures over a frame of slots (compile.go):
// every variable is resolved to a slot of its class at compile time, and
// dictionary-valued expressions add themselves into a destination they are
// given. The innermost loops of the paper's kernels run as whole-loop
// primitives over the slices instead (fast.go, loops_gen.go, view.go), and
// a matrix result built row by row is stored flat, the way a sparse format
// stores it (seg.go, segdict.go, segouter.go).
//
// With Options.Threads > 1 a run shares its work among goroutines where a
// step has enough of it (team.go): the primitives cut their loops by
// range, by blocks of rows balanced by entries, or into per-part
// accumulators merged after (parloops.go, par_seg.go, par_outer.go), and a
// program whose outermost loop no primitive runs has that loop split
// (parallel.go). Results equal the serial ones up to floating-point
// reassociation, and exactly where nothing is reassociated.
package exec
