// Command fitbench fits the workloads (bench.FitWorkloads: least squares,
// ridge and logistic regression in x, the logistic loss as written, with
// softplus, and with softplus and a ridge term, the matrix factorization
// in U and W with k = 16) over the workload inputs (e40r0000 and the synthetic
// 200,000² matrix with 4M entries) with nablasd and with SciPy, side by
// side, from the same start (bench.WorkloadData's seeded values), to the
// same gradient test and iteration bound, on one core, and prints a
// table: for each system the final loss, why the fit stopped, the
// iterations, the evaluations (nablasd: kernel runs, each the loss and
// every gradient; SciPy: calls of the closed form) and the wall time;
// then how far the two final losses are apart, the time ratio and
// whether the fit meets issue 36's criteria (both converged, the losses
// within 1e-8 relative, nablasd's time at most SciPy's). With -csv the
// rows go to FILE too, rewritten after every fit (csvColumns).
//
//	go run ./bench/cmd/fitbench [-workloads least_squares,...] [-inputs e40r0000,synthetic4M]
//	    [-tol 1e-6] [-max-iter 5000] [-prebuild=true] [-exec auto] [-rounds 1] [-python PATH] [-csv FILE] [-timeout 30m]
//
// nablasd: Query.Problem and Problem.Minimize (L-BFGS with SciPy's
// L-BFGS-B settings: a history of 10, Moré–Thuente with 1e-3 and 0.9),
// GOMAXPROCS 1 and one goroutine while it runs; with -prebuild the
// kernel's native code is built into the JIT's cache first (its time is
// printed apart), so that the fit runs native from its first runs, as on
// a machine that ran it before (-exec jit runs native code only: the
// tiering's choice times a few runs of each executor, which a loaded
// machine can mislead). compile is Prepare and Problem (the kernel's
// compilation). SciPy: scipy.optimize.minimize(method='L-BFGS-B',
// jac=True) over its closed form in scipy.sparse and NumPy (scipy_fit.py,
// embedded), with OMP_NUM_THREADS and its kin 1, its pgtol the same
// relative test and ftol 0; fit s is minimize's own wall time. With
// -rounds N each system fits N times, in turn, and its fastest fit is
// kept (the least CPU time): on a shared machine other work only ever
// adds to a fit's time. Both systems' processor time is reported beside
// the wall time (the process's, user and system): on a machine other work
// shares, the wall time counts the others' turns too. Without
// NumPy and SciPy (make paper-deps installs Debian's) the SciPy rows say
// "not installed", and the nablasd rows are measured all the same.
//
// The gradient test stops a fit once its gradient's largest magnitude is
// at most -tol times the start's. The two systems take different paths
// (their line searches are not the same code), so their final losses
// agree to many digits only when both converge to the one minimizer: a
// fit stopped by -max-iter, or a problem without a minimizer (a logistic
// regression of separable data), is compared all the same and marked.
package main

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nablasd/nablasd/bench"
)

//go:embed scipy_fit.py
var peerScript []byte

func main() {
	workloads := flag.String("workloads", "", "the fits, comma-separated (default: all of bench.FitWorkloads)")
	inputs := flag.String("inputs", strings.Join(bench.WorkloadInputs, ","), "the input matrices, comma-separated")
	tol := flag.Float64("tol", 1e-6, "the gradient test: the largest magnitude at most `T` times the start's")
	maxIter := flag.Int("max-iter", 5000, "the iteration bound of both systems")
	prebuild := flag.Bool("prebuild", true, "build nablasd's native kernel before the timed fit")
	execFlag := flag.String("exec", "auto", "nablasd's `EXECUTOR`: auto (the tiering), jit (native code only) or compiled (the closures)")
	python := flag.String("python", "", "the Python interpreter (default: /usr/bin/python3, else python3 on PATH)")
	csvOut := flag.String("csv", "", "also write the rows to `FILE` (CSV)")
	timeout := flag.Duration("timeout", 30*time.Minute, "stop a SciPy fit after `D`")
	rounds := flag.Int("rounds", 1, "fit `N` times with each system, in turn, and keep each one's fastest (the fits are the same: fixed seeds)")
	flag.Parse()

	fits := bench.FitWorkloads
	if *workloads != "" {
		fits = nil
		for _, n := range strings.Split(*workloads, ",") {
			found := false
			for _, w := range bench.FitWorkloads {
				if w.Name == n {
					fits, found = append(fits, w), true
				}
			}
			if !found {
				fail(fmt.Errorf("-workloads: unknown fit %q (want one of %v)", n, bench.FitWorkloads))
			}
		}
	}
	dir, err := os.MkdirTemp("", "fitbench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "scipy_fit.py")
	if err := os.WriteFile(script, peerScript, 0o644); err != nil {
		fail(err)
	}
	py := findPython(*python)
	fmt.Printf("fitbench: tol %g, max-iter %d, one core (GOMAXPROCS 1 for nablasd, OMP_NUM_THREADS=1 for SciPy) on a %d-CPU machine; Python: %s\n\n",
		*tol, *maxIter, runtime.NumCPU(), describePython(py, script))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "input\tfit\tsystem\tloss\tloss0\t|g|/|g0|\tconverged\titers\tevals\tfit s\tcpu s\tcpu ms/eval\tcompile s\t")
	var rows [][]string
	for _, in := range strings.Split(*inputs, ",") {
		m, why, err := bench.LoadInput(in)
		if err != nil {
			fail(err)
		}
		if m == nil {
			fmt.Fprintf(os.Stderr, "fitbench: skipping %s: %s\n", in, why)
			continue
		}
		d, err := bench.NewWorkloadData(in, m, bench.FactorizationK)
		if err != nil {
			fail(err)
		}
		data := filepath.Join(dir, in)
		if err := os.Mkdir(data, 0o755); err != nil {
			fail(err)
		}
		if err := d.WriteNpy(data); err != nil {
			fail(err)
		}
		for _, w := range fits {
			o := bench.FitBenchOptions{Tol: *tol, MaxIter: *maxIter, Prebuild: *prebuild, Exec: *execFlag}
			var nb, sp *bench.FitResult
			var build time.Duration
			for r := range max(*rounds, 1) {
				n, b, err := bench.RunFitNablasd(w, d, o)
				if err != nil {
					fail(err)
				}
				if r == 0 {
					build = b
				}
				s := runSciPy(py, script, data, w.PeerName(), *tol, *maxIter, *timeout)
				if nb == nil || n.Status == "ok" && n.CPU < nb.CPU {
					nb = n
				}
				if sp == nil || s.Status == "ok" && s.CPU < sp.CPU {
					sp = s
				}
				o.Prebuild = false // built: the cache holds it
			}
			for _, r := range []struct {
				system string
				res    *bench.FitResult
			}{{"nablasd", nb}, {"scipy", sp}} {
				row := resultRow(in, w.Name, r.system, r.res)
				rows = append(rows, csvRow(row, r.res, "", "", ""))
				fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			}
			if nb.Status == "ok" && sp.Status == "ok" {
				rel, rel0 := bench.LossDiff(nb.Loss, sp.Loss, nb.Loss0)
				note := fmt.Sprintf("losses apart by %.2g of the larger, %.2g of the start's; SciPy's CPU time %.2f× nablasd's (wall %.2f×)",
					rel, rel0, sp.CPU/nb.CPU, sp.Seconds/nb.Seconds)
				if !nb.Converged || !sp.Converged {
					note += " (not both converged)"
				} else {
					note += "; " + criteria(rel, nb, sp)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\t\t\t\t\t\t\t\n", in, w.Name, note)
				rows = append(rows, csvRow([]string{in, w.Name, "compare", "", "", "", "", "", "", "", "", "", ""}, nil,
					fmt.Sprint(rel), fmt.Sprint(sp.Seconds/nb.Seconds), fmt.Sprint(sp.CPU/nb.CPU)))
			}
			if build > 0 {
				fmt.Fprintf(tw, "%s\t%s\tnablasd's native kernel built in %.1fs before the fit (-prebuild); it ran on %s\t\t\t\t\t\t\t\t\t\t\t\n",
					in, w.Name, build.Seconds(), nb.Executor)
			}
			tw.Flush()
			if *csvOut != "" {
				writeCSV(*csvOut, rows) // after every fit: a long run stopped keeps what it measured
			}
		}
	}
	tw.Flush()
}

// criteria says whether two converged fits meet issue 36's criteria: the
// final losses within 1e-8 relative, nablasd's wall time at most SciPy's
// (and its processor time, which a shared machine disturbs less).
func criteria(rel float64, nb, sp *bench.FitResult) string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return fmt.Sprintf("criteria: losses within 1e-8 %s, wall ≤ SciPy's %s, processor time ≤ SciPy's %s",
		yes(rel <= 1e-8), yes(nb.Seconds <= sp.Seconds), yes(nb.CPU <= sp.CPU))
}

// csvColumns are the CSV's columns: a system's row has the table's
// (converged: "yes" or "no: " and the whole reason), its executor and
// seconds per evaluation; a compare row the losses' relative difference
// and SciPy's wall and processor times over nablasd's.
var csvColumns = []string{"input", "fit", "system", "loss", "loss0", "grad_ratio", "converged", "iterations", "evaluations",
	"fit_s", "cpu_s", "cpu_ms_per_eval", "compile_s", "executor", "wall_ms_per_eval", "loss_apart", "scipy_wall_ratio", "scipy_cpu_ratio"}

// csvRow is a table row as the CSV has it: the stop reason whole, and
// the columns the table leaves out.
func csvRow(row []string, r *bench.FitResult, apart, wallRatio, cpuRatio string) []string {
	out := append([]string(nil), row...)
	executor, perEval := "", ""
	if r != nil && r.Status == "ok" {
		if !r.Converged {
			out[6] = "no: " + r.Stop
		}
		executor = r.Executor
		if r.Evaluations > 0 {
			perEval = fmt.Sprintf("%.3f", 1000*r.Seconds/float64(r.Evaluations))
		}
	}
	return append(out, executor, perEval, apart, wallRatio, cpuRatio)
}

// writeCSV writes the rows so far, with the header.
func writeCSV(path string, rows [][]string) {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(csvColumns)
	cw.WriteAll(rows)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		fail(err)
	}
}

// resultRow is a system's row of the table.
func resultRow(in, fit, system string, r *bench.FitResult) []string {
	if r.Status != "ok" {
		return []string{in, fit, system, r.Status, "", "", "", "", "", "", "", "", ""}
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }
	conv := "no: " + r.Stop
	if r.Converged {
		conv = "yes"
	}
	if len(conv) > 60 {
		conv = conv[:60] + "…"
	}
	perEval := ""
	if r.Evaluations > 0 {
		perEval = fmt.Sprintf("%.3f", 1000*r.CPU/float64(r.Evaluations))
	}
	compile := ""
	if system == "nablasd" {
		compile = fmt.Sprintf("%.3f", r.Compile)
	}
	return []string{in, fit, system, g(r.Loss), g(r.Loss0), fmt.Sprintf("%.2g", r.GradNorm/r.GradNorm0), conv,
		fmt.Sprint(r.Iterations), fmt.Sprint(r.Evaluations), fmt.Sprintf("%.3f", r.Seconds), fmt.Sprintf("%.3f", r.CPU), perEval, compile}
}

// findPython is the interpreter: the flag's, else /usr/bin/python3 (where
// Debian's SciPy goes), else python3 on PATH ("" for none).
func findPython(flagged string) string {
	if flagged != "" {
		return flagged
	}
	for _, c := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// describePython names the interpreter and its NumPy and SciPy, or why
// there is none.
func describePython(py, script string) string {
	if py == "" {
		return "not installed (no python3): the SciPy rows say so"
	}
	out, err := exec.Command(py, "-c", "import numpy, scipy; print('numpy', numpy.__version__, 'scipy', scipy.__version__)").Output()
	if err != nil {
		return py + ", without NumPy and SciPy (not installed: make paper-deps installs them)"
	}
	return py + " " + strings.TrimSpace(string(out))
}

// runSciPy runs one fit in the Python peer.
func runSciPy(py, script, dir, workload string, tol float64, maxIter int, timeout time.Duration) *bench.FitResult {
	if py == "" {
		return &bench.FitResult{Status: "not installed"}
	}
	iters := maxIter
	if iters <= 0 {
		iters = 1 << 30
	}
	cmd := exec.Command(py, script, dir, workload, fmt.Sprint(tol), fmt.Sprint(iters))
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return &bench.FitResult{Status: "not installed"}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return &bench.FitResult{Status: fmt.Sprintf("error: %v: %s", err, lastLine(stderr.String()))}
		}
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		return &bench.FitResult{Status: fmt.Sprintf("timed out after %v", timeout)}
	}
	var ans struct {
		Status, Detail, Message string
		Loss0, Loss             float64
		Gnorm0, Gnorm           float64
		Nit, Nfev               int
		Seconds, CPU            float64
		Converged               bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &ans); err != nil {
		return &bench.FitResult{Status: fmt.Sprintf("error: the peer printed %q: %v", lastLine(stdout.String()), err)}
	}
	if ans.Status != "ok" {
		return &bench.FitResult{Status: ans.Status}
	}
	return &bench.FitResult{Status: "ok", Converged: ans.Converged, Stop: ans.Message, Loss: ans.Loss, Loss0: ans.Loss0,
		GradNorm: ans.Gnorm, GradNorm0: ans.Gnorm0, Iterations: ans.Nit, Evaluations: ans.Nfev, Seconds: ans.Seconds, CPU: ans.CPU}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fitbench:", err)
	os.Exit(1)
}
