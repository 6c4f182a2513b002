package exec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestEntries: Result.Entries walks the leaves of Value, keys ascending,
// for dense, growable, hashed and flat matrix results (keys inserted out
// of order, columns unsorted within a row, rows repeated).
func TestEntries(t *testing.T) {
	arrays := map[string]sdql.Value{
		"n":     sdql.Int(6),
		"A_len": sdql.Int(3),
		"A_pos": sdql.IntArray{0, 3, 3, 5},
		"A_idx": sdql.IntArray{2, 0, 1, 4, 2},
		"A_val": sdql.RealArray{1.5, 2, -1, 4, 0.25},
		"R":     sdql.IntArray{2, 0, 2},
	}
	progs := []string{
		"sum(<_, i> in (0:n)) { unique(n - 1 - i) -> 1.0 * i }",
		"sum(<_, i> in (0:n)) { 3 * i -> 1.0 * i, 100 - i -> 2.0 }",
		"sum(<_, i> in (0:A_len)) { unique(i) -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { unique(j) -> A_val(p) } }",
		"sum(<_, i> in (0:A_len)) { R(i) -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { unique(j) -> A_val(p) } }",
		"sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> { i -> A_val(p) } }",
	}
	for _, src := range progs {
		for _, opts := range []Options{{}, {NoDense: true}, {Threads: 2}, {NoFast: true}} {
			k, err := CompileFor(sdql.MustParse(src), arrays, opts)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			res, err := k.Run(arrays)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			var want []string
			var walk func(prefix string, v sdql.Value)
			walk = func(prefix string, v sdql.Value) {
				d, ok := v.(*sdql.Dict)
				if !ok {
					want = append(want, prefix+sdql.FormatValue(v))
					return
				}
				for _, key := range d.Keys() {
					x, _ := d.Get(key)
					walk(fmt.Sprintf("%s%d ", prefix, key), x)
				}
			}
			walk("", res.Value())
			var got []string
			if err := res.Entries(func(c []int, x float64) bool {
				got = append(got, strings.Trim(fmt.Sprint(c), "[]")+" "+sdql.FormatReal(x))
				return true
			}); err != nil {
				t.Fatal(err)
			}
			if g, w := strings.Join(got, "; "), strings.Join(want, "; "); g != w {
				t.Errorf("%s %+v:\nEntries %s\nValue   %s", src, opts, g, w)
			}
		}
	}
	k, _ := CompileFor(sdql.MustParse("sum(<_, i> in (0:n)) 1.0 * i"), arrays, Options{})
	res, _ := k.Run(arrays)
	if err := res.Entries(func([]int, float64) bool { return true }); err == nil {
		t.Errorf("Entries of a scalar result: no error")
	}
}

// TestMemoryLimit: a dense result of known extent past the limit is an
// error before it is allocated, and a hashed dictionary growing past it
// stops the run; under the limit the result is unchanged.
func TestMemoryLimit(t *testing.T) {
	prog := sdql.MustParse("sum(<_, i> in (0:n)) { i * 7 -> 1.0 }")
	in := map[string]sdql.Value{"n": sdql.Int(100000)}
	k, err := CompileFor(prog, in, Options{MemoryLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(in); err == nil || !strings.Contains(err.Error(), "over the memory limit of 1.0 MiB") {
		t.Errorf("a 100,000-key dictionary under a 1 MiB limit: %v", err)
	}
	k, _ = CompileFor(prog, in, Options{MemoryLimit: 1 << 30})
	if res, err := k.Run(in); err != nil || res.Value().(*sdql.Dict).Len() != 100000 {
		t.Errorf("under the limit: %v", err)
	}
	k, _ = CompileFor(sdql.MustParse("sum(<_, i> in (0:n)) { i -> 1.0 }"), in, Options{MemoryLimit: 1 << 20, ResultShape: []int{1 << 30}})
	if _, err := k.Run(in); err == nil || !strings.Contains(err.Error(), "a dense level of 1073741824 keys: the run needs more than 8.0 GiB, over the memory limit of 1.0 MiB") {
		t.Errorf("a dense result past the limit: %v", err)
	}
}
