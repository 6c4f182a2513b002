package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
	"github.com/nablasd/nablasd/sdql"
)

// TestTableDataDriven runs testdata/tables/*.txt (regenerate the expected
// output with go test ./datasets -run TestTableDataDriven -rewrite).
// Files are made in a temporary folder shared by the commands of a file.
//
//	write file=NAME [meta=K:V;K:V] [batch=N]
//	    input: a header "name:type ..." (int8 … int64, uint8 … uint64,
//	    float32, float64, decimal, string, date32), then one row a line,
//	    null for a null; batch=N writes N rows a record batch (a row group
//	    for Parquet)
//	truncate file=NAME keep=N|cut=N   keeps the first N bytes, or cuts the last N
//	read file=NAME [format=F] [opts=O]   the tensor read, or the error
//	groups key=K in=NAME:FILE[:FORMAT][?OPTS] ...   every group, or the error
//	job key=K in=... out=FILE step=copy:NAME|sum:NAME|rows:NAME [workers=N] [resume] [stop-after=N [watch]] [fail-at=KEY]
//	    runs a Job and prints its output table (or the error, and the
//	    files left); rows:NAME is a RowStep: a row "entry", val per
//	    stored value of NAME, then a row "sum" (Job.Columns what:utf8,
//	    val:float64); with watch, the rows step that cancels (the
//	    stop-after'th) returns the context's error, as a fit does
//	cat file=NAME                     the rows and metadata of a table
func TestTableDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/tables", func(t *testing.T, path string) {
		dir := t.TempDir()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "write":
				return ddWrite(t, d, dir)
			case "truncate":
				var name string
				var keep, cut int
				d.ScanArgs(t, "file", &name)
				if d.HasArg("cut") {
					d.ScanArgs(t, "cut", &cut)
					st, err := os.Stat(filepath.Join(dir, name))
					if err != nil {
						d.Fatalf(t, "%v", err)
					}
					keep = int(st.Size()) - cut
				} else {
					d.ScanArgs(t, "keep", &keep)
				}
				if err := os.Truncate(filepath.Join(dir, name), int64(keep)); err != nil {
					d.Fatalf(t, "%v", err)
				}
				return ""
			case "read":
				return ddRead(t, d, dir)
			case "groups":
				return ddGroups(t, d, dir)
			case "job":
				return ddJob(t, d, dir)
			case "cat":
				var name string
				d.ScanArgs(t, "file", &name)
				return catTable(t, filepath.Join(dir, name))
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

func ddWrite(t *testing.T, d *datadriven.TestData, dir string) string {
	var name, metaArg string
	batchRows := 0
	d.ScanArgs(t, "file", &name)
	if d.HasArg("meta") {
		d.ScanArgs(t, "meta", &metaArg)
	}
	if d.HasArg("batch") {
		d.ScanArgs(t, "batch", &batchRows)
	}
	meta := map[string]string{}
	for _, kv := range strings.Split(metaArg, ";") {
		if k, v, ok := strings.Cut(kv, ":"); ok {
			meta[k] = v
		}
	}
	if err := tabletest.Write(filepath.Join(dir, name), d.Input, batchRows, meta); err != nil {
		d.Fatalf(t, "%v", err)
	}
	return ""
}

// ddFormat reads the format= and opts= arguments.
func ddFormat(t *testing.T, d *datadriven.TestData) (formats.Format, TableOptions) {
	var f formats.Format
	var o TableOptions
	if d.HasArg("format") {
		var name string
		d.ScanArgs(t, "format", &name)
		var err error
		if f, err = formats.ByName(name); err != nil {
			d.Fatalf(t, "%v", err)
		}
	}
	if d.HasArg("opts") {
		var s string
		d.ScanArgs(t, "opts", &s)
		var err error
		if o, err = ParseTableOptions(s); err != nil {
			d.Fatalf(t, "%v", err)
		}
	}
	return f, o
}

// describe prints a table tensor: its format, shape and value.
func describe(tt *TableTensor) string {
	if tt.Tensor == nil {
		return "scalar " + sdql.FormatReal(tt.Scalar)
	}
	if err := tt.Tensor.Validate(); err != nil {
		return "invalid: " + err.Error()
	}
	return fmt.Sprintf("%s %s", tt.Tensor, sdql.FormatValue(formats.ToValue(tt.Tensor)))
}

func ddRead(t *testing.T, d *datadriven.TestData, dir string) string {
	var name string
	d.ScanArgs(t, "file", &name)
	f, o := ddFormat(t, d)
	tt, err := ReadTable(filepath.Join(dir, name), o, f)
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), dir+"/", "") + "\n"
	}
	return describe(tt) + "\n"
}

// ddInputs parses in=NAME:FILE[:FORMAT][?OPTS] arguments.
func ddInputs(t *testing.T, d *datadriven.TestData, dir string) []GroupInput {
	var ins []GroupInput
	for _, a := range d.CmdArgs {
		if a.Key != "in" {
			continue
		}
		spec := a.Vals[0]
		var in GroupInput
		spec, opts, _ := strings.Cut(spec, "?")
		parts := strings.Split(spec, ":")
		in.Name, in.Path = parts[0], filepath.Join(dir, parts[1])
		if len(parts) > 2 {
			f, err := formats.ByName(parts[2])
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			in.Format = f
		}
		if opts != "" {
			o, err := ParseTableOptions(opts)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			in.Options = o
		}
		ins = append(ins, in)
	}
	return ins
}

func ddGroups(t *testing.T, d *datadriven.TestData, dir string) string {
	var key string
	d.ScanArgs(t, "key", &key)
	clean := func(err error) string { return "error: " + strings.ReplaceAll(err.Error(), dir+"/", "") + "\n" }
	g, err := OpenGroups(key, ddInputs(t, d, dir))
	if err != nil {
		return clean(err)
	}
	defer g.Close()
	var b strings.Builder
	var shared []string
	for n := range g.Shared() {
		shared = append(shared, n)
	}
	sort.Strings(shared)
	for _, n := range shared {
		fmt.Fprintf(&b, "shared %s: %s\n", n, describe(g.Shared()[n]))
	}
	for {
		grp, err := g.Next(nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.WriteString(clean(err))
			break
		}
		fmt.Fprintf(&b, "%s=%s (%d rows):\n", key, grp.Key, grp.Rows)
		for _, n := range g.Grouped() {
			fmt.Fprintf(&b, "  %s: %s\n", n, describe(grp.Inputs[n]))
		}
	}
	return b.String()
}

func ddJob(t *testing.T, d *datadriven.TestData, dir string) string {
	var key, out, step string
	d.ScanArgs(t, "key", &key)
	d.ScanArgs(t, "out", &out)
	d.ScanArgs(t, "step", &step)
	workers, stopAfter := 1, -1
	failAt := ""
	if d.HasArg("workers") {
		d.ScanArgs(t, "workers", &workers)
	}
	if d.HasArg("stop-after") {
		d.ScanArgs(t, "stop-after", &stopAfter)
	}
	if d.HasArg("fail-at") {
		d.ScanArgs(t, "fail-at", &failAt)
	}
	clean := func(s string) string { return strings.ReplaceAll(s, dir+"/", "") }
	g, err := OpenGroups(key, ddInputs(t, d, dir))
	if err != nil {
		return "error: " + clean(err.Error()) + "\n"
	}
	defer g.Close()
	kind, name, _ := strings.Cut(step, ":")
	order := 0
	if kind == "copy" {
		shape, _ := g.Shape(name)
		order = len(shape)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran atomic.Int32
	job := &Job{Groups: g, Order: order, Out: filepath.Join(dir, out), Workers: workers, Resume: d.HasArg("resume"),
		Meta: map[string]string{MetaProgram: step},
		Step: func(grp *Group) (*TableTensor, error) {
			if grp.Key.String() == failAt {
				return nil, fmt.Errorf("step failed")
			}
			if int(ran.Add(1)) == stopAfter {
				cancel()
			}
			in := grp.Inputs[name]
			if kind == "copy" {
				return in, nil
			}
			s := in.Scalar
			if in.Tensor != nil {
				s = 0
				for _, v := range in.Tensor.Val {
					s += v
				}
			}
			return &TableTensor{Scalar: s}, nil
		}}
	if kind == "rows" {
		job.Order, job.Step = 0, nil
		job.Columns = []arrow.Field{{Name: "what", Type: arrow.BinaryTypes.String}, {Name: "val", Type: arrow.PrimitiveTypes.Float64}}
		job.RowStep = func(grp *Group) (arrow.RecordBatch, error) {
			if grp.Key.String() == failAt {
				return nil, fmt.Errorf("step failed")
			}
			if int(ran.Add(1)) == stopAfter {
				cancel()
				if d.HasArg("watch") {
					return nil, fmt.Errorf("the step watched: %w", ctx.Err())
				}
			}
			b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(job.Columns, nil))
			defer b.Release()
			sum := 0.0
			if t := grp.Inputs[name].Tensor; t != nil {
				for _, v := range t.Val {
					b.Field(0).(*array.StringBuilder).Append("entry")
					b.Field(1).(*array.Float64Builder).Append(v)
					sum += v
				}
			}
			b.Field(0).(*array.StringBuilder).Append("sum")
			b.Field(1).(*array.Float64Builder).Append(sum)
			return b.NewRecordBatch(), nil
		}
	}
	st, err := job.Run(ctx)
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error: %s\n", clean(err.Error()))
	}
	if st != nil {
		fmt.Fprintf(&b, "groups run %d, kept %d, rows %d, entries %d\n", st.Groups, st.Kept, st.Rows, st.Entries)
	}
	ents, _ := os.ReadDir(dir)
	var files []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), out) || strings.HasPrefix(e.Name(), "."+out) {
			files = append(files, e.Name())
		}
	}
	fmt.Fprintf(&b, "files: %s\n", strings.Join(files, " "))
	if err == nil {
		b.WriteString(catTable(t, filepath.Join(dir, out)))
	}
	return b.String()
}

// catTable prints a table's columns, metadata (nablasd's keys) and rows.
func catTable(t *testing.T, path string) string {
	tf, err := openTable(path)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	defer tf.close()
	var b strings.Builder
	for i, f := range tf.schema.Fields() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%s", f.Name, f.Type)
	}
	b.WriteByte('\n')
	var keys []string
	for k := range tf.meta {
		if strings.HasPrefix(k, "nablasd.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q\n", k, tf.meta[k])
	}
	cols := make([]int, len(tf.schema.Fields()))
	for i := range cols {
		cols[i] = i
	}
	br, err := tf.batches(cols, nil)
	if err != nil {
		return b.String() + "error: " + err.Error() + "\n"
	}
	defer br.close()
	for {
		bt, err := br.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b.String() + "error: " + err.Error() + "\n"
		}
		for r := range int(bt.rec.NumRows()) {
			for c := range cols {
				if c > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(bt.rec.Column(c).ValueStr(r))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
