package datasets

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// shuffledTable returns a grouped table's text with its rows shuffled
// (unsorted), and the same rows sorted stably by their first column, the
// key (what ORDER BY gives): the two hold each group's rows in the same
// order.
func shuffledTable(r *rand.Rand, text string, str bool) (unsorted, sorted string) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	head, rows := lines[0], lines[1:]
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	unsorted = head + "\n" + strings.Join(rows, "\n") + "\n"
	key := func(row string) string {
		k, _, _ := strings.Cut(row, " ")
		if str {
			return k
		}
		return fmt.Sprintf("%012s", k) // non-negative integers, by value
	}
	slices.SortStableFunc(rows, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	sorted = head + "\n" + strings.Join(rows, "\n") + "\n"
	return unsorted, sorted
}

// groupsOf reads every group of the inputs (by key) and returns each
// group's tensors by input, with the keys in the order they came.
func groupsOf(t *testing.T, key string, ins []GroupInput, o *GroupOptions) ([]Key, map[Key]map[string]*TableTensor, *Groups) {
	t.Helper()
	g, err := OpenGroupsWith(key, ins, o)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var keys []Key
	out := map[Key]map[string]*TableTensor{}
	for {
		grp, err := g.Next(nil)
		if errors.Is(err, io.EOF) {
			return keys, out, g
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, grp.Key)
		out[grp.Key] = grp.Inputs
	}
}

// TestUnsortedGroups: a table not sorted by its key is grouped as the
// same table sorted stably by key: the same groups in key order, each
// group's tensors equal to the bit (duplicates summed in the same order,
// empty groups' markers kept), for integer and string keys, each kind of
// table file, record batches of several sizes, sorts in one run or in
// merges of many (a few rows a run), groups read from the sort's file once
// or twice (table_buckets.go), and beside a sorted input; the sort's
// temporary files are gone from the first (they are removed as soon as
// they are created).
func TestUnsortedGroups(t *testing.T) {
	defer func() { spillBucketRows = streamBatchRows }()
	r := rand.New(rand.NewPCG(37, 2))
	ints := randomGrouped(r, 30)
	strs := "k:string" + strings.TrimPrefix(ints, "k:int32")
	strs = strings.NewReplacer("\n1", "\nb1", "\n2", "\nc2", "\n3", "\nd3").Replace(strs) // keys of other lengths and orders
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		text string
		str  bool
	}{{"int keys", ints, false}, {"string keys", strs, true}} {
		unsorted, sorted := shuffledTable(r, c.text, c.str)
		for _, ext := range []string{"parquet", "arrow", "arrows"} {
			for _, batch := range []int{0, 5, 64} {
				up := filepath.Join(dir, fmt.Sprintf("u%d.%s", batch, ext))
				sp := filepath.Join(dir, fmt.Sprintf("s%d.%s", batch, ext))
				if err := tabletest.Write(up, unsorted, batch, nil); err != nil {
					t.Fatal(err)
				}
				if err := tabletest.Write(sp, sorted, batch, nil); err != nil {
					t.Fatal(err)
				}
				// x: the same rows, sorted, as a second grouped input
				for _, mem := range []int64{0, 1 << 10} {
					tmp := t.TempDir()
					name := fmt.Sprintf("%s/%s/batch=%d/sort memory %d", c.name, ext, batch, mem)
					// the sorted file's groups read in two passes, or but
					// for the largest once
					spillBucketRows = []int{0, streamBatchRows}[batch%2]
					o := &GroupOptions{SortMemory: mem, TempDir: tmp}
					wantKeys, want, _ := groupsOf(t, "k", []GroupInput{{Name: "A", Path: sp}, {Name: "x", Path: sp, Format: formats.COO}}, nil)
					gotKeys, got, g := groupsOf(t, "k", []GroupInput{{Name: "A", Path: up}, {Name: "x", Path: sp, Format: formats.COO}}, o)
					if names, bytes := g.Sorted(); !reflect.DeepEqual(names, []string{"A"}) || bytes <= 0 {
						// (a Parquet file of few rows a row group may read
						// sorted, its row groups in the order of their keys)
						t.Errorf("%s: sorted %v (%d bytes), want A alone", name, names, bytes)
					}
					if !reflect.DeepEqual(gotKeys, wantKeys) {
						t.Fatalf("%s: keys %v, want %v", name, gotKeys, wantKeys)
					}
					for _, k := range wantKeys {
						if !reflect.DeepEqual(got[k], want[k]) {
							t.Errorf("%s: key %v: %+v, want %+v", name, k, got[k]["A"].Tensor, want[k]["A"].Tensor)
						}
					}
					if left, _ := os.ReadDir(tmp); len(left) != 0 {
						t.Errorf("%s: the sort left %d files", name, len(left))
					}
				}
			}
		}
	}
}

// TestUnsortedGroupsErrors: the rows of an unsorted table are checked as
// a sorted table's are, with the file's row numbers.
func TestUnsortedGroupsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text string
		meta map[string]string
		want string
	}{
		{"k:int64 i:int64 val:float64\n3 0 1\n1 1 2\nnull 0 3\n", nil, "k.arrows: column k, row 2: null key"},
		{"k:int64 i:int64 val:float64\n3 0 1\n1 1 2\n2 7 3\n", map[string]string{MetaShape: "5"}, "column i, row 2: index 7 out of range 0..4"},
		{"k:int64 i:int64 val:float64\n3 0 1\n1 1 2\n2 null 3\n", nil, "column i, row 2: null value"},
	} {
		path := filepath.Join(dir, "k.arrows")
		if err := tabletest.Write(path, c.text, 2, c.meta); err != nil {
			t.Fatal(err)
		}
		_, err := OpenGroupsWith("k", []GroupInput{{Name: "A", Path: path}}, &GroupOptions{TempDir: dir})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the failed sorts left %d files beside the table", len(left)-1)
	}
}
