package bench

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

//go:embed indexpeer.py
var indexPeerScript []byte

// PeerResult is what the NumPy/SciPy closed form of an index workload
// (indexpeer.py) answered: its run times and its result's checksum, or
// why it did not run (Missing: "not installed" when NumPy, or SciPy for
// the stencil, is absent, or no Python).
type PeerResult struct {
	Times        []time.Duration
	Sum, SumSq   float64
	NumPy, SciPy string
	Missing      string
}

// RunIndexPeer runs the NumPy/SciPy closed form of d's value (wrt "") or
// gradient reps times in python (when "": /usr/bin/python3, where
// Debian's python3-numpy and python3-scipy install, else python3 on
// PATH), on one thread, over d's inputs written to dir as raw float64
// files, timed by the wall clock.
func RunIndexPeer(python, dir string, d *IndexData, wrt string, reps int) (*PeerResult, error) {
	return RunIndexPeerClock(python, dir, d, wrt, reps, false)
}

// RunIndexPeerClock is RunIndexPeer timed by the Python process's
// processor time when cpu is set (time.process_time: on a shared
// machine, without the waits for a core), else by the wall clock.
func RunIndexPeerClock(python, dir string, d *IndexData, wrt string, reps int, cpu bool) (*PeerResult, error) {
	if python == "" {
		python = "/usr/bin/python3"
		if _, err := os.Stat(python); err != nil {
			p, err := exec.LookPath("python3")
			if err != nil {
				return &PeerResult{Missing: "no python3"}, nil
			}
			python = p
		}
	}
	script := filepath.Join(dir, "indexpeer.py")
	if err := os.WriteFile(script, indexPeerScript, 0o644); err != nil {
		return nil, err
	}
	files := map[string]string{}
	for name, v := range map[string][]float64{"x": d.X, "K": d.K, "t": d.T, "U": d.U} {
		if v == nil {
			continue
		}
		path := filepath.Join(dir, d.Workload+"_"+name+".f64")
		if err := writeFloats(path, v); err != nil {
			return nil, err
		}
		files[name] = path
	}
	req, err := json.Marshal(map[string]any{"workload": d.Workload, "wrt": wrt, "files": files,
		"ints": map[string]int{"n": d.N, "m": d.M, "b": d.B}, "reals": map[string]float64{"eps": d.Eps}, "reps": reps, "cpu": cpu})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(python, script)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1")
	cmd.Stdin = bytes.NewReader(append(req, '\n'))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: %s %s: %v: %s", python, script, err, errb.String())
	}
	var ans struct {
		Status, Detail string
		Times          []float64
		Sum, Sumsq     float64
		Numpy, Scipy   string
	}
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
		return nil, fmt.Errorf("bench: %s answered %q: %v", script, out.String(), err)
	}
	switch ans.Status {
	case "ok":
	case "not installed":
		return &PeerResult{Missing: ans.Detail}, nil
	default:
		return nil, fmt.Errorf("bench: %s %s w.r.t. %q: %s: %s", script, d.Workload, wrt, ans.Status, ans.Detail)
	}
	r := &PeerResult{Sum: ans.Sum, SumSq: ans.Sumsq, NumPy: ans.Numpy, SciPy: ans.Scipy}
	for _, s := range ans.Times {
		r.Times = append(r.Times, time.Duration(s*float64(time.Second)))
	}
	return r, nil
}

// writeFloats writes v as raw little-endian float64s.
func writeFloats(path string, v []float64) error {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return os.WriteFile(path, b, 0o644)
}
