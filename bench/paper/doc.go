// Package paper reproduces the experiments of section 7 of the ∇SD paper
// (Table 1, Figs. 11–16) and three figures it does not have (ours: SMMM
// with respect to a sparse B and BATAx with pdb1HYS's banded surrogate
// over the Table 1 matrices; the workloads of ../shared/workloads; peak
// memory on Table 1): it lays out the grid of
// cells (figure × kernel × input × system), runs each cell in a child
// process under a time budget and a memory limit, writes one CSV row per
// cell (resumable: rows already in the CSV are not run again), and draws
// the figures from the CSV with gonum/plot, as SVG and PNG.
//
// # Systems
//
// Every system computes the same gradient over the same input files (Matrix
// Market; dense inputs the six kernels' gradients do not depend on are all
// ones), and reports its times, its peak memory and a checksum of the
// gradient (the sum and the sum of squares of its values), which is
// compared with the hand-written Go's:
//
//   - hand, hand-reuse: the hand-written Go closed forms (hand.go),
//     allocating their result on every run, or writing into a destination
//     reused across runs;
//   - arr: nablasd over the storage formats' arrays (the root package's
//     Prepare, Compile and Run into a reused Result: the paper's "arr");
//   - dict: the pipeline's program over the inputs as nested sdql
//     dictionaries, compiled with exec.Options.NoDense (the paper's "dict");
//   - gen: the Go that the root package's GenerateGo writes for the arr
//     program, built into a runner program once per run (gen.go);
//   - torch-dense, torch-sparse, scipy: PyTorch 1.13 (dense tensors and
//     torch.autograd.functional.jacobian, the paper's way; torch.sparse
//     where it has autograd) and SciPy's closed forms, in Python (py/peer.py),
//     on one thread in float64. Without python3, PyTorch or SciPy their
//     cells are recorded as "not installed".
//   - arr-none, arr-norm, arr-dps, dict-none, dict-norm, dict-dps: the
//     Fig. 16 ablation (exec.Options.Opt over the program before and after
//     multiplication normalization).
//
// # Cells and the budget
//
// Before a cell runs its time and memory are estimated (budget.go): a cell
// estimated to take longer than Settings.Budget is recorded as "skipped
// (estimated N s)", one estimated to need more than Settings.MemLimit as
// "out of memory (estimated …)". A running cell is killed when it passes
// twice its budget or its resident memory passes the limit. Within a
// series (one system, kernel and panel, in increasing work) a cell after
// one that was skipped, killed or out of memory is not tried.
package paper
