package corpus

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// item is one program of a corpus with its inputs, and the input to
// differentiate with respect to ("" for none).
type item struct {
	where  string
	prog   sdql.Expr
	inputs map[string]sdql.Value
	wrt    string
}

// collect reads the cases of datadriven files whose command is in cmds and
// whose input binds values, without judging their expected outputs.
func collect(t *testing.T, glob string, cmds ...string) []item {
	paths, _ := filepath.Glob(glob)
	if len(paths) == 0 {
		t.Fatalf("no corpus files match %s", glob)
	}
	want := map[string]bool{}
	for _, c := range cmds {
		want[c] = true
	}
	var items []item
	for _, path := range paths {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if !want[d.Cmd] || strings.HasPrefix(d.Expected, "error") {
				return d.Expected
			}
			inputs, src, err := sdqltest.Split(d.Input)
			if err != nil || len(inputs) == 0 {
				return d.Expected
			}
			src, _, _ = strings.Cut(src, "\n===\n") // ad's expected-program separator
			e, err := sdql.Parse(d.Pos, src)
			if err != nil {
				return d.Expected
			}
			it := item{where: d.Pos, prog: e, inputs: inputs}
			if d.HasArg("wrt") {
				d.ScanArgs(t, "wrt", &it.wrt)
			}
			items = append(items, it)
			return d.Expected
		})
	}
	return items
}

// TestCorpusAcrossExecutors: every corpus program gives the interpreter's
// result through the compiled kernel, over logical inputs and over every
// sparse storage format of its inputs, unfused and optimized.
func TestCorpusAcrossExecutors(t *testing.T) {
	var items []item
	items = append(items, collect(t, "../../sdql/testdata/*.txt", "eval", "check")...)
	items = append(items, collect(t, "../../ad/testdata/*.txt", "fd", "grad", "gradient", "forward")...)
	if len(items) < 60 {
		t.Fatalf("only %d corpus programs found", len(items))
	}
	paths := 0
	for n, it := range items {
		progs := map[string]sdql.Expr{"program": it.prog}
		if it.wrt != "" {
			types := map[string]sdql.Type{}
			for k, v := range it.inputs {
				types[k] = sdql.TypeOfValue(v)
			}
			if g, err := ad.Grad(it.prog, it.wrt, types); err == nil {
				progs["gradient"] = g
			}
		}
		for kind, prog := range progs {
			want, err := sdql.Eval(prog, it.inputs)
			if err != nil {
				continue // not a program over these inputs (e.g. an error case)
			}
			where := fmt.Sprintf("%s (%s)", it.where, kind)
			paths += check(t, where, prog, it.inputs, want)
			for round := 0; round < 2; round++ {
				phys, defs, ok := bindFormats(it.inputs, n+round)
				if !ok {
					break
				}
				composed := fuse.Compose(prog, defs)
				paths += check(t, where+" composed "+describe(defs), composed, phys, want)
				if kind == "program" && it.wrt != "" {
					continue
				}
				opt, err := optimize(prog, it.inputs, phys, defs)
				if err != nil {
					t.Errorf("%s: fuse: %v", where, err)
					continue
				}
				paths += check(t, where+" optimized "+describe(defs), opt, phys, want)
			}
		}
	}
	t.Logf("%d programs, %d compiled runs agree with the interpreter", len(items), paths)
}

// check compiles prog over inputs and compares with want.
func check(t *testing.T, where string, prog sdql.Expr, inputs map[string]sdql.Value, want sdql.Value) int {
	t.Helper()
	k, err := exec.CompileFor(prog, inputs, exec.Options{})
	if err != nil {
		t.Errorf("%s: compile: %v\n%s", where, err, sdql.Print(prog))
		return 0
	}
	res, err := k.Run(inputs)
	if err != nil {
		t.Errorf("%s: run: %v\n%s", where, err, sdql.Print(prog))
		return 0
	}
	if got := res.Value(); !sdql.Equal(got, want) {
		t.Errorf("%s: compiled %s, interpreted %s\n%s", where, sdql.FormatValue(got), sdql.FormatValue(want), sdql.Print(prog))
	}
	return 1
}

// sparseFormats are the formats that store exactly a dictionary's keys.
var sparseFormats = map[int][]formats.Format{
	1: {formats.COO, formats.CSF},
	2: {formats.CSR, formats.CSC, formats.COO, formats.DCSR, formats.CSF},
	3: {formats.COO, formats.CSF},
}

// bindFormats stores every tensor input in a sparse format (chosen by
// seed) and returns the physical bindings and definitions; ok is false when
// an input cannot be stored (negative keys, non-real values).
func bindFormats(inputs map[string]sdql.Value, seed int) (map[string]sdql.Value, map[string]sdql.Expr, bool) {
	phys := map[string]sdql.Value{}
	storage := map[string]fuse.Storage{}
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	any := false
	for i, n := range names {
		v := inputs[n]
		d, isDict := v.(*sdql.Dict)
		if !isDict {
			phys[n] = v
			continue
		}
		order := sdql.Order(sdql.TypeOfValue(v))
		fs := sparseFormats[order]
		if len(fs) == 0 {
			return nil, nil, false
		}
		shape, idx, val, ok := coords(d, order)
		if !ok {
			return nil, nil, false
		}
		f := fs[(seed+i)%len(fs)]
		tn, err := formats.FromCoords(shape, idx, val, f)
		if err != nil {
			return nil, nil, false
		}
		b, err := formats.Bind(tn, n)
		if err != nil {
			return nil, nil, false
		}
		for k, x := range b {
			phys[k] = x
		}
		storage[n] = fuse.Storage{Format: f, Order: order}
		any = true
	}
	if !any {
		return nil, nil, false
	}
	defs, _, err := fuse.Definitions(storage)
	if err != nil {
		return nil, nil, false
	}
	return phys, defs, true
}

// coords lists a tensor dictionary's stored entries.
func coords(d *sdql.Dict, order int) ([]int, [][]int, []float64, bool) {
	shape := make([]int, order)
	idx := make([][]int, order)
	var val []float64
	ok := true
	var walk func(v sdql.Value, prefix []int)
	walk = func(v sdql.Value, prefix []int) {
		if len(prefix) == order {
			x, isReal := v.(sdql.Real)
			if !isReal {
				ok = false
				return
			}
			for m, k := range prefix {
				idx[m] = append(idx[m], k)
				shape[m] = max(shape[m], k+1)
			}
			val = append(val, float64(x))
			return
		}
		dd, isDict := v.(*sdql.Dict)
		if !isDict || dd.Len() == 0 {
			// an empty row is a stored key no sparse format stores
			ok = false
			return
		}
		for _, k := range dd.Keys() {
			if k < 0 {
				ok = false
				return
			}
			x, _ := dd.Get(k)
			walk(x, append(prefix, k))
		}
	}
	walk(d, nil)
	return shape, idx, val, ok && len(val) > 0
}

func optimize(prog sdql.Expr, logical, phys map[string]sdql.Value, defs map[string]sdql.Expr) (sdql.Expr, error) {
	types := map[string]sdql.Type{}
	for n, v := range logical {
		types[n] = sdql.TypeOfValue(v)
	}
	physTypes := map[string]sdql.Type{}
	for n, v := range phys {
		physTypes[n] = sdql.TypeOfValue(v)
	}
	res, err := fuse.Optimize(prog, &fuse.Config{Inputs: types, Stats: fuse.StatsOf(logical),
		Defs: defs, PhysInputs: physTypes, PhysStats: fuse.StatsOf(phys)})
	if err != nil {
		return nil, err
	}
	return res.Program, nil
}

func describe(defs map[string]sdql.Expr) string {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}
