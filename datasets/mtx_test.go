package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestReadMatrixMarket(t *testing.T) {
	tests := []struct {
		name, in string
		shape    []int
		idx      [][]int
		val      []float64
	}{
		{"general", "%%MatrixMarket matrix coordinate real general\n% c\n\n3 4 3\n1 1 1.5\n3 4 -2e3\n2 2 0\n",
			[]int{3, 4}, [][]int{{0, 2, 1}, {0, 3, 1}}, []float64{1.5, -2000, 0}},
		{"symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 3\n",
			[]int{3, 3}, [][]int{{0, 2, 0, 2, 1}, {0, 0, 2, 1, 2}}, []float64{1, 2, 2, 3, 3}},
		{"skew", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 7\n",
			[]int{2, 2}, [][]int{{1, 0}, {0, 1}}, []float64{7, -7}},
		{"pattern", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n",
			[]int{2, 2}, [][]int{{0, 1}, {1, 0}}, []float64{1, 1}},
		{"crlf tabs case", "%%MatrixMarket Matrix Coordinate Real General\r\n2 1 1\r\n\t2\t1\t+3.25  \r\n",
			[]int{2, 1}, [][]int{{1}, {0}}, []float64{3.25}},
		{"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n0\n",
			[]int{2, 2}, [][]int{{0, 1, 0, 1}, {0, 0, 1, 1}}, []float64{1, 2, 3, 0}},
		{"array symmetric", "%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n",
			[]int{2, 2}, [][]int{{0, 1, 0, 1}, {0, 0, 1, 1}}, []float64{1, 2, 2, 3}},
		{"array skew", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n",
			[]int{3, 3}, [][]int{{1, 0, 2, 0, 2, 1}, {0, 1, 0, 2, 1, 2}}, []float64{1, -1, 2, -2, 3, -3}},
		{"no final newline", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 12345678901234567890", []int{1, 1}, [][]int{{0}, {0}}, []float64{12345678901234567890}},
		{"empty", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", []int{0, 0}, [][]int{{}, {}}, []float64{}},
		// duplicates are kept here and summed by formats; a file may
		// declare more entries than its matrix has positions
		{"duplicates past the positions", "%%MatrixMarket matrix coordinate real general\n2 1 3\n1 1 1\n1 1 2\n2 1 4\n",
			[]int{2, 1}, [][]int{{0, 0, 1}, {0, 0, 0}}, []float64{1, 2, 4}},
		{"symmetric duplicates", "%%MatrixMarket matrix coordinate real symmetric\n1 1 2\n1 1 1\n1 1 2\n",
			[]int{1, 1}, [][]int{{0, 0}, {0, 0}}, []float64{1, 2}},
		{"pattern duplicates", "%%MatrixMarket matrix coordinate pattern general\n1 2 3\n1 2\n1 2\n1 1\n",
			[]int{1, 2}, [][]int{{0, 0, 0}, {1, 1, 0}}, []float64{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := ReadMatrixMarket(strings.NewReader(tt.in), "t.mtx")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Shape, tt.shape) || !reflect.DeepEqual(c.Idx, tt.idx) || !reflect.DeepEqual(c.Val, tt.val) {
				t.Errorf("got %v %v %v, want %v %v %v", c.Shape, c.Idx, c.Val, tt.shape, tt.idx, tt.val)
			}
		})
	}
}

func TestReadMatrixMarketErrors(t *testing.T) {
	const coord = "%%MatrixMarket matrix coordinate real general\n"
	tests := []struct{ in, err string }{
		{"", "A.mtx: empty input, want a %%MatrixMarket header"},
		{"hello\n", "A.mtx:1: missing %%MatrixMarket header"},
		{"%%MatrixMarket matrix coordinate real\n", "A.mtx:1: header: want %%MatrixMarket matrix FORMAT FIELD SYMMETRY, got 4 words"},
		{"%%MatrixMarket vector coordinate real general\n", `A.mtx:1: unsupported object "vector" (want matrix)`},
		{"%%MatrixMarket matrix sparse real general\n", `A.mtx:1: unknown format "sparse" (want coordinate or array)`},
		{"%%MatrixMarket matrix coordinate quaternion general\n", `A.mtx:1: unknown field "quaternion" (want real, integer or pattern)`},
		{"%%MatrixMarket matrix coordinate real upper\n", `A.mtx:1: unknown symmetry "upper" (want general, symmetric or skew-symmetric)`},
		{"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "A.mtx: complex matrices are not supported"},
		{"%%MatrixMarket matrix coordinate real hermitian\n", "A.mtx: hermitian matrices are not supported"},
		{"%%MatrixMarket matrix array pattern general\n", "A.mtx:1: pattern field is not allowed in array format"},
		{coord + "% only comments\n", "A.mtx:3: unexpected end of input, want the size line"},
		{coord + "3 3\n", `A.mtx:2: size line: want "rows columns entries", got "3 3"`},
		{coord + "3 x 1\n", `A.mtx:2: invalid column count "x"`},
		{coord + "-3 3 1\n", "A.mtx:2: negative row count -3"},
		{coord + "3 3 99999999999999999999999\n", "A.mtx:2: entry count 99999999999999999999999 is too large"},
		{coord + "3000000000 3 1\n", "A.mtx:2: row count 3000000000 exceeds the limit 2147483647"},
		{coord + "0 5 3\n", "A.mtx:2: 0 x 5 matrix cannot hold 3 stored entries"},
		{coord + "2 2 5\n", "A.mtx:2: unexpected end of input after 0 of 5 entries"},
		{"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n", "A.mtx:2: symmetric matrix must be square, got 2 x 3"},
		{"%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 1\n", "A.mtx:2: 1 x 1 skew-symmetric matrix cannot hold 1 stored entries"},
		{"%%MatrixMarket matrix array real general\n2000000 2000000\n", "A.mtx:2: 2000000 x 2000000 array is too large (4000000000000 values, limit 2147483647)"},
		{coord + "8 8 2\n1 1 1\n9 1 1\n", "A.mtx:4: row index 9 out of range 1..8"},
		{coord + "8 8 1\n1 0 1\n", "A.mtx:3: column index 0 out of range 1..8"},
		{coord + "8 8 1\n-1 1 1\n", "A.mtx:3: row index -1 out of range 1..8"},
		{coord + "8 8 1\n1.5 1 1\n", `A.mtx:3: invalid row index "1.5"`},
		{coord + "8 8 1\n1 1 abc\n", `A.mtx:3: invalid value "abc"`},
		{coord + "8 8 1\n1 1\n", "A.mtx:3: want 3 fields (row column value), got 2"},
		{coord + "8 8 1\n1 1 1 1\n", "A.mtx:3: want 3 fields (row column value), got 4"},
		{"%%MatrixMarket matrix coordinate pattern general\n8 8 1\n1 1 1\n", "A.mtx:3: want 2 fields (row column), got 3"},
		{"%%MatrixMarket matrix coordinate integer general\n8 8 1\n1 1 1.5\n", `A.mtx:3: invalid integer value "1.5"`},
		{"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", "A.mtx:3: diagonal entry (2, 2) in a skew-symmetric matrix"},
		{coord + "8 8 2\n1 1 1\n", "A.mtx:3: unexpected end of input after 1 of 2 entries"},
		{coord + "8 8 1\n1 1 1\n\n2 2 2\n", "A.mtx:5: more entries than the 1 declared"},
		{"%%MatrixMarket matrix array real general\n2 2\n1\n2\n", "A.mtx:4: unexpected end of input after 2 of 4 values"},
		{"%%MatrixMarket matrix array real general\n1 1\n1\n2\n", "A.mtx:4: more values than the 1 declared"},
		{"%%MatrixMarket matrix array real general\n1 1\n1 2\n", "A.mtx:3: want 1 value, got 2 fields"},
		{"%%MatrixMarket matrix array real general\n1 1\nx\n", `A.mtx:3: invalid value "x"`},
	}
	for _, tt := range tests {
		_, _, err := ReadMatrixMarket(strings.NewReader(tt.in), "A.mtx")
		if err == nil || err.Error() != tt.err {
			t.Errorf("ReadMatrixMarket(%q):\n got %v\nwant %s", tt.in, err, tt.err)
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("ReadMatrixMarket(%q): error %T is not a *ParseError", tt.in, err)
		}
	}
}

func gzipBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestReadMatrixMarketGzip(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("%%MatrixMarket matrix coordinate real general\n1000 1000 5000\n")
	for e := range 5000 {
		text.WriteString(strconv.Itoa(e/5+1) + " " + strconv.Itoa(e%1000+1) + " 0.5\n")
	}
	gz := gzipBytes(t, text.Bytes())
	// Recognised by magic bytes, whatever the name.
	c, _, err := ReadMatrixMarket(bytes.NewReader(gz), "plain.mtx")
	if err != nil || c.NNZ() != 5000 {
		t.Fatalf("gzip input: nnz %v, err %v", c, err)
	}
	_, _, err = ReadMatrixMarket(bytes.NewReader(gz[:len(gz)/2]), "T.mtx.gz")
	if err == nil || !strings.Contains(err.Error(), "truncated gzip data") || !strings.HasPrefix(err.Error(), "T.mtx.gz:") {
		t.Errorf("truncated gzip: got %v", err)
	}
	bad := bytes.Clone(gz)
	bad[len(bad)-6] ^= 0xff // the CRC-32 in the trailer
	_, _, err = ReadMatrixMarket(bytes.NewReader(bad), "T.mtx.gz")
	if err == nil || !strings.Contains(err.Error(), "corrupt gzip data: checksum mismatch") {
		t.Errorf("corrupt gzip: got %v", err)
	}
	_, _, err = ReadMatrixMarket(bytes.NewReader(gz[:5]), "T.mtx.gz")
	if err == nil || !strings.HasPrefix(err.Error(), "T.mtx.gz: corrupt gzip data") {
		t.Errorf("gzip header only: got %v", err)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	vals := []float64{1, -0.1, math.Pi, 1e-300, 6.02214076e23, 0, math.MaxFloat64, 5e-324}
	c := &Coords{Shape: []int{5, 7}, Val: vals,
		Idx: [][]int{{0, 1, 2, 3, 4, 4, 0, 2}, {6, 5, 4, 3, 2, 1, 0, 0}}}
	for _, gz := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "m.mtx")
		if gz {
			path += ".gz"
		}
		if err := SaveMatrixMarket(path, c, &WriteOptions{Comments: []string{" written by a test"}}); err != nil {
			t.Fatal(err)
		}
		got, h, err := LoadMatrixMarket(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("gz=%v: round trip gave %v, want %v", gz, got, c)
		}
		if h.Field != "real" || h.Symmetry != "general" || len(h.Comments) != 1 {
			t.Errorf("header %+v", h)
		}
	}
	// A vector is written as an n x 1 matrix and read back with shape [n, 1].
	v := &Coords{Shape: []int{4}, Idx: [][]int{{3, 1}}, Val: []float64{2, 3}}
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, v, &WriteOptions{Field: "integer"}); err != nil {
		t.Fatal(err)
	}
	want := "%%MatrixMarket matrix coordinate integer general\n4 1 2\n4 1 2\n2 1 3\n"
	if buf.String() != want {
		t.Errorf("vector written as %q, want %q", buf.String(), want)
	}
	got, _, err := ReadMatrixMarket(&buf, "v.mtx")
	if err != nil || !reflect.DeepEqual(got.Shape, []int{4, 1}) {
		t.Errorf("vector read back: %v %v", got, err)
	}
	if err := WriteMatrixMarket(&buf, &Coords{Shape: []int{1}, Idx: [][]int{{0}}, Val: []float64{0.5}}, &WriteOptions{Field: "integer"}); err == nil {
		t.Error("non-integer value written as integer")
	}
	if err := WriteMatrixMarket(&buf, &Coords{Shape: []int{1, 1, 1}, Idx: [][]int{{}, {}, {}}}, nil); err == nil {
		t.Error("order-3 tensor written")
	}
}

// TestWriteArrayRoundTrip: a dense matrix written as an array file (column
// by column) reads back as the same values at the same places, an array.
func TestWriteArrayRoundTrip(t *testing.T) {
	vals := []float64{1, -0.1, math.Pi, 1e-300, 6.02214076e23, 0} // 2×3, row-major
	var buf bytes.Buffer
	if err := WriteMatrixMarketArray(&buf, []int{2, 3}, func(i, j int) float64 { return vals[3*i+j] }, &WriteOptions{Comments: []string{" x"}}); err != nil {
		t.Fatal(err)
	}
	want := "%%MatrixMarket matrix array real general\n% x\n2 3\n1\n1e-300\n-0.1\n6.02214076e+23\n3.141592653589793\n0\n"
	if buf.String() != want {
		t.Errorf("written %q, want %q", buf.String(), want)
	}
	got, h, err := ReadMatrixMarket(&buf, "a.mtx")
	if err != nil || h.Format != "array" {
		t.Fatalf("%v %+v", err, h)
	}
	for e, v := range got.Val {
		if i, j := got.Idx[0][e], got.Idx[1][e]; vals[3*i+j] != v {
			t.Errorf("(%d, %d) read %v, wrote %v", i, j, v, vals[3*i+j])
		}
	}
	if len(got.Val) != 6 {
		t.Errorf("%d values read back, want all 6", len(got.Val))
	}
	if err := WriteMatrixMarketArray(&buf, []int{1, 1, 1}, nil, nil); err == nil {
		t.Error("order-3 tensor written")
	}
}

// TestReadLargeDeclaration checks that a tiny input declaring a huge
// matrix fails without reserving memory for the declared size.
func TestReadLargeDeclaration(t *testing.T) {
	for _, in := range []string{
		"%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1000000000000\n1 1 1\n",
		"%%MatrixMarket matrix array real general\n40000 40000\n1\n",
		"%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 1000000000000\n1 1 1\n",
	} {
		for _, r := range []func() any{
			func() any { return strings.NewReader(in) },
			func() any { return bufio.NewReader(strings.NewReader(in)) }, // size unknown
		} {
			alloc := allocatedBytes(func() {
				_, _, err := ReadMatrixMarket(r().(interface{ Read([]byte) (int, error) }), "big.mtx")
				if err == nil || !strings.Contains(err.Error(), "unexpected end of input after 1 of") {
					t.Errorf("got %v", err)
				}
			})
			if alloc > 16<<20 {
				t.Errorf("%q: allocated %d bytes", in, alloc)
			}
		}
	}
}

func TestSuiteSparseShared(t *testing.T) {
	dir := sharedDir(t)
	rows := readSourcesTable(t, filepath.Join(dir, "SOURCES.md"))
	if len(rows) < 40 {
		t.Fatalf("SOURCES.md: only %d matrices found", len(rows))
	}
	for _, r := range rows {
		t.Run(r.file, func(t *testing.T) {
			c, h, err := LoadMatrixMarket(filepath.Join(dir, r.file))
			if strings.HasPrefix(r.header, "complex") {
				want := r.file + ": complex matrices are not supported"
				if err == nil || err.Error() != want {
					t.Errorf("got %v, want %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Shape[0] != r.rows || c.Shape[1] != r.cols || h.Entries != r.stored || c.NNZ() != r.nnz {
				t.Errorf("got %d x %d, %d stored, %d expanded; SOURCES.md says %d x %d, %d, %d",
					c.Shape[0], c.Shape[1], h.Entries, c.NNZ(), r.rows, r.cols, r.stored, r.nnz)
			}
			if got := h.Field + " " + h.Symmetry; got != r.header {
				t.Errorf("header %q, SOURCES.md says %q", got, r.header)
			}
		})
	}
}

type sourcesRow struct {
	file, header            string
	rows, cols, stored, nnz int
}

// readSourcesTable reads the matrix tables of SOURCES.md by column name.
func readSourcesTable(t testing.TB, path string) []sourcesRow {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []sourcesRow
	var col map[string]int
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			col = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if col == nil {
			col = map[string]int{}
			for i, c := range cells {
				col[c] = i
			}
			continue
		}
		_, ok := col["rows x cols"]
		if !ok || strings.HasPrefix(cells[0], "---") {
			continue
		}
		var r sourcesRow
		r.file = cells[col["file"]]
		r.header = cells[col["header (field symmetry)"]]
		dims := strings.Split(cells[col["rows x cols"]], " x ")
		var errs [4]error
		r.rows, errs[0] = strconv.Atoi(dims[0])
		r.cols, errs[1] = strconv.Atoi(dims[len(dims)-1])
		r.stored, errs[2] = strconv.Atoi(cells[col["stored"]])
		r.nnz, errs[3] = strconv.Atoi(cells[col["nnz (expanded)"]])
		if err := errors.Join(errs[:]...); err != nil {
			t.Fatalf("SOURCES.md: %s: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}
