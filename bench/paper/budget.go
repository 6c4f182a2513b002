package paper

import (
	"fmt"
	"math"
)

// The budget's estimates. A cell's run time is a rate (seconds per unit of
// work) times the work its system does for its kernel on its input (work);
// the rate is the last measured cell's of the same figure, system and
// kernel, else of the same system and kernel, or
// before any, a conservative default (defaultRate). The cell's wall time
// adds loading the files and building the system's inputs (setupWork) to
// its first run and timed runs. Memory is a plain count of what the
// system must hold (memoryNeed). Both are estimates: a cell still running
// at twice the budget is killed, and one whose resident memory passes the
// limit too.

// work is the work of one run of the system's gradient of the kernel over
// in: operations of the closed form for the sparse systems, of the dense
// algebra for torch-dense, and for PyTorch's jacobian a further cost per
// backward pass (one per output).
func work(system, kernel string, in *Input) float64 {
	n, nnz, rowsq := float64(in.N()), float64(in.NNZ), in.RowSq
	const pass = 3e4 // a backward pass of PyTorch, in units of work
	switch system {
	case "torch-dense":
		switch kernel {
		case "batax":
			return 2*n*n*n + n*pass
		case "smmm":
			return 3 * n * n * n
		case "smvm":
			return 2 * n * n
		case "vva", "vsm":
			return n*n + n*pass
		case "vvd":
			return n + pass
		}
	case "torch-sparse":
		switch kernel {
		case "batax":
			return n*(2*nnz+n) + n*pass
		case "smmm":
			return 2*nnz*n + n*n
		case "smvm":
			return 2 * nnz
		case "vva", "vsm":
			return n*n + n*pass
		case "vvd":
			return nnz + n + pass
		}
	}
	switch kernel {
	case "batax":
		return rowsq + n
	case "smmm":
		return nnz + n*n
	case "smmm-sparse":
		return 2*nnz + n
	case "smvm", "vvd":
		return nnz + n
	case "vva":
		return n
	case "vsm":
		return nnz + 1
	}
	// a workload: a few passes over the matrix (the factorization's k = 16
	// per entry)
	if kernel == "factorization" {
		return 40 * nnz
	}
	return 6*nnz + 6*float64(in.Rows)
}

// defaultRate is the seconds per unit of work assumed before a system has
// measured a cell of a kernel: conservative on this project's machines.
func defaultRate(system string) float64 {
	switch system {
	case "torch-dense":
		return 1e-9
	case "torch-sparse", "scipy":
		return 2e-8
	case "dict", "dict-none", "dict-norm", "dict-dps":
		return 2e-7
	}
	return 2e-8
}

// setupWork is the time to load the cell's files and build the system's
// inputs, in seconds.
func setupTime(system, kernel string, in *Input) float64 {
	n, nnz := float64(in.N()), float64(in.NNZ)
	t := 0.05 + 3e-7*nnz // start the process, parse the file
	switch {
	case system == "torch-dense" && isVectorKernel(kernel):
		t += 2e-8 * n // dense vectors
	case system == "torch-dense":
		t += 2e-9 * n * n // A as a dense matrix
	case len(system) >= 4 && system[:4] == "dict":
		t += 1e-6 * nnz
		if kernel == "smmm" {
			t += 1e-6 * n * n
		}
	case kernel == "smmm":
		t += 2e-9 * n * n
	}
	return t
}

// memoryNeed estimates the bytes the system holds for the cell beyond the
// loaded files.
func memoryNeed(system, kernel string, in *Input) float64 {
	n, nnz := float64(in.N()), float64(in.NNZ)
	out := in.ataEntries()  // BATAx's result entries, at most
	const dictEntry = 160.0 // a nested sdql dictionary's bytes per entry
	switch system {
	case "torch-dense":
		switch kernel {
		case "batax":
			return 8 * (2*n*n + 2*n)
		case "smmm":
			return 8 * 4 * n * n
		case "smvm":
			return 8 * (n*n + 2*n)
		case "vva":
			return 8 * (n*n + 3*n)
		}
		return 8 * 4 * n
	case "torch-sparse":
		switch kernel {
		case "batax", "vva":
			return 8*n*n + 48*nnz
		case "smmm":
			return 8*3*n*n + 48*nnz
		}
		return 48*nnz + 32*n
	case "dict", "dict-none", "dict-norm", "dict-dps":
		switch kernel {
		case "batax":
			return dictEntry * (nnz + out + n)
		case "smmm":
			return dictEntry * (nnz + 2*n*n)
		}
		return dictEntry * (nnz + 2*n)
	}
	// arr, gen (the same loops, generated) and the hand-written Go
	switch kernel {
	case "batax":
		return 16*nnz + 16*out + 24*n
	case "smmm":
		return 16*nnz + 2*8*n*n
	case "smmm-sparse":
		return 16*nnz + 8*nnz + 8*n
	}
	if isWorkload(kernel) {
		return 64*nnz + 400*n
	}
	return 16*nnz + 16*n
}

// only returns the first-run time at or over which a first run is a
// cell's only run.
func (s *Settings) only() float64 { return onlyBound(s.OnlySeconds, s.MaxSeconds) }

// onlyFor is only() for the cell c, lowered so that a first run and the
// warm run after it fit the cell's budget beside its setup: a cell whose
// one cold run fits its budget is never skipped for the warm run.
func (s *Settings) onlyFor(c *Cell) float64 {
	room := (s.budgetOf(c).Seconds() - setupTime(c.System, c.Kernel, c.Input)) / 2
	return math.Max(math.Min(s.only(), room), 0)
}

// rates remembers the last measured rate of each system and kernel, and of
// each figure's (a figure's inputs are alike: its own rate is the better
// guess).
type rates map[string]float64

// estimate returns the cell's estimated run time (one run) and wall time
// (setup, first run and timed runs) in seconds.
func (r rates) estimate(c *Cell, s *Settings) (run, wall float64) {
	rate, ok := r[c.Figure+"|"+c.System+"|"+c.Kernel]
	if !ok {
		rate, ok = r[c.System+"|"+c.Kernel]
	}
	if !ok {
		rate = defaultRate(c.System)
	}
	run = rate*work(c.System, c.Kernel, c.Input) + 1e-5
	timed := 0.0 // a run of the cell's onlyFor or more is the only one
	switch {
	case run >= s.onlyFor(c):
	case run < s.MaxSeconds:
		timed = math.Min(float64(s.Reps)*run, s.MaxSeconds+run)
	default:
		timed = run // one warm run after a slow first one
	}
	return run, setupTime(c.System, c.Kernel, c.Input) + run + timed
}

// learn records a measured cell's rate.
func (r rates) learn(c *Cell, seconds float64) {
	if w := work(c.System, c.Kernel, c.Input); w > 0 && seconds > 0 {
		rate := math.Max(seconds-1e-5, 1e-9) / w
		r[c.Figure+"|"+c.System+"|"+c.Kernel] = rate
		r[c.System+"|"+c.Kernel] = rate
	}
}

// gib prints bytes in GiB.
func gib(b float64) string { return fmt.Sprintf("%.3g GiB", b/(1<<30)) }
