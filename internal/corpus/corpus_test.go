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
// storage format of its inputs (each input in turn in each format of its
// order; dense formats store zeros, which the interpreter then sees too),
// unfused and optimized. A program with a wrt input also gives its
// gradient in forward and in reverse mode (which must agree on the logical
// inputs), and, when the wrt input is bound dense, the reverse gradient
// that leaves out the restriction to its stored positions where the
// inputs' shapes prove it the identity (ad.Request's Dense and Dims).
func TestCorpusAcrossExecutors(t *testing.T) {
	var items []item
	items = append(items, collect(t, "../../sdql/testdata/*.txt", "eval", "check")...)
	items = append(items, collect(t, "../../ad/testdata/*.txt", "fd", "grad", "gradient", "forward")...)
	items = append(items, collect(t, "../../fuse/testdata/*.txt", "plan", "norm", "strategy", "saturate")...)
	if len(items) < 100 {
		t.Fatalf("only %d corpus programs found", len(items))
	}
	goRuns = nil
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
			if st, err := ad.Reverse(it.prog, &ad.Request{Wrt: []string{it.wrt}}, types); err == nil {
				progs["reverse"] = st.Result
			} else {
				t.Errorf("%s: reverse mode: %v", it.where, err)
			}
		}
		if progs["gradient"] != nil && progs["reverse"] != nil {
			f, ferr := sdql.Eval(progs["gradient"], it.inputs)
			r, rerr := sdql.Eval(progs["reverse"], it.inputs)
			if ferr == nil && (rerr != nil || !sdql.Equal(f, r)) {
				t.Errorf("%s: reverse mode gives %v (%v), forward mode %s", it.where, r, rerr, sdql.FormatValue(f))
			}
		}
		for kind, prog := range progs {
			want, err := sdql.Eval(prog, it.inputs)
			if err != nil {
				continue // not a program over these inputs (e.g. an error case)
			}
			where := fmt.Sprintf("%s (%s)", it.where, kind)
			paths += check(t, where, prog, it.inputs, want)
			for round := 0; round < rounds(it.inputs); round++ {
				if testing.Short() && (n+round)%2 == 1 {
					// -short binds every other round of formats, program
					// n the rounds of n's parity: each format still
					// meets half the programs (make test-long binds all)
					continue
				}
				b, ok := bindFormats(it.inputs, round)
				if !ok {
					break
				}
				// the inputs as the formats store them (dense ones with
				// their zeros) are what the kernels compute over
				want, err := sdql.Eval(prog, b.logical)
				if err != nil {
					t.Errorf("%s over %s: interpreter: %v", where, b.desc, err)
					continue
				}
				composed := fuse.Compose(prog, b.defs)
				paths += check(t, where+" composed over "+b.desc, composed, b.phys, want)
				if kind == "program" && it.wrt != "" {
					continue
				}
				opt, err := optimize(prog, b)
				if err != nil {
					t.Errorf("%s over %s: fuse: %v", where, b.desc, err)
					continue
				}
				paths += check(t, where+" optimized over "+b.desc, opt, b.phys, want)
				if kind == "reverse" && b.dense[it.wrt] {
					paths += checkDenseReverse(t, where+" (dense) over "+b.desc, it, b, want)
				}
			}
		}
	}
	t.Logf("%d programs, %d compiled runs agree with the interpreter", len(items), paths)
	checkGeneratedGo(t)
}

// check compiles prog over inputs and compares with want.
func check(t *testing.T, where string, prog sdql.Expr, inputs map[string]sdql.Value, want sdql.Value) int {
	t.Helper()
	goRuns = append(goRuns, goRun{where, prog, inputs, want})
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
	got := res.Value()
	if !sdql.Identical(got, want) {
		t.Errorf("%s: compiled %s, interpreted %s (%s)\n%s", where, sdql.FormatValue(got), sdql.FormatValue(want),
			sdql.DiffDicts(got, want, 1e-9), sdql.Print(prog))
	}
	checkEntries(t, where, res, got)
	return 1
}

// checkEntries: Result.Entries (what writes a result in place) walks the
// leaves of the result's Value, keys ascending, each once.
func checkEntries(t *testing.T, where string, res *exec.Result, v sdql.Value) {
	t.Helper()
	if sdql.Order(res.Type()) < 1 {
		return
	}
	var want []string
	var walk func(prefix string, v sdql.Value)
	walk = func(prefix string, v sdql.Value) {
		d, ok := v.(*sdql.Dict)
		if !ok {
			want = append(want, prefix+sdql.FormatValue(v))
			return
		}
		for _, k := range d.Keys() {
			x, _ := d.Get(k)
			walk(fmt.Sprintf("%s%d ", prefix, k), x)
		}
	}
	walk("", v)
	var got []string
	err := res.Entries(func(c []int, x float64) bool {
		var b strings.Builder
		for _, k := range c {
			fmt.Fprintf(&b, "%d ", k)
		}
		got = append(got, b.String()+sdql.FormatValue(leaf(res.Type(), x)))
		return true
	})
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: Entries gives\n%s\nValue's leaves are\n%s", where, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// leaf is a leaf of type t's innermost values as the interpreter prints it.
func leaf(t sdql.Type, x float64) sdql.Value {
	for {
		d, ok := t.(*sdql.DictType)
		if !ok {
			break
		}
		t = d.Val
	}
	switch t {
	case sdql.IntType, sdql.DenseIntType:
		return sdql.Int(int(x))
	case sdql.BoolType:
		return sdql.Bool(x != 0)
	}
	return sdql.Real(x)
}

// bound is a corpus item's inputs stored in formats.
type bound struct {
	phys    map[string]sdql.Value // the storage arrays and scalars
	defs    map[string]sdql.Expr  // each tensor input's Physical SDQLite definition
	logical map[string]sdql.Value // the inputs as stored (formats.ToValue)
	dense   map[string]bool       // the inputs stored in a dense format
	dims    map[string][]int      // the tensors' shapes
	desc    string                // which input is in which format
}

// rounds is how many rounds of bindFormats give every tensor input every
// format of its order.
func rounds(inputs map[string]sdql.Value) int {
	n := 0
	for _, v := range inputs {
		if _, isDict := v.(*sdql.Dict); isDict {
			n = max(n, len(formats.ForOrder(sdql.Order(sdql.TypeOfValue(v)))))
		}
	}
	return n
}

// bindFormats stores every tensor input in a format of its order, input i
// of the sorted names in format (round + i) mod the number of formats, so
// that rounds 0, 1, ... give each input every format. ok is false when an
// input cannot be stored (negative keys, non-real values, empty rows).
func bindFormats(inputs map[string]sdql.Value, round int) (bound, bool) {
	b := bound{phys: map[string]sdql.Value{}, logical: map[string]sdql.Value{}, dense: map[string]bool{}, dims: map[string][]int{}}
	storage := map[string]fuse.Storage{}
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	var desc []string
	for i, n := range names {
		v := inputs[n]
		d, isDict := v.(*sdql.Dict)
		if !isDict {
			b.phys[n], b.logical[n] = v, v
			continue
		}
		order := sdql.Order(sdql.TypeOfValue(v))
		fs := formats.ForOrder(order)
		if len(fs) == 0 {
			return b, false
		}
		shape, idx, val, ok := coords(d, order)
		if !ok {
			return b, false
		}
		f := fs[(round+i)%len(fs)]
		tn, err := formats.FromCoords(shape, idx, val, f)
		if err != nil {
			return b, false
		}
		vars, err := formats.Bind(tn, n)
		if err != nil {
			return b, false
		}
		for k, x := range vars {
			b.phys[k] = x
		}
		b.logical[n] = formats.ToValue(tn)
		b.dims[n] = tn.Shape
		b.dense[n] = f == formats.Dense || f == formats.DenseCol
		storage[n] = fuse.Storage{Format: f, Order: order}
		desc = append(desc, n+":"+f.Name())
	}
	if len(desc) == 0 {
		return b, false
	}
	defs, _, err := fuse.Definitions(storage)
	if err != nil {
		return b, false
	}
	b.defs, b.desc = defs, strings.Join(desc, ",")
	return b, true
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

// checkDenseReverse checks the reverse gradient with respect to a wrt input
// bound dense, with the shapes of the inputs, which may leave out the
// restriction to its stored positions: interpreted it equals want (the
// gradient with the restriction) as a function, and unfused and optimized
// (with fuse's dense inputs and shapes) it gives the interpreter's
// dictionary.
func checkDenseReverse(t *testing.T, where string, it item, b bound, want sdql.Value) int {
	t.Helper()
	types := map[string]sdql.Type{}
	for k, v := range b.logical {
		types[k] = sdql.TypeOfValue(v)
	}
	st, err := ad.Reverse(it.prog, &ad.Request{Wrt: []string{it.wrt}, Dense: map[string]bool{it.wrt: true}, Dims: b.dims}, types)
	if err != nil {
		t.Errorf("%s: reverse mode: %v", where, err)
		return 0
	}
	got, err := sdql.Eval(st.Result, b.logical)
	if err != nil || !sdql.Equal(got, want) {
		t.Errorf("%s: interpreter: %v (%v), want %s\n%s", where, got, err, sdql.FormatValue(want), sdql.Print(st.Result))
		return 0
	}
	n := check(t, where+" composed", fuse.Compose(st.Result, b.defs), b.phys, got)
	opt, err := optimize(st.Result, b)
	if err != nil {
		t.Errorf("%s: fuse: %v", where, err)
		return n
	}
	return n + check(t, where+" optimized", opt, b.phys, got)
}

func optimize(prog sdql.Expr, b bound) (sdql.Expr, error) {
	types := map[string]sdql.Type{}
	for n, v := range b.logical {
		types[n] = sdql.TypeOfValue(v)
	}
	physTypes := map[string]sdql.Type{}
	for n, v := range b.phys {
		physTypes[n] = sdql.TypeOfValue(v)
	}
	res, err := fuse.Optimize(prog, &fuse.Config{Inputs: types, Stats: fuse.StatsOf(b.logical),
		Dense: b.dense, Dims: b.dims, Defs: b.defs, PhysInputs: physTypes, PhysStats: fuse.StatsOf(b.phys)})
	if err != nil {
		return nil, err
	}
	return res.Program, nil
}
