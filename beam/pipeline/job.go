package pipeline

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// Job is what every worker needs to know of a job: the program and how
// to run it, its inputs, and where its results go. It travels inside the
// pipeline's DoFns (as JSON), so it holds only plain values; the launcher
// has checked it all before the pipeline is submitted.
type Job struct {
	Program string // the program's text
	File    string // its file name for messages ("" for -e TEXT)
	Wrt     string // the gradient's input, "" for the value
	Options Options

	// Broadcast are the --in bindings (NAME=VALUE) every worker loads
	// whole: numbers, tensor files, shared tables.
	Broadcast []string
	// Tables are the table inputs read in splits: grouped by Key, or
	// split into row blocks (Partition and the inputs split along).
	Tables []Table

	Key       string // --group-by: the key column
	Partition string // --partition-rows: the partitioned input
	BlockRows int64  // --partition-rows: rows a block

	Order  int               // the order of a result (0: scalars); a fit's: its parameters' largest
	Out    string            // the output: a directory of shards (--group-by), or a table
	Meta   map[string]string // the output's metadata (program, wrt, bindings)
	Shards int               // --group-by: the number of output shards

	// Fit, for a grouped fit (nablasd-beam fit), says what to fit and how:
	// each group's result is then its rows (batch.FitColumns of Order).
	Fit *Fit
}

// Fit is a grouped fit's parameters and optimizer (nablasd.FitOptions,
// as plain values).
type Fit struct {
	Wrt              []string
	Method           string
	Tol, GradTol     float64
	MaxIter, MaxEval int
	LearningRate     float64
	Memory           int
}

// Options returns the fit's nablasd.FitOptions.
func (f *Fit) Options() nablasd.FitOptions {
	return nablasd.FitOptions{Wrt: f.Wrt, Method: f.Method, Tol: f.Tol, GradTol: f.GradTol,
		MaxIter: f.MaxIter, MaxEval: f.MaxEval, LearningRate: f.LearningRate, Memory: f.Memory}
}

// Options are the executor's options (nablasd.Options) a worker compiles
// with.
type Options struct {
	Opt, Exec, Dict string
	Threads         int
	NoDPS           bool
	NoValidate      bool
	NoShapeCheck    bool
	MemoryLimit     int64
}

// API returns the options as the root package's, for the program's file.
func (o Options) API(file string) *nablasd.Options {
	return &nablasd.Options{File: file, Opt: o.Opt, Exec: o.Exec, Dict: o.Dict, Threads: o.Threads,
		NoDPS: o.NoDPS, NoValidate: o.NoValidate, NoShapeCheck: o.NoShapeCheck, MemoryLimit: o.MemoryLimit}
}

// Table is a table input read in splits.
type Table struct {
	Name    string
	Path    string
	Options string // datasets.TableOptions in the binding's form (row=src,col=dst,…)
	Format  string // the storage format's name ("": the table's default)
	Shape   []int  // fixed by the launcher for every worker
}

// splitInput returns the table as datasets' split input, keyed by key.
func (t Table) splitInput(key string) (datasets.SplitInput, error) {
	o, err := datasets.ParseTableOptions(t.Options)
	if err != nil {
		return datasets.SplitInput{}, fmt.Errorf("--in %s: %v", t.Name, err)
	}
	in := datasets.SplitInput{GroupInput: datasets.GroupInput{Name: t.Name, Path: t.Path, Options: o}, Key: key, Shape: t.Shape}
	if t.Format != "" {
		if in.Format, err = formats.ByName(t.Format); err != nil {
			return in, fmt.Errorf("--in %s: %v", t.Name, err)
		}
	}
	return in, nil
}

// open opens the table for reading its splits.
func (t Table) open(key string) (*datasets.SplitTable, error) {
	in, err := t.splitInput(key)
	if err != nil {
		return nil, err
	}
	st, err := datasets.OpenSplits(in)
	if err != nil {
		return nil, fmt.Errorf("--in %s: %v", t.Name, err)
	}
	return st, nil
}

// NewTable describes a table input from its binding's parts.
func NewTable(name, path string, o datasets.TableOptions, f formats.Format, shape []int) Table {
	t := Table{Name: name, Path: path, Options: o.String(), Shape: shape}
	if f != (formats.Format{}) {
		t.Format = f.Name()
	}
	return t
}

// tableNames lists the tables' names.
func tableNames(ts []Table) string {
	var ns []string
	for _, t := range ts {
		ns = append(ns, t.Name)
	}
	return strings.Join(ns, ", ")
}
