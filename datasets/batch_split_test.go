package datasets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// randomGrouped is a table text (k, row, col, val) of groups sorted by k,
// with coordinates stored twice, an all-null marker row for an empty
// group, and keys missing: the cases a group's tensor is built from.
func randomGrouped(r *rand.Rand, keys int) string {
	var b strings.Builder
	b.WriteString("k:int32 row:int64 col:int64 val:float64\n")
	for k := range keys {
		switch {
		case k%5 == 3:
			continue // no rows
		case k%7 == 4:
			fmt.Fprintf(&b, "%d null null null\n", k) // an empty group
			continue
		}
		for range r.IntN(30) + 1 {
			// few distinct coordinates: duplicates, summed in file order
			fmt.Fprintf(&b, "%d %d %d %v\n", k, r.IntN(4), r.IntN(5), math.Round(r.NormFloat64()*1e6)/1e3)
		}
	}
	return b.String()
}

// TestSplitsGiveGroupsTensors: reading a table split by split, and
// building each group's tensor from its chunks gathered in any order,
// gives the tensors Groups.Next gives, to the bit, for each kind of table
// file, record batches (row groups) of several sizes, and every format.
func TestSplitsGiveGroupsTensors(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 16))
	dir := t.TempDir()
	text := randomGrouped(r, 40)
	batches := []int{0, 1, 7, 64}
	if raceEnabled {
		// the race detector needs no more than the extremes: one row per
		// batch, and batches longer than a group
		batches = []int{1, 64}
	}
	for _, ext := range []string{"parquet", "arrow", "arrows"} {
		for _, batch := range batches {
			path := filepath.Join(dir, fmt.Sprintf("A%d.%s", batch, ext))
			if err := tabletest.Write(path, text, batch, nil); err != nil {
				t.Fatal(err)
			}
			for _, f := range []formats.Format{formats.CSR, formats.COO, formats.CSC, formats.Dense} {
				name := fmt.Sprintf("%s/batch=%d/%s", ext, batch, f.Name())
				in := GroupInput{Name: "A", Path: path, Format: f}
				want := groupsByKey(t, in, "k")
				got := splitsByKey(t, r, in, "k", want.shape)
				if len(got) != len(want.groups) {
					t.Errorf("%s: %d groups from splits, %d from Groups", name, len(got), len(want.groups))
				}
				for k, w := range want.groups {
					if g := got[k]; !reflect.DeepEqual(g, w) {
						t.Errorf("%s: key %v: from splits %+v, from Groups %+v", name, k, g, w)
					}
				}
			}
		}
	}
}

type keyedTensors struct {
	shape  []int
	groups map[Key]*formats.Tensor
}

func groupsByKey(t *testing.T, in GroupInput, key string) keyedTensors {
	g, err := OpenGroups(key, []GroupInput{in})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	shape, _ := g.Shape(in.Name)
	out := keyedTensors{shape: shape, groups: map[Key]*formats.Tensor{}}
	for {
		grp, err := g.Next(nil)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out.groups[grp.Key] = grp.Inputs[in.Name].Tensor
	}
}

func splitsByKey(t *testing.T, r *rand.Rand, in GroupInput, key string, shape []int) map[Key]*formats.Tensor {
	s, err := OpenSplits(SplitInput{GroupInput: in, Key: key, Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	chunks := map[Key][]*Chunk{}
	for split := range s.Splits() {
		err := s.Read(split, func(c *Chunk) error {
			chunks[c.Key] = append(chunks[c.Key], c)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	out := map[Key]*formats.Tensor{}
	for k, cs := range chunks {
		r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		tt, err := s.Tensor(cs)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = tt.Tensor
	}
	return out
}

// TestSplitsWithoutKey: without a key column a table's chunks are its
// record batches, and building one tensor from all of them gives the
// tensor ReadTable reads.
func TestSplitsWithoutKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("i0:int64 i1:int64 i2:int16 val:float32\n")
	for range 200 {
		fmt.Fprintf(&b, "%d %d %d %d\n", r.IntN(9), r.IntN(3), r.IntN(4), r.IntN(100)-50)
	}
	path := filepath.Join(t.TempDir(), "T.parquet")
	if err := tabletest.Write(path, b.String(), 33, nil); err != nil {
		t.Fatal(err)
	}
	shape, err := TableShape(path, TableOptions{})
	if err != nil || !reflect.DeepEqual(shape, []int{9, 3, 4}) {
		t.Fatalf("shape %v, %v", shape, err)
	}
	want, err := ReadTable(path, TableOptions{}, formats.CSF)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSplits(SplitInput{GroupInput: GroupInput{Path: path, Format: formats.CSF}, Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Splits() != 7 || s.Rows(6) != 2 {
		t.Errorf("%d splits, the last of %d rows; want 7 and 2", s.Splits(), s.Rows(6))
	}
	var all []*Chunk
	for split := s.Splits() - 1; split >= 0; split-- {
		if err := s.Read(split, func(c *Chunk) error { all = append(all, c); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Tensor(all)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Tensor, want.Tensor) {
		t.Errorf("from splits %+v\nReadTable %+v", got.Tensor, want.Tensor)
	}
}

// TestSplitErrors: bad rows read from a split are errors naming the file,
// the column and the row of the file (counting from 0, as every table
// error does), not of the split.
func TestSplitErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, key, want string }{
		{"k:int64 i:int64 val:float64\n1 0 1\n1 1 2\n2 0 3\nnull 2 4\n", "k", "A.parquet: column k, row 3: null key"},
		{"k:int64 i:int64 val:float64\n1 0 1\n1 1 2\n2 0 3\n2 -2 4\n", "k", "A.parquet: column i, row 3: index -2 is negative"},
		{"k:int64 i:int64 val:float64\n1 0 1\n1 1 2\n2 0 3\n2 9 4\n", "k", "A.parquet: column i, row 3: index 9 out of range 0..2"},
		{"k:int64 i:int64 val:float64\n1 0 1\n1 1 2\n2 0 3\n2 1 null\n", "", "A.parquet: column val, row 3: null value"},
	} {
		path := filepath.Join(dir, "A.parquet")
		if err := tabletest.Write(path, c.text, 2, nil); err != nil {
			t.Fatal(err)
		}
		s, err := OpenSplits(SplitInput{GroupInput: GroupInput{Path: path}, Key: c.key, Shape: []int{3}})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Read(1, func(*Chunk) error { return nil })
		s.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	path := filepath.Join(dir, "A.parquet")
	if _, err := OpenSplits(SplitInput{GroupInput: GroupInput{Path: path}, Key: "g", Shape: []int{3}}); err == nil || !strings.Contains(err.Error(), "no column g") {
		t.Errorf("a missing key column: %v", err)
	}
}

// TestGroupTableWritesAJobsOutput: groups written to a GroupTable in any
// order make the table a Job writes for them: the same rows in the same
// order and the same metadata.
func TestGroupTableWritesAJobsOutput(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	in := filepath.Join(dir, "A.parquet")
	if err := tabletest.Write(in, randomGrouped(r, 30), 16, nil); err != nil {
		t.Fatal(err)
	}
	open := func() *Groups {
		g, err := OpenGroups("k", []GroupInput{{Name: "A", Path: in, Format: formats.COO}})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	meta := map[string]string{MetaProgram: "A"}
	step := func(g *Group) (*TableTensor, error) { return g.Inputs["A"], nil }
	for _, ext := range []string{"parquet", "arrow", "arrows"} {
		g := open()
		jobOut := filepath.Join(dir, "job."+ext)
		job := &Job{Groups: g, Step: step, Order: 2, Out: jobOut, Meta: meta, Workers: 2}
		if _, err := job.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		g.Close()

		g = open()
		var groups []*Group
		for {
			grp, err := g.Next(nil)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			groups = append(groups, grp)
		}
		r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		out := filepath.Join(dir, "shard."+ext)
		gt, err := CreateGroupTable(out, g.KeyField(), 2, meta)
		if err != nil {
			t.Fatal(err)
		}
		for _, grp := range groups {
			if _, err := gt.Write(grp.Key, grp.Inputs["A"]); err != nil {
				t.Fatal(err)
			}
		}
		if err := gt.Close(); err != nil {
			t.Fatal(err)
		}
		g.Close()
		want, err := tabletest.Cat(jobOut)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tabletest.Cat(out)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || !strings.Contains(got, "null") {
			t.Errorf("%s: GroupTable wrote\n%s\nthe job\n%s", ext, got, want)
		}
	}
}
