package exec

import "github.com/nablasd/nablasd/sdql"

// Options.MemoryLimit bounds the Go heap a run may grow to. The tensors a
// kernel builds check it when they are sized (a dense level of known
// extent, before it is allocated) and when they grow: the heap's objects
// now plus the bytes about to be allocated must fit, else the run stops
// with an error naming both.

// reserve stops the run when more bytes for this tensor would take the
// heap past the limit.
func (rt *tensor) reserve(more float64) {
	if rt.limit <= 0 {
		return
	}
	heap := sdql.HeapBytes()
	if more > float64(rt.limit) || heap+more > float64(rt.limit) {
		what := "a dictionary the kernel builds"
		if rt.t.Name == "out" {
			what = "the result"
		}
		panic(rtErrorf("%s needs more than %s, over the memory limit of %s", what,
			sdql.FormatBytes(heap+more), sdql.FormatBytes(float64(rt.limit))))
	}
}
