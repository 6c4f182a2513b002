package pipeline

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Counters
//
// The workers count what they do through Beam metrics (namespace
// "nablasd"); the runner adds them up over workers, and Counters reads
// the totals from the finished job.
const metricsNamespace = "nablasd"

var (
	cSplits   = beam.NewCounter(metricsNamespace, "splits")        // table splits read
	cBytesIn  = beam.NewCounter(metricsNamespace, "bytes_in")      // bytes of the splits read (Parquet: compressed column chunks)
	cRowsIn   = beam.NewCounter(metricsNamespace, "entries_in")    // table rows read
	cGroups   = beam.NewCounter(metricsNamespace, "groups")        // groups run (--group-by)
	cBlocks   = beam.NewCounter(metricsNamespace, "blocks")        // row blocks run (--partition-rows)
	cCompiles = beam.NewCounter(metricsNamespace, "compiles")      // kernels compiled: one a worker (DoFn instance)
	cShuffle  = beam.NewCounter(metricsNamespace, "shuffle_bytes") // bytes of the elements sent to a GroupByKey or Combine
	cRowsOut  = beam.NewCounter(metricsNamespace, "entries_out")   // output rows written
	cBytesOut = beam.NewCounter(metricsNamespace, "bytes_out")     // output bytes written
	cShards   = beam.NewCounter(metricsNamespace, "shards")        // output shards written (--group-by)
)

// counterOrder is the order Counters are printed in.
var counterOrder = []string{"splits", "bytes_in", "entries_in", "groups", "blocks", "compiles", "shuffle_bytes", "shards", "entries_out", "bytes_out"}

// Counters returns the job's counters by name, summed over its steps:
// their committed values where the runner reports them, else the
// attempted ones.
func Counters(pr beam.PipelineResult) map[string]int64 {
	out := map[string]int64{}
	if pr == nil {
		return out
	}
	for _, c := range pr.Metrics().AllMetrics().Counters() {
		if c.Namespace() != metricsNamespace {
			continue
		}
		v := c.Committed
		if v == 0 {
			v = c.Attempted
		}
		out[c.Name()] += v
	}
	return out
}

// FormatCounters prints counters as name=value pairs in a fixed order.
func FormatCounters(cs map[string]int64) string {
	var parts []string
	seen := map[string]bool{}
	for _, n := range counterOrder {
		if v, ok := cs[n]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", n, v))
			seen[n] = true
		}
	}
	var rest []string
	for n := range cs {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range rest {
		parts = append(parts, fmt.Sprintf("%s=%d", n, cs[n]))
	}
	return strings.Join(parts, " ")
}

// Prism (v2.77.0) can lose a counter's counts: the runner learns a
// counter's short id from the worker after a bundle first reports it,
// and keeps only one report a short id until then (jobservices/metrics.go,
// contributeMetrics), so two bundles of a stage that first report a
// counter at the same time (a bundle and its split's residual) count
// once. Each DoFn therefore announces its counters at zero when a bundle
// starts (in StartBundle, which Beam wants to take the side inputs and
// emitters ProcessElement takes): the runner learns their ids from the
// bundle's first progress report, before it splits the bundle.
func announce(ctx context.Context, cs ...beam.Counter) {
	for _, c := range cs {
		c.Inc(ctx, 0)
	}
}

// shuffled counts an element sent to a grouping.
func shuffled(ctx context.Context, b []byte) { cShuffle.Inc(ctx, int64(len(b))) }
