package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestParquetChecksumsAnySplit: parquetChecksums writes the same file
// whether arrow-go's writer hands it the bytes whole or a few at a time
// (a page header cut anywhere waits for its rest), and the file reads back
// with every checksum verified.
func TestParquetChecksumsAnySplit(t *testing.T) {
	dir := t.TempDir()
	key := &arrow.Field{Name: "g", Type: arrow.BinaryTypes.String}
	schema := TensorSchema(1, key, map[string]string{MetaKey: "g"})
	var plain bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &plain, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(3), parquet.WithDictionaryFor("g", true), parquet.WithCreatedBy(writtenBy), parquet.WithRootName(rootName)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		rec := entriesRecord(schema, &Key{Str: k, IsStr: true}, [][]int{{0, 1, 2, 3}}, []float64{1, 2, 3, 4})
		if err := w.WriteBuffered(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var files [][]byte
	for _, piece := range []int{plain.Len(), 1, 3, 7, 64} {
		var out bytes.Buffer
		c := newParquetChecksums(&out)
		b := plain.Bytes()
		for len(b) > 0 {
			n := min(piece, len(b))
			if _, err := c.Write(b[:n]); err != nil {
				t.Fatalf("pieces of %d: %v", piece, err)
			}
			b = b[n:]
		}
		if err := c.Close(); err != nil {
			t.Fatalf("pieces of %d: %v", piece, err)
		}
		files = append(files, out.Bytes())
		if !bytes.Equal(out.Bytes(), files[0]) {
			t.Errorf("pieces of %d: another file than written whole", piece)
		}
	}
	p := filepath.Join(dir, "t.parquet")
	if err := os.WriteFile(p, files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readBack(p, true)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := openTable(p)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.close()
	if len(tf.checks.chunks) != tf.pq.NumRowGroups() || tf.pq.NumRowGroups() < 2 {
		t.Errorf("checksums of %d row groups of %d, want several", len(tf.checks.chunks), tf.pq.NumRowGroups())
	}
	if want := "\"a\" (4 rows): coo 4 nnz=4 {0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4}"; !strings.HasPrefix(got, want) {
		t.Errorf("read back:\n%s", got)
	}
}
