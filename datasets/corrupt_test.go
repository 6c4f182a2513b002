package datasets

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// corruptions are the ways TestCorruptTables damages a file at an offset
// (width bytes from it): one byte's bits flipped, one byte plus one, eight
// bytes zeroed, four random bytes (seeded by the offset).
var corruptions = []struct {
	name  string
	width int
	do    func(b []byte, at int)
}{
	{"flip", 1, func(b []byte, at int) { b[at] ^= 0xff }},
	{"inc", 1, func(b []byte, at int) { b[at]++ }},
	{"zero8", 8, func(b []byte, at int) {
		for i := at; i < min(at+8, len(b)); i++ {
			b[i] = 0
		}
	}},
	{"rand4", 4, func(b []byte, at int) {
		r := rand.New(rand.NewPCG(uint64(at), 39))
		for i := at; i < min(at+4, len(b)); i++ {
			b[i] = byte(r.IntN(256))
		}
	}},
}

// writtenTables writes, with nablasd's writers, a tensor table (WriteTable)
// and a grouped table of several row groups (TableWriter: a string key,
// nullable columns, a group without entries), each as Parquet, Arrow IPC
// file and stream, into dir; grouped reports which are grouped by "g".
func writtenTables(t *testing.T, dir string) (paths []string, grouped map[string]bool) {
	t.Helper()
	grouped = map[string]bool{}
	m, err := formats.FromCoords([]int{3, 4}, [][]int{{0, 0, 1, 2, 2}, {0, 3, 1, 0, 2}}, []float64{1.5, -2, 3.25, 4e-3, 1e10}, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	key := &arrow.Field{Name: "g", Type: arrow.BinaryTypes.String}
	for _, ext := range tableExts {
		p := filepath.Join(dir, "tensor"+ext)
		if err := WriteTensorTable(p, m, map[string]string{MetaProgram: "A"}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)

		p = filepath.Join(dir, "grouped"+ext)
		schema := TensorSchema(1, key, map[string]string{MetaKey: "g", MetaShape: "4"})
		w, err := createTable(p, schema, 3, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []struct {
			k   string
			idx []int
			val []float64
		}{{"a", []int{0, 2, 3}, []float64{1, 2, 3}}, {"b", nil, nil}, {"c", []int{1}, []float64{-0.5}}, {"d", []int{0, 1, 2, 3}, []float64{4, 5, 6, 7}}} {
			k := Key{Str: g.k, IsStr: true}
			rec := entriesRecord(schema, &k, [][]int{g.idx}, g.val)
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		grouped[p] = true
	}
	return paths, grouped
}

// readBack reads a table as a job would: a tensor table whole
// (ReadTable), a grouped one group by group (OpenGroups); it returns what
// it read as text.
func readBack(path string, grouped bool) (string, error) {
	if !grouped {
		tt, err := ReadTable(path, TableOptions{}, formats.Format{})
		if err != nil {
			return "", err
		}
		return describe(tt) + " " + metaText(tt.Meta), nil
	}
	g, err := OpenGroups("g", []GroupInput{{Name: "A", Path: path}})
	if err != nil {
		return "", err
	}
	defer g.Close()
	var b strings.Builder
	for {
		grp, err := g.Next(nil)
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		a := grp.Inputs["A"]
		fmt.Fprintf(&b, "%s (%d rows): %s %s\n", grp.Key, grp.Rows, describe(a), metaText(a.Meta))
	}
}

func metaText(m map[string]string) string {
	var kv []string
	for k, v := range m {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ";")
}

// TestCorruptTables: tables nablasd wrote (Parquet, Arrow IPC file and
// stream; a tensor and a grouped table), damaged at many offsets in
// several ways, read as exactly the original or as an error that names the
// file, never as other data (issue 39). Every offset without -short, every
// sixty-first (and the last sixteen bytes) with it, every 307th under the
// race detector.
func TestCorruptTables(t *testing.T) {
	dir := t.TempDir()
	paths, grouped := writtenTables(t, dir)
	stride := 1
	switch {
	case raceEnabled:
		stride = 307
	case testing.Short():
		stride = 61
	}
	bad := filepath.Join(dir, "bad")
	for _, path := range paths {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ext := filepath.Ext(path)
		want, err := readBack(path, grouped[path])
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		counts := map[string]int{}
		for at := 0; at < len(orig); at++ {
			if at%stride != 0 && at < len(orig)-16 {
				continue
			}
			for _, c := range corruptions {
				b := append([]byte(nil), orig...)
				c.do(b, at)
				if bytes.Equal(b, orig) {
					continue
				}
				p := bad + ext
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := readBack(p, grouped[path])
				switch {
				case err != nil && !strings.Contains(err.Error(), p):
					t.Errorf("%s, %s at byte %d: an error that does not name the file: %v", filepath.Base(path), c.name, at, err)
				case err != nil:
					counts["error"]++
				case got != want:
					t.Errorf("%s, %s at byte %d of %d: read other data:\n%s\nwant\n%s", filepath.Base(path), c.name, at, len(orig), got, want)
				default:
					counts["original"]++
				}
			}
		}
		t.Logf("%s (%d bytes): %d errors, %d reads of the original data", filepath.Base(path), len(orig), counts["error"], counts["original"])
	}
}

// pageBodies walks the pages of every column chunk of a Parquet file and
// returns the byte ranges of the pages' bodies, by leaf column name.
func pageBodies(t *testing.T, path string) map[string][][2]int64 {
	t.Helper()
	tf, err := openTable(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.close()
	out := map[string][][2]int64{}
	for rg := range tf.pq.NumRowGroups() {
		for leaf := range tf.pq.MetaData().Schema.NumColumns() {
			md, err := tf.pq.MetaData().RowGroup(rg).ColumnChunk(leaf)
			if err != nil {
				t.Fatal(err)
			}
			pos := md.DataPageOffset()
			if md.HasDictionaryPage() && md.DictionaryPageOffset() > 0 && md.DictionaryPageOffset() < pos {
				pos = md.DictionaryPageOffset()
			}
			end := pos + md.TotalCompressedSize()
			buf := make([]byte, chunkBuffer)
			for pos < end {
				h, n, err := tf.pageHeader(pos, end, buf)
				if err != nil {
					t.Fatal(err)
				}
				size, _ := h.int(3)
				name := tf.leafName(leaf)
				out[name] = append(out[name], [2]int64{pos + int64(n), pos + int64(n) + size})
				pos += int64(n) + size
			}
		}
	}
	return out
}

// withoutFooterChecksums rewrites a Parquet file nablasd wrote as another
// writer's with page checksums would have it: its footer without
// nablasd's checksums, created by someone else.
func withoutFooterChecksums(t *testing.T, b []byte) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	meta, _, err := decodeStruct(b[len(b)-8-n : len(b)-8])
	if err != nil {
		t.Fatal(err)
	}
	kvs := meta.field(5)
	var keep []tValue
	for _, kv := range kvs.items {
		if string(kv.st.field(1).b) != checksumsKey {
			keep = append(keep, kv)
		}
	}
	kvs.items = keep
	meta.set(6, tValue{typ: tBinary, b: []byte("someone else")})
	meta.field(2).items[0].st.set(4, tValue{typ: tBinary, b: []byte("schema")})
	footer := encodeStruct(meta)
	out := append(append([]byte(nil), b[:len(b)-8-n]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// TestParquetPageChecksums: in a Parquet file with page checksums but not
// nablasd's (as another writer's), a damaged byte of any page's body is an
// error naming the file, the row group and the column; and a file whose
// created_by says nablasd wrote it with checksums but has none is an
// error too.
func TestParquetPageChecksums(t *testing.T) {
	dir := t.TempDir()
	paths, grouped := writtenTables(t, dir)
	for _, path := range paths {
		if filepath.Ext(path) != ".parquet" {
			continue
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		foreign := withoutFooterChecksums(t, orig)
		p := filepath.Join(dir, "foreign.parquet")
		if err := os.WriteFile(p, foreign, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := readBack(path, grouped[path])
		if err != nil {
			t.Fatal(err)
		}
		if got, err := readBack(p, grouped[path]); err != nil || got != want {
			t.Fatalf("%s without nablasd's checksums: %v\n%s", filepath.Base(path), err, got)
		}
		bodies := pageBodies(t, p)
		checked := 0
		for col, rs := range bodies {
			for _, r := range rs {
				for at := r[0]; at < r[1]; at++ {
					if testing.Short() && at%3 != 0 {
						continue
					}
					b := append([]byte(nil), foreign...)
					b[at] ^= 0x10
					q := filepath.Join(dir, "bad.parquet")
					if err := os.WriteFile(q, b, 0o644); err != nil {
						t.Fatal(err)
					}
					_, err := readBack(q, grouped[path])
					if err == nil || !strings.Contains(err.Error(), q+": column "+col+": row group ") || !strings.Contains(err.Error(), "fails its checksum") {
						t.Errorf("%s: byte %d of a page of %s damaged: %v", filepath.Base(path), at, col, err)
					}
					checked++
				}
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no page bodies found", filepath.Base(path))
		}
		// created_by says nablasd with checksums, and the footer has none
		n := int(binary.LittleEndian.Uint32(foreign[len(foreign)-8:]))
		meta, _, _ := decodeStruct(foreign[len(foreign)-8-n : len(foreign)-8])
		meta.set(6, tValue{typ: tBinary, b: []byte(writtenBy)})
		footer := encodeStruct(meta)
		b := append(append([]byte(nil), foreign[:len(foreign)-8-n]...), footer...)
		b = append(binary.LittleEndian.AppendUint32(b, uint32(len(footer))), "PAR1"...)
		q := filepath.Join(dir, "stripped.parquet")
		if err := os.WriteFile(q, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readBack(q, grouped[path]); err == nil || !strings.Contains(err.Error(), "lacks its checksums") {
			t.Errorf("%s: a footer stripped of its checksums: %v", filepath.Base(path), err)
		}
	}
}

// TestParquetDecodeErrorNamesColumn: in a Parquet file without checksums
// (another writer's), a page of one column damaged so that it does not
// decode is an error naming that column and its row group.
func TestParquetDecodeErrorNamesColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plain.parquet")
	if err := tabletest.Write(path, "g:int64 i:int64 val:float64\n1 0 1.5\n1 2 2.5\n2 1 null\n3 0 4\n", 0, nil); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for col, rs := range pageBodies(t, path) {
		for _, r := range rs {
			for at := r[0]; at < r[1]; at++ {
				for _, c := range corruptions {
					if at+int64(c.width) > r[1] || testing.Short() && c.width != 1 {
						continue // damage in this page only; -short: one byte
					}
					b := append([]byte(nil), orig...)
					c.do(b, int(at))
					q := filepath.Join(dir, "bad.parquet")
					if err := os.WriteFile(q, b, 0o644); err != nil {
						t.Fatal(err)
					}
					_, err := ReadTable(q, TableOptions{Index: []string{"g", "i"}}, formats.Format{})
					if err == nil {
						continue // a value changed: undetectable without checksums
					}
					if !strings.Contains(err.Error(), q+": column ") {
						t.Errorf("byte %d of a page of %s damaged (%s): the error does not name a column: %v", at, col, c.name, err)
					} else if strings.Contains(err.Error(), "row group 0") && !strings.Contains(err.Error(), q+": column "+col+": ") {
						t.Errorf("byte %d of a page of %s damaged (%s): the error names another column: %v", at, col, c.name, err)
					} else {
						named++
					}
				}
			}
		}
	}
	if named == 0 {
		t.Fatal("no damage made a page fail to decode")
	}
	t.Logf("%d damaged pages that did not decode named their column", named)
}

// TestIPCValidation: in an Arrow IPC stream without nablasd's checksums
// (another writer's), a record batch whose message contradicts itself is
// an error, not data: a null count of 0 where the bitmap has a null
// (arrow-go would drop the bitmap and read the null's slot as a value), a
// buffer outside the body, a batch length that is not its columns'.
func TestIPCValidation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plain.arrows")
	// group 2 has no entries: a row of nulls
	if err := tabletest.Write(path, "g:int64 i:int64 val:float64\n1 0 1\n2 null null\n3 1 3\n", 0, nil); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readBack(path, true); err != nil {
		t.Fatal(err)
	}
	// the record batch message's metadata, where the file holds it
	m := newVerifiedMessages(bytes.NewReader(orig), int64(len(orig)))
	var meta []byte
	for {
		msg, err := m.Message()
		if err != nil {
			t.Fatal(err)
		}
		if msg.Type().String() == "RecordBatch" {
			meta = m.meta
			break
		}
	}
	base := bytes.Index(orig, meta)
	v := &fbVerifier{buf: meta}
	root, _ := v.uoffset(0)
	off, _ := v.field(root, 2)
	hdr, _ := v.uoffset(root + off)
	lenOff, _ := v.field(hdr, 0)
	nodes, bufs := fbStructs(v, hdr, 1, 16), fbStructs(v, hdr, 2, 16)
	// where a struct of the metadata is, by its bytes' address
	at := func(s []byte) int {
		return base + int(uintptr(unsafe.Pointer(&s[0]))-uintptr(unsafe.Pointer(&meta[0])))
	}
	for _, c := range []struct {
		what  string
		patch func(b []byte)
		want  string
	}{
		{"i's and val's null counts 0", func(b []byte) {
			binary.LittleEndian.PutUint64(b[at(nodes[1])+8:], 0)
			binary.LittleEndian.PutUint64(b[at(nodes[2])+8:], 0)
		}, "a null count of 0, but its bitmap has 1 nulls"},
		{"a buffer past the body", func(b []byte) { binary.LittleEndian.PutUint64(b[at(bufs[3]):], 1<<20) }, "lies outside the body"},
		{"a batch of 2 rows", func(b []byte) { binary.LittleEndian.PutUint64(b[base+hdr+lenOff:], 2) }, "column g has 3 rows, the batch 2"},
	} {
		b := append([]byte(nil), orig...)
		c.patch(b)
		p := filepath.Join(dir, "bad.arrows")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readBack(p, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v %s, want an error %q", c.what, err, got, c.want)
		}
	}
}

// TestCorruptJournal: a stopped job's journal (OUT.partial) damaged on
// disk does not pass its damage on: resuming keeps the groups before the
// damaged record batch and runs the others again, so the output is the
// one an undisturbed job writes.
func TestCorruptJournal(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "A.parquet")
	if err := tabletest.Write(in, "g:int64 row:int64 col:int64 val:float64\n1 0 0 1\n2 1 1 2.5\n3 0 1 -1\n4 2 0 4\n", 0, nil); err != nil {
		t.Fatal(err)
	}
	run := func(out string, stopAfter int, resume bool) error {
		g, err := OpenGroups("g", []GroupInput{{Name: "A", Path: in}})
		if err != nil {
			return err
		}
		defer g.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ran := 0
		job := &Job{Groups: g, Order: 2, Out: out, Workers: 1, Resume: resume, Meta: map[string]string{MetaProgram: "copy"},
			Step: func(grp *Group) (*TableTensor, error) {
				if ran++; ran == stopAfter {
					cancel()
				}
				return grp.Inputs["A"], nil
			}}
		_, err = job.Run(ctx)
		return err
	}
	want := filepath.Join(dir, "want.parquet")
	if err := run(want, -1, false); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.parquet")
	if err := run(out, 3, false); err == nil {
		t.Fatal("the job did not stop")
	}
	journal := out + JournalSuffix
	b, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, binary.LittleEndian.AppendUint64(nil, math.Float64bits(2.5)))
	if at < 0 {
		t.Fatal("the journal does not hold group 2's value")
	}
	b[at+7] ^= 0xff
	if err := os.WriteFile(journal, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(out, -1, true); err != nil {
		t.Fatal(err)
	}
	got, err := readBack(out, true)
	if err != nil {
		t.Fatal(err)
	}
	w, err := readBack(want, true)
	if err != nil {
		t.Fatal(err)
	}
	if got != w {
		t.Errorf("resumed from a damaged journal:\n%s\nwant\n%s", got, w)
	}
}
