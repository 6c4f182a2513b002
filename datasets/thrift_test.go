package datasets

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/nablasd/nablasd/internal/tabletest"
)

// TestThriftRoundTrip: the footer and every page header of Parquet files
// arrow-go wrote (plain, dictionary encoded, with nulls and strings, v1
// and v2 data pages) decode and encode back to the same bytes, so that
// parquetChecksums rewrites them without losing a field; a struct cut
// short is errShort, which parquetChecksums waits on.
func TestThriftRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tables := []string{
		"i0:int64 i1:int64 val:float64\n0 1 2.5\n2 0 -1\n1 1 3\n",
		"g:string i:int64 val:float64\na 0 1\na 2 null\nb 1 2\nc null null\n",
		"g:int32 i:int64 val:float32\n1 0 1\n1 3 2\n2 1 0.5\n",
	}
	headers := 0
	for k, text := range tables {
		path := filepath.Join(dir, "t.parquet")
		if err := tabletest.Write(path, text, 2, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		footer := b[len(b)-8-n : len(b)-8]
		meta, used, err := decodeStruct(footer)
		if err != nil || used != n {
			t.Fatalf("table %d: the footer: %v (%d of %d bytes)", k, err, used, n)
		}
		if got := encodeStruct(meta); !bytes.Equal(got, footer) {
			t.Errorf("table %d: the footer encodes back to other bytes", k)
		}
		for _, rs := range pageBodies(t, path) {
			for _, r := range rs {
				// the header ends where the body starts: find its start by
				// decoding from each earlier byte until one ends there
				for start := r[0] - 1; start >= max(r[0]-256, 4); start-- {
					h, used, err := decodeStruct(b[start:r[0]])
					if err != nil || int64(used) != r[0]-start {
						continue
					}
					if size, ok := h.int(3); !ok || size != r[1]-r[0] {
						continue
					}
					if got := encodeStruct(h); !bytes.Equal(got, b[start:r[0]]) {
						t.Errorf("table %d: the page header at %d encodes back to other bytes", k, start)
					}
					for cut := 1; cut < used; cut++ {
						if _, _, err := decodeStruct(b[start : start+int64(cut)]); err != errShort {
							t.Errorf("table %d: the page header at %d cut to %d bytes: %v, want errShort", k, start, cut, err)
							break
						}
					}
					headers++
					break
				}
			}
		}
	}
	if headers < 9 {
		t.Errorf("only %d page headers round-tripped", headers)
	}
}
