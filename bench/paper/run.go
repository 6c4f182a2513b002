package paper

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// RunOptions say where a run reads and writes.
type RunOptions struct {
	// CSV is the results file: created, or resumed (its rows are done
	// cells) unless Fresh.
	CSV   string
	Fresh bool
	// FigDir receives the figures (SVG and PNG); "" draws none.
	FigDir string
	// WorkDir holds the generated inputs, the Python peer's script and the
	// generated Go's runner.
	WorkDir string
	// Python is the interpreter of the peers ("": /usr/bin/python3, then
	// python3 on PATH, whichever has PyTorch and SciPy).
	Python string
	// Self is the program run as the Go systems' child process (""
	// os.Executable(): the program must call ChildMain when IsChild).
	Self string
	// Log receives messages; Progress the progress bar (drawn only when
	// it is a terminal). Either may be nil.
	Log, Progress io.Writer
}

// childEnv marks a child process of Run.
const childEnv = "NABLASD_PAPER_CHILD"

// IsChild reports whether this process is a Go system's child process of
// Run: its main must then call ChildMain and nothing else.
func IsChild() bool { return os.Getenv(childEnv) == "1" }

// ChildMain answers the Requests read from standard input (RunGo) on
// standard output, one line each.
func ChildMain() { serve(RunGo) }

// serve answers each Request read from standard input with h, one JSON
// line each, until the input ends.
func serve(h func(Request) Answer) {
	br := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req Request
			ans := Answer{Status: "error"}
			if err := json.Unmarshal(line, &req); err != nil {
				ans.Detail = fmt.Sprintf("bad request: %v", err)
			} else {
				ans = h(req)
			}
			b, _ := json.Marshal(ans)
			os.Stdout.Write(append(b, '\n'))
		}
		if err != nil {
			return
		}
	}
}

// describe is the settings line of the CSV: a resumed CSV must have the
// same identity (the preset, Table 1's scale and the seed: what the
// inputs are); a resumed run with another budget, limit or number of runs
// adds its rows to the others, and its own settings line.
func (s *Settings) describe() string {
	return fmt.Sprintf("%s table1_scale=%g reps=%d max_seconds=%g only_seconds=%g budget=%s table1_budget=%s mem_limit=%d seed=%d",
		s.Name, s.Table1Scale, s.Reps, s.MaxSeconds, s.only(), s.Budget, s.Table1Budget, s.MemLimit, s.Seed)
}

// identity is the part of a settings line a resumed run must share: the
// preset's name, table1_scale and seed.
func identity(settings string) string {
	f := strings.Fields(settings)
	if len(f) == 0 {
		return ""
	}
	id := []string{f[0]}
	for _, kv := range f[1:] {
		if k, _, _ := strings.Cut(kv, "="); k == "table1_scale" || k == "seed" {
			id = append(id, kv)
		}
	}
	return strings.Join(id, " ")
}

// runner state of one Run
type runState struct {
	s       *Settings
	o       *RunOptions
	log     io.Writer
	done    map[string]*Row
	rates   rates
	cut     map[string]string // series -> why its later cells are not run
	python  *pythonPeer
	gen     *genRunner
	goChild *runner
	genProc *runner
	out     *csvWriter
	uses    map[*Input]int
	self    string
	progres *progress
}

// Run runs every cell of the settings' grid not already in the CSV,
// appending a row per cell, then draws the figures from the whole CSV.
func Run(s Settings, o RunOptions) error {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return err
	}
	if dir := filepath.Dir(o.CSV); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	st := &runState{s: &s, o: &o, log: log, done: map[string]*Row{}, rates: rates{}, cut: map[string]string{}, uses: map[*Input]int{}}
	if o.Fresh {
		os.Remove(o.CSV)
	} else if prev, err := ReadResultsFile(o.CSV); err == nil {
		if got, want := identity(prev.Setting("settings")), identity(s.describe()); got != want {
			return fmt.Errorf("%s was written with the settings %q, not %q: run with -fresh to start over, or write another file", o.CSV, got, want)
		}
		for _, r := range prev.Rows {
			if !strings.HasPrefix(r.Status, "error") {
				st.done[r.Key()] = r
			}
		}
		if prev.Legacy {
			if err := rewriteResults(o.CSV, prev); err != nil {
				return fmt.Errorf("cannot add the first_s column to %s: %v", o.CSV, err)
			}
		}
		fmt.Fprintf(log, "paper: resuming %s: %d cells done\n", o.CSV, len(st.done))
	} else if !os.IsNotExist(err) {
		return fmt.Errorf("cannot resume: %v (run with -fresh to start over)", err)
	}
	var table1 []*Input
	if s.wants("fig11") || s.wants("memory") || s.wants("ours") {
		var notes []string
		table1, notes = Table1(s.Table1Scale, s.Download, s.Table1Surrogates, s.Seed)
		for _, n := range notes {
			fmt.Fprintf(log, "paper: table 1: %s\n", n)
		}
	}
	cells := s.Grid(table1)
	var todo []*Cell
	needs := map[string]bool{}
	pending := map[*Cell]bool{}
	for _, c := range cells {
		if st.done[c.Key()] != nil {
			continue
		}
		pending[c] = true
		todo = append(todo, c)
		st.uses[c.Input]++
		sys, _ := SystemByID(c.System)
		needs[sys.Runner] = true
	}
	self := o.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return err
		}
	}
	st.self = self
	st.goChild = &runner{path: self, env: []string{childEnv + "=1"}}
	defer st.goChild.stop()
	meta := []string{"settings: " + s.describe(), "machine: " + machine(), "started: " + time.Now().UTC().Format(time.RFC3339),
		"versions: " + goVersions()}
	t0 := time.Now()
	if needs["python"] {
		st.python = startPython(o.Python, o.WorkDir, log)
		fmt.Fprintf(log, "paper: Python peer ready in %s\n", time.Since(t0).Round(time.Millisecond))
		t0 = time.Now()
		meta = append(meta, "python: "+st.python.describe())
	}
	if needs["gen"] {
		st.gen = buildGenRunner(o.WorkDir, log)
		st.genProc = &runner{path: st.gen.path}
		defer st.genProc.stop()
		fmt.Fprintf(log, "paper: generated Go built in %s\n", time.Since(t0).Round(time.Millisecond))
		t0 = time.Now()
		meta = append(meta, "generated Go: "+st.gen.describe())
	}
	out, err := openResults(o.CSV, meta)
	if err != nil {
		return err
	}
	st.out = out
	st.progres = newProgress(o.Progress, todo, st)
	// Cells in the grid's order, so that the estimates learn from the done
	// cells (read back) before the cells after them, as in a fresh run.
	for _, c := range cells {
		if !pending[c] {
			st.learnFrom(c, st.done[c.Key()])
			continue
		}
		st.progres.start(c)
		row := st.runCell(c)
		if err := out.write(row); err != nil {
			out.Close()
			return err
		}
		st.done[c.Key()] = row
		st.progres.finish(c, row)
		if st.uses[c.Input]--; st.uses[c.Input] == 0 {
			c.Input.Release()
		}
	}
	st.progres.stop()
	out.Close()
	fmt.Fprintf(log, "paper: %d cells in %s\n", len(todo), time.Since(t0).Round(time.Millisecond))
	if st.python != nil {
		st.python.stop()
	}
	if o.FigDir == "" {
		return nil
	}
	res, err := ReadResultsFile(o.CSV)
	if err != nil {
		return err
	}
	files, err := DrawAll(res, o.FigDir)
	for _, f := range files {
		fmt.Fprintf(log, "paper: wrote %s\n", f)
	}
	return err
}

// learnFrom takes the rate of a done cell, and its series' cut.
func (st *runState) learnFrom(c *Cell, r *Row) {
	if r.OK() {
		st.rates.learn(c, r.Time)
	}
	if strings.HasPrefix(r.Status, "timeout") {
		st.rates.learn(c, 2*st.s.budgetOf(c).Seconds()/float64(1+min(st.s.Reps, 2)))
	}
	if c.Monotone && !r.OK() && (strings.HasPrefix(r.Status, "skipped") || strings.HasPrefix(r.Status, "timeout") || strings.HasPrefix(r.Status, "out of memory")) {
		st.cut[c.Series()] = r.Status
	}
}

// runCell runs (or records why it does not run) one cell.
func (st *runState) runCell(c *Cell) *Row {
	s := st.s
	row := &Row{Figure: c.Figure, Panel: c.Panel, X: c.X, XOrder: c.XOrder, Kernel: c.Kernel, Input: c.Input.Name,
		Source: c.Input.Source, Rows: c.Input.Rows, Cols: c.Input.Cols, NNZ: c.Input.NNZ, System: c.System,
		Time: math.NaN(), TimeMin: math.NaN(), TimeMax: math.NaN(), Setup: math.NaN(), PeakBytes: -1,
		Sum: math.NaN(), SumSq: math.NaN(), First: math.NaN()}
	sys, _ := SystemByID(c.System)
	switch {
	case sys.Runner == "python" && st.python.missing(c.System) != "":
		row.Status, row.Detail = "not installed", st.python.missing(c.System)
		return row
	case sys.Runner == "gen" && st.gen.why != "":
		row.Status, row.Detail = "unsupported", st.gen.why
		return row
	case sys.Runner == "gen" && st.gen.kernels[c.Kernel] != "":
		row.Status, row.Detail = "unsupported", st.gen.kernels[c.Kernel]
		return row
	}
	if err := c.Input.Prepare(st.o.WorkDir); err != nil {
		row.Status, row.Detail = "error", firstLine(err.Error())
		return row
	}
	row.Rows, row.Cols, row.NNZ = c.Input.Rows, c.Input.Cols, c.Input.NNZ
	run, wall := st.rates.estimate(c, s)
	if why := st.cut[c.Series()]; c.Monotone && why != "" {
		row.Status = fmt.Sprintf("skipped (estimated %.0f s)", wall)
		row.Detail = "a smaller input of the series was: " + why
		return row
	}
	if need := memoryNeed(c.System, c.Kernel, c.Input); need > float64(s.MemLimit) {
		row.Status = fmt.Sprintf("out of memory (estimated %s, over the limit %s)", gib(need), gib(float64(s.MemLimit)))
		st.cut[c.Series()] = row.Status
		return row
	}
	budget := s.budgetOf(c)
	if wall > budget.Seconds() {
		row.Status = fmt.Sprintf("skipped (estimated %.0f s)", wall)
		row.Detail = fmt.Sprintf("a run estimated at %.3g s, over the cell budget of %s", run, budget)
		st.cut[c.Series()] = row.Status
		return row
	}
	req := Request{Op: "run", System: c.System, Kernel: c.Kernel, N: c.Input.N(), Files: map[string]string{},
		Reps: s.Reps, MaxSeconds: s.MaxSeconds, OnlySeconds: s.onlyFor(c), MemLimit: s.MemLimit}
	switch {
	case isWorkload(c.Kernel):
		req.Files["A"] = c.Input.Path
		if c.Kernel == "factorization" {
			req.Files["R"] = c.Input.Path
		}
		for n, p := range c.Input.Extra {
			req.Files[n] = p
		}
		req.Scalars = map[string]float64{"lambda": defaultScalars["lambda"]}
	case c.Kernel == "vsm":
		req.Files["V"] = c.Input.Path
	case c.Input.Vector:
		req.Files["V2"] = c.Input.Path
	default:
		req.Files["A"] = c.Input.Path
	}
	timeout := time.Duration(float64(2*budget) + 4*setupTime(c.System, c.Kernel, c.Input)*float64(time.Second))
	var ans Answer
	var killed string
	var err error
	switch sys.Runner {
	case "python":
		killed, err = st.python.ask(req, &ans, timeout, s.MemLimit)
	case "gen":
		killed, err = st.genProc.ask(req, &ans, timeout, s.MemLimit)
	default:
		killed, err = st.goChild.ask(req, &ans, timeout, s.MemLimit)
	}
	switch {
	case killed != "":
		row.Status = killed
		st.cut[c.Series()] = killed
		if strings.HasPrefix(killed, "timeout") {
			// at least this slow: later estimates start from here
			st.rates.learn(c, timeout.Seconds()/float64(1+min(s.Reps, 2)))
		}
		return row
	case err != nil && strings.Contains(err.Error(), "signal: killed"):
		row.Status, row.Detail = "out of memory (killed by the system)", firstLine(err.Error())
		st.cut[c.Series()] = row.Status
		return row
	case err != nil:
		row.Status, row.Detail = "error", firstLine(err.Error())
		return row
	}
	row.Status, row.Detail = ans.Status, ans.Detail
	if ans.Status != "ok" {
		if strings.HasPrefix(ans.Status, "out of memory") {
			st.cut[c.Series()] = ans.Status
		}
		return row
	}
	if len(ans.Times) == 0 {
		row.Status, row.Detail = "error", "no timed run"
		return row
	}
	ts := append([]float64(nil), ans.Times...)
	sort.Float64s(ts)
	row.Time, row.TimeMin, row.TimeMax, row.Runs = median(ts), ts[0], ts[len(ts)-1], len(ts)
	row.Setup, row.PeakBytes, row.Sum, row.SumSq = ans.Setup, ans.PeakBytes, ans.Sum, ans.SumSq
	if ans.First > 0 {
		row.First = ans.First
	}
	st.rates.learn(c, row.Time)
	st.check(c, row)
	return row
}

// check compares a row's checksum with the hand-written Go's of the same
// cell (run first in every group), marking a mismatch "wrong result".
func (st *runState) check(c *Cell, row *Row) {
	if c.System == "hand-reuse" {
		row.Check = "ok"
		return
	}
	for _, ref := range []string{"hand-reuse", "hand"} {
		k := c.Figure + "|" + c.Panel + "|" + c.Kernel + "|" + c.X + "|" + ref
		r := st.done[k]
		if r == nil || !r.OK() {
			continue
		}
		if sameChecksum(row.Sum, row.SumSq, r.Sum, r.SumSq) {
			row.Check = "ok"
			return
		}
		row.Check = "mismatch"
		row.Status = "wrong result"
		row.Detail = fmt.Sprintf("sum %.12g, sum of squares %.12g; the hand-written Go's %.12g, %.12g", row.Sum, row.SumSq, r.Sum, r.SumSq)
		return
	}
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
