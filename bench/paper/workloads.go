package paper

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// The workloads figure: the gradient of each program of ../shared/workloads
// (bench.Workloads) over bench's workload matrices, by nablasd (bench's
// WorkloadCase: the root package's Prepare, Compile and Run), by bench's
// hand-written closed forms, and by PyTorch (torch.sparse, reverse mode)
// and SciPy (the closed form each file states) in py/peer.py. The dense
// inputs (x, b, y, U, W) are bench.NewWorkloadData's, from fixed seeds;
// the Python peer reads them from Matrix Market array files this package
// writes beside the matrix.

func workloadNames() []string {
	var out []string
	for _, w := range bench.Workloads {
		out = append(out, w.Name)
	}
	return out
}

func isWorkload(k string) bool {
	_, ok := bench.WorkloadByName(k)
	return ok
}

// workloadInput is the Input of a workload matrix: a SuiteSparse matrix
// found locally, one of bench.SyntheticSpecs, or "synthetic-test" (50 ×
// 50, for tests).
func workloadInput(name string) *Input {
	in := &Input{Name: name}
	spec, ok := bench.SyntheticSpecs[name]
	if name == "synthetic-test" {
		spec, ok = "rows=50,cols=50,density=0.1,seed=1", true
	}
	if ok {
		in.Source = "synthetic"
		in.gen = func() (*datasets.Coords, error) { return datasets.ParseSynthetic(spec) }
		in.file = "workload_" + name + ".mtx"
	} else if path, err := datasets.FetchSuiteSparse(name, datasets.Offline(), datasets.WithExtraDirs(datasets.SharedDirs()...)); err == nil {
		in.Source, in.Path, in.real = "real", path, name
	} else {
		in.Source, in.missing = "missing", err.Error()
	}
	in.extra = writeWorkloadVectors
	return in
}

// writeWorkloadVectors writes the workloads' dense inputs over the matrix
// c (bench.NewWorkloadData) as Matrix Market array files in dir.
func writeWorkloadVectors(in *Input, c *datasets.Coords, dir string) (map[string]string, error) {
	d, err := bench.NewWorkloadData(in.Name, c, bench.FactorizationK)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	write := func(name string, rows, cols int, at func(i, j int) float64) error {
		path := filepath.Join(dir, fmt.Sprintf("workload_%s_%s.mtx", in.Name, name))
		files[name] = path
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		return datasets.WriteFileAtomic(path, func(w0 io.Writer) error {
			w := bufio.NewWriterSize(w0, 1<<20)
			fmt.Fprintf(w, "%%%%MatrixMarket matrix array real general\n%d %d\n", rows, cols)
			var buf []byte
			for j := 0; j < cols; j++ {
				for i := 0; i < rows; i++ {
					buf = strconv.AppendFloat(buf[:0], at(i, j), 'g', -1, 64)
					buf = append(buf, '\n')
					w.Write(buf)
				}
			}
			return w.Flush()
		})
	}
	vec := func(v []float64) func(i, j int) float64 { return func(i, _ int) float64 { return v[i] } }
	mat := func(v []float64, k int) func(i, j int) float64 { return func(i, j int) float64 { return v[i*k+j] } }
	for _, err := range []error{
		write("x", d.Cols(), 1, vec(d.X)), write("b", d.Rows(), 1, vec(d.B)), write("y", d.Rows(), 1, vec(d.Y)),
		write("U", d.Rows(), d.K, mat(d.U, d.K)), write("W", d.Cols(), d.K, mat(d.W, d.K)),
	} {
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// runWorkloadGo answers a request for a workload's gradient by nablasd
// (arr) or the hand-written closed form (hand, hand-reuse).
func runWorkloadGo(req Request) Answer {
	w, _ := bench.WorkloadByName(req.Kernel)
	c, _, err := datasets.LoadMatrixMarket(req.Files["A"])
	if err != nil {
		return Answer{Status: "error", Detail: err.Error()}
	}
	d, err := bench.NewWorkloadData("input", c, bench.FactorizationK)
	if err != nil {
		return Answer{Status: "error", Detail: err.Error()}
	}
	return measure(req, func() (*goCell, error) {
		cs, why, err := bench.NewWorkloadCase(w, "grad", d, nil)
		if err != nil {
			return nil, err
		}
		if why != "" {
			return nil, fmt.Errorf("%s", why)
		}
		switch req.System {
		case "arr":
			c, err := cs.Compile(1)
			if err != nil {
				return nil, err
			}
			return &goCell{run: c.Run, values: func(f func(float64)) error {
				return c.Result.Entries(func(_ []int, v float64) bool { f(v); return true })
			}}, nil
		case "hand-reuse":
			return &goCell{run: func() error { cs.Hand(); return nil },
				values: func(f func(float64)) error { walkValue(cs.HandValue(), f); return nil }}, nil
		case "hand":
			var last func() sdql.Value
			return &goCell{run: func() error { var run func(); run, last = cs.NewHand(); run(); return nil },
				values: func(f func(float64)) error { walkValue(last(), f); return nil }}, nil
		}
		return nil, fmt.Errorf("the workloads do not run on %s", req.System)
	})
}

// walkValue calls f with every real of an sdql value.
func walkValue(v sdql.Value, f func(float64)) {
	switch x := v.(type) {
	case sdql.Real:
		f(float64(x))
	case *sdql.Dict:
		x.Range(func(_ int, v sdql.Value) bool { walkValue(v, f); return true })
	}
}
