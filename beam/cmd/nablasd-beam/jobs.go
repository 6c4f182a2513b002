package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/beam/pipeline"
	"github.com/nablasd/nablasd/beam/rowsum"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// groupedJob fills in a grouped job (--group-by): the grouped tables, the
// broadcast inputs, the output's metadata (nablasd's). It opens and checks
// every input and the program as nablasd --group-by does, and prepares
// the output directory; cleanup removes what a failed job wrote there.
func groupedJob(job *pipeline.Job, a *args, o *nablasd.Options, stderr io.Writer) (cleanup func(), err error) {
	gj, err := batch.OpenGrouped(a.groupBy, job.File, job.Program, a.inputs, o, job.Wrt, stderr)
	if err != nil {
		return nil, err
	}
	defer gj.Groups.Close()
	grouped := map[string]bool{}
	for _, n := range gj.Groups.Grouped() {
		grouped[n] = true
		shape, f := gj.Groups.Shape(n)
		for _, t := range gj.Tables {
			if t.Name == n {
				job.Tables = append(job.Tables, pipeline.NewTable(n, t.Path, t.Options, f, shape))
			}
		}
	}
	for _, b := range a.inputs {
		if !grouped[bindingName(b)] {
			job.Broadcast = append(job.Broadcast, b)
		}
	}
	job.Key, job.Order = a.groupBy, gj.Order
	job.Meta = batch.Meta(job.Program, job.Wrt, a.inputs)
	return prepareOutDir(a.out)
}

// partitionedJob fills in a row-partitioned job (--partition-rows): the
// partitioned input, the inputs split along with it and the broadcast
// ones. It refuses a program that is not a sum over the partitioned
// input's rows, and checks every input and the program over them.
func partitionedJob(job *pipeline.Job, a *args, o *nablasd.Options, stderr io.Writer) error {
	if _, ok := datasets.TableKindOf(a.out); !ok {
		return batch.Usagef("--partition-rows writes one table: give --out FILE.parquet, FILE.arrow or FILE.arrows")
	}
	prog, err := sdql.Parse(job.File, job.Program)
	if err != nil {
		return err
	}
	o.File = job.File
	tables := map[string]batch.TableSpec{}
	var names []string
	bound := map[string]string{}
	for _, b := range a.inputs {
		n, v, ok := strings.Cut(b, "=")
		if !ok {
			continue // batch.ParseInputs reports it
		}
		bound[n] = v
		ts, isTable, err := batch.ParseTableSpec(n, v)
		if err != nil {
			return err
		}
		if isTable {
			if _, dup := tables[n]; dup {
				return batch.Usagef("--in %s is bound twice", n)
			}
			tables[n] = ts
			names = append(names, n)
		}
	}
	part := a.partitionIn
	switch {
	case part == "" && len(names) == 0:
		return batch.Usagef("--partition-rows splits a table input into row blocks, and there is none: bind one with --in NAME=FILE.parquet (or .arrow, .arrows)")
	case part == "":
		part = largest(names, tables)
	case bound[part] == "":
		return batch.Usagef("--partition-input %s: no input %s is bound (bind it with --in %s=FILE.parquet)", part, part, part)
	case tables[part].Path == "":
		return batch.Usagef("--partition-input %s: %s=%s is not a table file; the partitioned input is read in splits from a .parquet, .arrow or .arrows file (convert it: nablasd eval -e %s --in %s=%s --out %s.parquet)",
			part, part, bound[part], part, part, bound[part], part)
	}
	var candidates []string
	for _, n := range names {
		if n != part {
			candidates = append(candidates, n)
		}
	}
	split, err := rowsum.Check(job.File, prog, part, candidates)
	if err != nil {
		var se *sdql.Error
		if errors.As(err, &se) {
			se.Msg = "--partition-rows: " + se.Msg
			return se
		}
		return err
	}
	splitNames := append([]string{part}, split.With...)
	isSplit := map[string]bool{}
	for _, n := range splitNames {
		isSplit[n] = true
	}
	var broadcast []string
	for _, b := range a.inputs {
		if !isSplit[bindingName(b)] {
			broadcast = append(broadcast, b)
		}
	}
	inputs, err := batch.ParseInputs(broadcast, stderr)
	if err != nil {
		return err
	}
	for _, n := range splitNames {
		ts := tables[n]
		shape, err := datasets.TableShape(ts.Path, ts.Opts)
		if err != nil {
			return fmt.Errorf("--in %s: %v", n, err)
		}
		t := pipeline.NewTable(n, ts.Path, ts.Opts, ts.Format, shape)
		if inputs[n], err = pipeline.PartitionStandIn(t); err != nil {
			return err
		}
		job.Tables = append(job.Tables, t)
	}
	q, err := batch.Prepare(job.Program, inputs, o, job.Wrt, stderr)
	if err != nil {
		return err
	}
	job.Order = max(sdql.Order(q.Type()), 0)
	if t, ok := inputs[job.Wrt].(*formats.Tensor); ok && job.Wrt != "" {
		job.Order += t.Order()
	}
	job.Partition, job.BlockRows, job.Broadcast = part, a.partitionRows, broadcast
	job.Meta = map[string]string{datasets.MetaProgram: job.Program}
	if job.Wrt != "" {
		job.Meta["nablasd.wrt"] = job.Wrt
	}
	return nil
}

// largest is the table input with the largest file (the first of equals).
func largest(names []string, tables map[string]batch.TableSpec) string {
	best, size := names[0], int64(-1)
	for _, n := range names {
		if st, err := os.Stat(tables[n].Path); err == nil && st.Size() > size {
			best, size = n, st.Size()
		}
	}
	return best
}

// prepareOutDir makes the output directory of a grouped job, removing an
// earlier job's shards and manifest from it; it refuses a directory
// holding other files. The returned cleanup removes the shards and
// journals a failed job left.
func prepareOutDir(dir string) (func(), error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("--out %s: not a directory (--group-by writes a directory of shards and a manifest)", dir)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("--out %s: %v", dir, err)
	}
	ours := func(name string) bool {
		name = strings.TrimPrefix(name, ".")
		return name == pipeline.ManifestName || strings.HasPrefix(name, pipeline.ManifestName+".tmp") ||
			(strings.HasPrefix(name, "part-") && strings.Contains(name, ".parquet"))
	}
	clean := func() error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !ours(e.Name()) {
				return fmt.Errorf("--out %s: the directory holds %s, which is not a nablasd-beam output: give a new or empty directory", dir, e.Name())
			}
		}
		for _, e := range ents {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("--out %s: %v", dir, err)
			}
		}
		return nil
	}
	if err := clean(); err != nil {
		return nil, err
	}
	return func() { clean() }, nil
}
