package paper

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed py/peer.py
var peerScript []byte

// pythonPeer is the Python peer of a run: one process of py/peer.py
// answering every Python cell, restarted after a cell it was killed for.
type pythonPeer struct {
	python, script string
	versions       map[string]any
	why            string // why there is no peer at all
	r              *runner
	log            io.Writer
}

// startPython finds the interpreter (python, else /usr/bin/python3 then
// python3 on PATH, preferring one with PyTorch and SciPy) and starts the
// peer; a peer that cannot start records why its cells are "not
// installed".
func startPython(python, workDir string, log io.Writer) *pythonPeer {
	pp := &pythonPeer{script: filepath.Join(workDir, "peer.py"), log: log}
	if err := os.WriteFile(pp.script, peerScript, 0o644); err != nil {
		pp.why = err.Error()
		return pp
	}
	cands := []string{python}
	if python == "" {
		cands = []string{"/usr/bin/python3"}
		if p, err := exec.LookPath("python3"); err == nil {
			cands = append(cands, p)
		}
	}
	// the first with PyTorch, SciPy and NumPy is kept running; else the
	// one with the most of them is started again
	best, bestScore := "", -1
	for _, c := range cands {
		pp.python = c
		if err := pp.start(); err != nil {
			pp.why = err.Error()
			continue
		}
		sc := score(pp.versions)
		if sc == 3 {
			best, bestScore = c, sc
			break
		}
		if sc > bestScore {
			best, bestScore = c, sc
		}
		pp.r.stop()
		pp.r = nil
	}
	pp.python = best
	if best != "" && pp.r == nil {
		if err := pp.start(); err != nil {
			pp.python, pp.why = "", err.Error()
		}
	}
	if pp.python == "" {
		if pp.why == "" {
			pp.why = "no python3 found"
		}
		fmt.Fprintf(log, "paper: no Python peer (%s): PyTorch and SciPy cells are \"not installed\"\n", pp.why)
		return pp
	}
	pp.why = ""
	fmt.Fprintf(log, "paper: Python peer %s\n", pp.describe())
	return pp
}

func score(v map[string]any) int {
	n := 0
	for _, m := range []string{"torch", "scipy", "numpy"} {
		if v[m] != nil {
			n++
		}
	}
	return n
}

// start starts the peer and asks its versions.
func (pp *pythonPeer) start() error {
	pp.r = &runner{path: pp.python, args: []string{pp.script},
		env: []string{"OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1"}}
	v := map[string]any{}
	pp.r.onStart = func(p *proc) error {
		killed, err := p.ask(map[string]string{"op": "versions"}, &v, time.Minute, 0)
		if killed != "" {
			return fmt.Errorf("%s %s: %s", pp.python, pp.script, killed)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %v", pp.python, pp.script, err)
		}
		pp.versions = v
		return nil
	}
	return pp.r.ensure()
}

// describe names the interpreter and the packages' versions.
func (pp *pythonPeer) describe() string {
	if pp.python == "" {
		return "none (" + pp.why + ")"
	}
	var parts []string
	for _, m := range []string{"python", "torch", "scipy", "numpy", "torch_threads"} {
		v := pp.versions[m]
		if v == nil {
			v = "not installed"
		}
		parts = append(parts, fmt.Sprintf("%s=%v", m, v))
	}
	return pp.python + " " + strings.Join(parts, " ")
}

// missing says why a Python system cannot run ("" when it can).
func (pp *pythonPeer) missing(system string) string {
	switch {
	case pp == nil:
		return "no Python peer"
	case pp.python == "":
		return pp.why
	case strings.HasPrefix(system, "torch") && pp.versions["torch"] == nil:
		return "PyTorch not installed (make paper-deps installs it)"
	case system == "scipy" && pp.versions["scipy"] == nil:
		return "SciPy not installed (make paper-deps installs it)"
	case pp.versions["numpy"] == nil:
		return "NumPy not installed (make paper-deps installs it)"
	}
	return ""
}

// ask runs one cell, restarting the peer when it had to be killed or
// died.
func (pp *pythonPeer) ask(req Request, ans *Answer, timeout time.Duration, memLimit int64) (string, error) {
	return pp.r.ask(req, ans, timeout, memLimit)
}

func (pp *pythonPeer) stop() {
	if pp.r != nil {
		pp.r.stop()
	}
}
