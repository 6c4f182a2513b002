package legacyexec

import (
	"runtime/metrics"
	"sync"

	"github.com/nablasd/nablasd/sdql"
)

// hashedEntryBytes is the least a hashed dictionary takes per key: the key,
// the value and the index's slot.
const hashedEntryBytes = 32

// heapSample reads the Go heap's objects, the measure Options.MemoryLimit
// bounds (the inputs, the destination, the workspaces, garbage not yet
// collected).
var heapSample = struct {
	sync.Mutex
	s []metrics.Sample
}{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}

func heapBytes() float64 {
	heapSample.Lock()
	defer heapSample.Unlock()
	metrics.Read(heapSample.s)
	if heapSample.s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return float64(heapSample.s[0].Value.Uint64())
}

// checkGrowth stops a run (an rtError, recovered by RunInto) when a
// dictionary about to take more bytes would take the heap past the limit.
// what describes the dictionary.
func checkGrowth(limit int64, more float64, what func() string) {
	if limit <= 0 {
		return
	}
	heap := heapBytes()
	if more > float64(limit) || heap+more > float64(limit) {
		panic(rtErrorf("%s: the run needs more than %s, over the memory limit of %s",
			what(), sdql.FormatBytes(heap+more), sdql.FormatBytes(float64(limit))))
	}
}

// fitsGrowth reports whether more bytes fit in the limit (no limit: true).
func fitsGrowth(limit int64, more float64) bool {
	return limit <= 0 || more <= float64(limit) && heapBytes()+more <= float64(limit)
}
