package paper

import "math"

// Request asks a runner (a Go child process, the generated Go's runner or
// the Python peer) to run one cell; it travels as one line of JSON.
type Request struct {
	Op     string `json:"op"` // "run" (or "versions" for the Python peer)
	System string `json:"system"`
	Kernel string `json:"kernel"`
	// N is the length of the dense inputs (the sparse matrix's columns,
	// the vector's length).
	N int `json:"n"`
	// Files are the inputs' Matrix Market files by name: A (the matrix
	// kernels and the workloads), V2 (vva, vvd) or V (vsm), and the
	// workloads' dense inputs.
	Files   map[string]string  `json:"files"`
	Scalars map[string]float64 `json:"scalars,omitempty"`
	// Reps is the most timed runs after the first; MaxSeconds stops them
	// early once they took that long (at least one timed run). A first
	// run of OnlySeconds or more is the only one (0: MaxSeconds; the
	// harness sends Settings.onlyFor the cell).
	Reps        int     `json:"reps"`
	MaxSeconds  float64 `json:"max_seconds"`
	OnlySeconds float64 `json:"only_seconds,omitempty"`
	// MemLimit is the cell's memory limit in bytes (0: none); the Go
	// runners give it to nablasd as its memory budget.
	MemLimit int64 `json:"mem_limit,omitempty"`
}

// Answer is a runner's reply.
type Answer struct {
	// Status is "ok", "unsupported", "not installed", "out of memory" or
	// "error".
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Times are the timed runs, in seconds; Setup the time to build the
	// system's inputs and compile (not timed).
	Times []float64 `json:"times,omitempty"`
	Setup float64   `json:"setup_s,omitempty"`
	// First is the first run's time: a cold run (the result built from
	// nothing), not one of Times unless it is the only run.
	First float64 `json:"first_s,omitempty"`
	// PeakBytes is the first run's peak resident memory above the memory
	// after loading the files (-1: not measured).
	PeakBytes int64 `json:"peak_bytes"`
	// Sum and SumSq are the checksum of the gradient's values.
	Sum   float64 `json:"sum"`
	SumSq float64 `json:"sumsq"`
}

// only returns the first-run time at or over which a first run is the
// cell's only run.
func (r *Request) only() float64 { return onlyBound(r.OnlySeconds, r.MaxSeconds) }

// onlyBound is only, else max when only is not positive (the bound before
// OnlySeconds existed).
func onlyBound(only, max float64) float64 {
	if only > 0 {
		return only
	}
	return max
}

// The default scalars of the kernels (the values bench uses).
var defaultScalars = map[string]float64{"beta": 0.7, "s": 1.5, "lambda": 0.1}

// checksum returns the sum and sum of squares of values.
func checksum(values []float64) (sum, sumsq float64) {
	for _, v := range values {
		sum += v
		sumsq += v * v
	}
	return sum, sumsq
}

// sameChecksum reports whether two checksums agree to a relative 1e-6 (of
// the sum of squares, which bounds the rounding of both).
func sameChecksum(s1, q1, s2, q2 float64) bool {
	tol := 1e-6 * math.Max(1, math.Max(math.Abs(q1), math.Abs(q2)))
	return math.Abs(s1-s2) <= tol+1e-6*math.Abs(s1) && math.Abs(q1-q2) <= tol
}
