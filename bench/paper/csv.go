package paper

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// A Row is one cell's outcome, one line of the results CSV.
type Row struct {
	Figure, Panel, X string
	XOrder           float64
	Kernel           string
	// Input, Source and the counts describe the cell's input.
	Input, Source   string
	Rows, Cols, NNZ int
	System          string
	// Status is "ok" or why there is no time: "skipped (estimated 95 s)",
	// "out of memory (…)", "timeout (…)", "not installed",
	// "unsupported", "wrong result", "error".
	Status, Detail string
	// Time is the median of the timed runs, TimeMin and TimeMax their
	// extremes, in seconds (NaN without a time); Runs their number.
	Time, TimeMin, TimeMax float64
	Runs                   int
	// Setup is the time to build the system's inputs and compile.
	Setup float64
	// PeakBytes is the peak resident memory of the setup and first run
	// above the memory after loading the files (-1: not measured).
	PeakBytes int64
	// Sum and SumSq checksum the gradient; Check compares them with the
	// hand-written Go's ("ok", "mismatch", or "" without a reference).
	Sum, SumSq float64
	Check      string
	// First is the first run's time, in seconds: a cold run (the result
	// built from nothing), not one of the timed runs unless it is the only
	// one (NaN: not recorded, as in CSVs written before it was).
	First float64
}

// Key identifies the row's cell (Cell.Key).
func (r *Row) Key() string {
	return r.Figure + "|" + r.Panel + "|" + r.Kernel + "|" + r.X + "|" + r.System
}

// OK reports whether the row has a time.
func (r *Row) OK() bool { return r.Status == "ok" && !math.IsNaN(r.Time) }

var csvHeader = []string{"figure", "panel", "x", "x_order", "kernel", "input", "source", "rows", "cols", "nnz",
	"system", "status", "detail", "time_s", "time_min_s", "time_max_s", "runs", "setup_s", "peak_bytes",
	"sum", "sumsq", "check", "first_s"}

// legacyColumns is the number of columns of a results CSV written before
// first_s was: it reads with First unknown, and a resumed run rewrites it
// with the current header.
const legacyColumns = 22

func fnum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func (r *Row) record() []string {
	peak := ""
	if r.PeakBytes >= 0 {
		peak = strconv.FormatInt(r.PeakBytes, 10)
	}
	sums := func(x float64) string {
		if r.Status != "ok" {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 12, 64)
	}
	return []string{r.Figure, r.Panel, r.X, fnum(r.XOrder), r.Kernel, r.Input, r.Source,
		strconv.Itoa(r.Rows), strconv.Itoa(r.Cols), strconv.Itoa(r.NNZ),
		r.System, r.Status, r.Detail, fnum(r.Time), fnum(r.TimeMin), fnum(r.TimeMax), strconv.Itoa(r.Runs),
		fnum(r.Setup), peak, sums(r.Sum), sums(r.SumSq), r.Check, fnum(r.First)}
}

// Results is a results CSV: its comment lines ("# key: value") and rows.
// Legacy reports a CSV written before the first_s column.
type Results struct {
	Meta   []string
	Rows   []*Row
	Legacy bool
}

// Setting returns the value of the first comment line "# key: value".
func (res *Results) Setting(key string) string {
	for _, m := range res.Meta {
		if k, v, ok := strings.Cut(m, ": "); ok && k == key {
			return v
		}
	}
	return ""
}

// ReadResults reads a results CSV; name names it in errors.
func ReadResults(r io.Reader, name string) (*Results, error) {
	res := &Results{}
	br := bufio.NewReader(r)
	var body strings.Builder
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, "# ") {
			res.Meta = append(res.Meta, strings.TrimRight(line[2:], "\r\n"))
		}
		body.WriteString(line)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	cr := csv.NewReader(strings.NewReader(body.String()))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // the header's count, checked below
	header, columns := true, len(csvHeader)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		line, _ := cr.FieldPos(0)
		if header {
			switch strings.Join(rec, ",") {
			case strings.Join(csvHeader, ","):
			case strings.Join(csvHeader[:legacyColumns], ","):
				res.Legacy, columns = true, legacyColumns
			default:
				return nil, fmt.Errorf("%s:%d: not a results header (want %s)", name, line, strings.Join(csvHeader, ","))
			}
			header = false
			continue
		}
		if len(rec) != columns {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", name, line, len(rec), columns)
		}
		row, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		res.Rows = append(res.Rows, row)
	}
	if header {
		return nil, fmt.Errorf("%s: no header line", name)
	}
	return res, nil
}

// ReadResultsFile reads the results CSV at path.
func ReadResultsFile(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadResults(f, path)
}

func parseRow(rec []string) (*Row, error) {
	var err error
	flt := func(col int) float64 {
		if rec[col] == "" || err != nil {
			return math.NaN()
		}
		x, e := strconv.ParseFloat(rec[col], 64)
		if e != nil {
			err = fmt.Errorf("column %s: %q is not a number", csvHeader[col], rec[col])
		}
		return x
	}
	integer := func(col int) int {
		if rec[col] == "" || err != nil {
			return 0
		}
		x, e := strconv.Atoi(rec[col])
		if e != nil {
			err = fmt.Errorf("column %s: %q is not an integer", csvHeader[col], rec[col])
		}
		return x
	}
	r := &Row{Figure: rec[0], Panel: rec[1], X: rec[2], XOrder: flt(3), Kernel: rec[4], Input: rec[5], Source: rec[6],
		Rows: integer(7), Cols: integer(8), NNZ: integer(9), System: rec[10], Status: rec[11], Detail: rec[12],
		Time: flt(13), TimeMin: flt(14), TimeMax: flt(15), Runs: integer(16), Setup: flt(17), PeakBytes: -1,
		Sum: flt(19), SumSq: flt(20), Check: rec[21], First: math.NaN()}
	if len(rec) > legacyColumns {
		r.First = flt(22)
	}
	if rec[18] != "" {
		r.PeakBytes = int64(flt(18))
	}
	if r.Status == "" && err == nil {
		err = fmt.Errorf("column status is empty")
	}
	return r, err
}

// csvWriter appends rows to a results CSV, flushed row by row so that an
// interrupted run keeps what it measured.
type csvWriter struct {
	f *os.File
	w *csv.Writer
}

// openResults opens path for appending rows: a new file starts with the
// comment lines meta and the header; an existing one gets meta as further
// comment lines (a resumed run's machine and versions).
func openResults(path string, meta []string) (*csvWriter, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	for _, m := range meta {
		fmt.Fprintf(f, "# %s\n", m)
	}
	w := csv.NewWriter(f)
	if statErr != nil {
		w.Write(csvHeader)
		w.Flush()
	}
	return &csvWriter{f: f, w: w}, w.Error()
}

func (cw *csvWriter) write(r *Row) error {
	cw.w.Write(r.record())
	cw.w.Flush()
	return cw.w.Error()
}

func (cw *csvWriter) Close() error { return cw.f.Close() }

// rewriteResults writes res to path in the current format (a legacy CSV
// gains the first_s column): through openResults into a temporary file
// renamed over it.
func rewriteResults(path string, res *Results) error {
	tmp := path + ".tmp"
	os.Remove(tmp)
	w, err := openResults(tmp, res.Meta)
	if err != nil {
		return err
	}
	for _, r := range res.Rows {
		if err = w.write(r); err != nil {
			break
		}
	}
	if err := errors.Join(err, w.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
