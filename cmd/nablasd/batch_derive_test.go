package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/tabletest"
	"github.com/nablasd/nablasd/sdql"
)

// shuffleRows writes a table's text with its rows in a random order.
func shuffleRows(t *testing.T, r *rand.Rand, path, text string, batch int, meta map[string]string) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	rows := lines[1:]
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	if err := tabletest.Write(path, lines[0]+"\n"+strings.Join(rows, "\n")+"\n", batch, meta); err != nil {
		t.Fatal(err)
	}
}

// TestBatchUnsorted: a grouped job over tables not sorted by the key (as
// DuckDB writes a GROUP BY's input) gives the output of the same job over
// the tables sorted (the sorted run), to the bit, and says with --stats
// which inputs it sorted; no sort file is left behind.
func TestBatchUnsorted(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 9))
	const groups, n = 9, 6
	_, _, a, b := groupedTables(t, dir, r, groups, n) // A.parquet, b.arrows: sorted
	// the same rows in another order: a graph's rows too, so that its
	// coordinates stored twice are summed in another order (exactly:
	// groupedData's values are small multiples of 1/4)
	shuffleRows(t, r, filepath.Join(dir, "Au.parquet"), a, 4, map[string]string{"nablasd.shape": fmt.Sprintf("%d,%d", n, n)})
	shuffleRows(t, r, filepath.Join(dir, "bu.arrows"), b, 3, map[string]string{"nablasd.shape": fmt.Sprint(n)})
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	for _, c := range []struct {
		cmd   string
		flags []string
	}{
		{"grad", []string{"--wrt", "x"}},
		{"grad", []string{"--wrt", "A", "--threads", "2"}},
		{"eval", nil},
	} {
		run := func(suffix string) map[int64]sdql.Value {
			out := filepath.Join(t.TempDir(), "out.parquet")
			args := append([]string{c.cmd, "-e", lsq, "--in", "A=" + filepath.Join(dir, "A"+suffix+".parquet"),
				"--in", "b=" + filepath.Join(dir, "b"+suffix+".arrows"), "--in", "x=" + filepath.Join(dir, "x.arrow") + ":dense",
				"--group-by", "graph", "--out", out, "--stats", "--exec", "compiled"}, c.flags...) // one executor: the same sums to the bit
			code, _, stderr := runCLI(args...)
			if code != 0 {
				t.Fatalf("nablasd %q: exit %d\n%s", args, code, stderr)
			}
			if want := map[string]string{"": `sorted=""`, "u": `sorted="A,b"`}[suffix]; !strings.Contains(stderr, want) {
				t.Errorf("nablasd %q: stderr %q, want %s", args, stderr, want)
			}
			return readGroups(t, out, "graph")
		}
		sorted, unsorted := run(""), run("u")
		if len(sorted) != groups+1 || len(unsorted) != len(sorted) {
			t.Fatalf("%s %q: %d groups unsorted, %d sorted", c.cmd, c.flags, len(unsorted), len(sorted))
		}
		for g, want := range sorted {
			if !sdql.ApproxEqual(unsorted[g], want, 0) {
				t.Errorf("%s %q, graph %d: %s unsorted, %s sorted", c.cmd, c.flags, g, sdql.FormatValue(unsorted[g]), sdql.FormatValue(want))
			}
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the sort left %d files in $TMPDIR", len(left))
	}
}

// TestBatchDerivatives: --value, several --wrt and the products (--vjp,
// --jvp, --hvp) run per group, each result to a table of its own
// (out.value.parquet, out.grad_x.parquet, ...; one result: out.parquet),
// every group's results equal to the same command's over that group's
// rows alone, by the reference interpreter (--exec interp --opt none).
func TestBatchDerivatives(t *testing.T) {
	dir := t.TempDir()
	const groups, n = 5, 5
	perA, perB := groupedData(t, dir, rand.New(rand.NewPCG(11, 12)), groups, n)
	for g := 1; g <= groups+1; g++ {
		if err := tabletest.Write(filepath.Join(dir, fmt.Sprintf("A%d.arrow", g)), perA[g], 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := tabletest.Write(filepath.Join(dir, fmt.Sprintf("b%d.arrow", g)), perB[g], 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	var dx strings.Builder
	dx.WriteString("i:int64 val:float64\n")
	for i := range n {
		fmt.Fprintf(&dx, "%d %g\n", i, 0.25*float64(i+1))
	}
	dxPath := filepath.Join(dir, "dx.arrow")
	if err := tabletest.Write(dxPath, dx.String(), 0, nil); err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(dir, "x.arrow") + ":dense"
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	rows := "sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) * x(j) }"
	for _, c := range []struct {
		prog    string
		flags   []string
		outputs []string // the results' labels
	}{
		{lsq, []string{"--value", "--wrt", "x"}, []string{"value", "grad x"}},
		{lsq, []string{"--wrt", "x,b", "--threads", "2"}, []string{"grad x", "grad b"}},
		{lsq, []string{"--value", "--wrt", "x,A", "--mode", "forward"}, []string{"value", "grad x", "grad A"}},
		{lsq, []string{"--jvp", "x=" + dxPath, "--value"}, []string{"value", "jvp"}},
		{lsq, []string{"--hvp", "x=" + dxPath}, []string{"hvp x"}},
		{rows, []string{"--vjp", "c=" + filepath.Join(dir, "x.arrow"), "--wrt", "x"}, []string{"vjp x"}},
	} {
		name := strings.Join(c.flags, " ")
		out := filepath.Join(t.TempDir(), "out.parquet")
		args := append([]string{"grad", "-e", c.prog, "--in", "A=" + filepath.Join(dir, "A.parquet"),
			"--in", "b=" + filepath.Join(dir, "b.arrows"), "--in", "x=" + x, "--group-by", "graph", "--out", out}, c.flags...)
		if code, _, stderr := runCLI(args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		got := map[string]map[int64]sdql.Value{}
		for _, label := range c.outputs {
			path := out
			if len(c.outputs) > 1 {
				path = strings.TrimSuffix(out, ".parquet") + "." + strings.ReplaceAll(label, " ", "_") + ".parquet"
			}
			got[label] = readGroups(t, path, "graph")
		}
		for g := 1; g <= groups+1; g++ {
			args := append([]string{"grad", "-e", c.prog, "--exec", "interp", "--opt", "none",
				"--in", fmt.Sprintf("A=%s?shape=%dx%d", filepath.Join(dir, fmt.Sprintf("A%d.arrow", g)), n, n),
				"--in", fmt.Sprintf("b=%s?shape=%d", filepath.Join(dir, fmt.Sprintf("b%d.arrow", g)), n),
				"--in", "x=" + x}, c.flags...)
			args = slices.DeleteFunc(args, func(s string) bool { return s == "--threads" || s == "2" })
			code, stdout, stderr := runCLI(args...)
			if code != 0 {
				t.Fatalf("%s, graph %d alone: exit %d\n%s", name, g, code, stderr)
			}
			want := map[string]sdql.Value{}
			for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
				label, lit, ok := strings.Cut(line, ": ")
				if len(c.outputs) == 1 {
					label, lit, ok = c.outputs[0], line, true
				}
				if !ok {
					t.Fatalf("%s, graph %d alone: %q", name, g, stdout)
				}
				want[label] = literal(t, lit)
			}
			for _, label := range c.outputs {
				// equal as functions, and on the same keys: a gradient is
				// given on its input's stored positions, the group's
				if gv := got[label][int64(g)]; !sdql.Equal(gv, want[label]) || keysOf(gv) != keysOf(want[label]) {
					t.Errorf("%s, graph %d, %s: grouped %s\n want (one run) %s", name, g, label, sdql.FormatValue(gv), sdql.FormatValue(want[label]))
				}
			}
		}
	}
	// a product's value is one for every group: not a grouped table
	out := filepath.Join(t.TempDir(), "out.parquet")
	code, _, stderr := runCLI("grad", "-e", lsq, "--in", "A="+filepath.Join(dir, "A.parquet"), "--in", "b="+filepath.Join(dir, "b.arrows"),
		"--in", "x="+x, "--group-by", "graph", "--out", out, "--jvp", "x="+filepath.Join(dir, "b.arrows"))
	if code != 2 || !strings.Contains(stderr, "--jvp x: "+filepath.Join(dir, "b.arrows")+" has the key column graph, but a product's value is the same for every group") {
		t.Errorf("a grouped tangent: exit %d, %q", code, stderr)
	}
}

// literal evaluates a printed result.
func literal(t *testing.T, text string) sdql.Value {
	t.Helper()
	e, err := sdql.Parse("", text)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	v, err := (&sdql.Interp{}).Eval(e, nil)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return v
}

// keysOf prints a value's keys, every level, leaving out its values and
// its empty inner dictionaries (a table holds none).
func keysOf(v sdql.Value) string {
	d, ok := v.(*sdql.Dict)
	if !ok {
		return "."
	}
	var b strings.Builder
	b.WriteByte('{')
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		if inner := keysOf(x); inner != "{}" {
			fmt.Fprintf(&b, "%d:%s ", k, inner)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// TestBatchNonFinite: a grouped job warns of the groups whose results
// hold a NaN or an infinity, the first three with where the first
// appears (over the group's inputs), then their count; --check-finite
// stops the job at the first such group, naming it, and writes nothing.
func TestBatchNonFinite(t *testing.T) {
	dir := t.TempDir()
	z := filepath.Join(dir, "z.arrows")
	text := "graph:int64 i:int64 val:float64\n1 0 1\n2 0 800\n3 1 900\n4 0 2\n5 0 1000\n6 2 710\n7 0 3\n"
	if err := tabletest.Write(z, text, 0, map[string]string{"nablasd.shape": "3"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	args := []string{"eval", "-e", "sum(<i, v> in z) log(1 + exp(v))", "--in", "z=" + z, "--group-by", "graph", "--out", out}
	code, _, stderr := runCLI(args...)
	want := "nablasd: warning: graph=2: value is inf; it first appears in exp(v) at 1:26: exp(800) = inf\n" +
		"nablasd: warning: graph=3: value is inf; it first appears in exp(v) at 1:26: exp(900) = inf\n" +
		"nablasd: warning: graph=5: value is inf; it first appears in exp(v) at 1:26: exp(1000) = inf\n" +
		"nablasd: warning: 1 more group holds a NaN or an infinity (--check-finite makes the first an error)\n"
	if code != 0 || stderr != want {
		t.Errorf("nablasd %q: exit %d, stderr\n%s\nwant\n%s", args, code, stderr, want)
	}
	if got := readGroups(t, out, "graph"); len(got) != 7 {
		t.Errorf("%d groups written, want 7", len(got))
	}
	os.Remove(out)
	code, _, stderr = runCLI(append(args, "--check-finite")...)
	if code != 1 || stderr != "nablasd: graph=2: value is inf; it first appears in exp(v) at 1:26: exp(800) = inf (--check-finite)\n" {
		t.Errorf("--check-finite: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--check-finite wrote the output")
	}
}

// TestGroupByCoordinate: a matrix table nablasd wrote (i0, i1, val,
// sorted by i0) grouped by its column coordinate i1 and read as a vector
// over i0 (?i=i0: the metadata's shape gives i0's extent) runs a job a
// column, its table sorted by i1 first: each column's sum of squares,
// as the ungrouped program's gives them all.
func TestGroupByCoordinate(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m.parquet")
	if code, _, stderr := runCLI("eval", "-e", "A", "--in", "A=synthetic:rows=40,cols=30,density=0.2,seed=5", "--out", m); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "cols.parquet")
	code, _, stderr := runCLI("eval", "-e", "sum(<i, a> in x) a * a", "--in", "x="+m+"?i=i0", "--group-by", "i1", "--out", out, "--stats")
	if code != 0 || !strings.Contains(stderr, `sorted="x"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := readGroups(t, out, "i1")
	_, whole, _ := runCLI("eval", "-e", "sum(<i, r> in A) sum(<j, a> in r) { j -> a * a }", "--in", "A=synthetic:rows=40,cols=30,density=0.2,seed=5")
	want := literal(t, strings.TrimSpace(whole)).(*sdql.Dict)
	if len(got) != want.Len() {
		t.Errorf("%d columns grouped, %d in the whole", len(got), want.Len())
	}
	for _, j := range want.Keys() {
		w, _ := want.Get(j)
		if !sdql.Equal(got[int64(j)], w) {
			t.Errorf("column %d: %s grouped, %s whole", j, sdql.FormatValue(got[int64(j)]), sdql.FormatValue(w))
		}
	}
}
