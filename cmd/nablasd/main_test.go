package main

import (
	"bytes"
	"os/exec"

	"github.com/nablasd/nablasd/datasets"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestEvalCLI(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "dot.sdql")
	os.WriteFile(prog, []byte("// dot product\nsum(<i, a> in V1) a * V2(i)\n"), 0o644)
	v1 := filepath.Join(dir, "v1.mtx")
	os.WriteFile(v1, []byte("%%MatrixMarket matrix coordinate real general\n4 1 2\n1 1 2.0\n3 1 0.5\n"), 0o644)
	v2 := filepath.Join(dir, "v2.mtx")
	os.WriteFile(v2, []byte("%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n"), 0o644)
	bad := filepath.Join(dir, "bad.sdql")
	os.WriteFile(bad, []byte("sum(<i, a> in V1)\n  a * \n"), 0o644)
	ill := filepath.Join(dir, "ill.sdql")
	os.WriteFile(ill, []byte("let x = 2.0 in\nsum(<k, v> in x) v\n"), 0o644)
	ill2 := filepath.Join(dir, "ill2.sdql")
	os.WriteFile(ill2, []byte("sum(<_, i> in (0:n)) i * n"), 0o644)
	garbage := filepath.Join(dir, "garbage.sdql")
	os.WriteFile(garbage, []byte("\x00\x01\xff\xfe"), 0o644)
	out := filepath.Join(dir, "out.mtx")

	for _, c := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{[]string{"eval", "-f", prog, "--in", "V1=" + v1, "--in", "V2=" + v2}, 0, "3.5\n", ""},
		{[]string{"eval", "-f", prog, "--in", "V1=" + v1 + ":dense", "--in", "V2=" + v2 + ":coo"}, 0, "3.5\n", ""},
		{[]string{"eval", "-e", "s * V1", "--in", "V1=" + v1, "--in", "s=2"}, 0, "{0 -> 4, 2 -> 1}\n", ""},
		{[]string{"eval", "-e", "sum(<_, i> in (0:n)) i", "--in", "n=4"}, 0, "6\n", ""},
		{[]string{"eval", "-e", "{1 -> 2.5} * {3 -> 2.0}"}, 0, "{1 -> {3 -> 5}}\n", ""},
		{[]string{"eval", "-e", "s * V1", "--in", "V1=" + v1, "--in", "s=2", "--out", out}, 0, "", ""},
		{[]string{"eval", "-f", bad, "--in", "V1=" + v1}, 1, "", bad + ":3:1: expected an expression"},
		{[]string{"eval", "-f", ill}, 1, "", ill + ":2:15: cannot iterate over real (want a dictionary)"},
		{[]string{"eval", "-f", garbage}, 1, "", garbage + ":1:1: unexpected byte 0x00"},
		{[]string{"eval", "-f", prog, "--in", "V1=" + v1}, 1, "", prog + ":2:23: undefined: V2 (bind it with --in V2=VALUE)"},
		{[]string{"eval", "-e", "V(1)", "--in", "V=" + filepath.Join(dir, "missing.mtx")}, 1, "", "missing.mtx"},
		{[]string{"eval", "-e", "x(1)", "--in", "x=2"}, 1, "", "input x: the program uses x as {int -> real}"},
		{[]string{"eval", "-e", "1", "--in", "=3"}, 2, "", "want NAME=VALUE"},
		{[]string{"eval", "-e", "1", "-f", prog}, 2, "", "not both"},
		{[]string{"eval"}, 2, "", "no program"},
		{[]string{"eval", "-e", "1", "--bogus"}, 2, "", "unknown flag --bogus"},
		{[]string{"frobnicate"}, 2, "", "unknown command"},
		{[]string{"eval", "-e", "2.0", "--out", out}, 1, "", "the result is a scalar"},
		{[]string{"eval", "-e", strings.Repeat("(", 100000)}, 1, "", "expression nested too deeply"},
		{[]string{"grad", "-f", prog, "--wrt", "V1", "--in", "V1=" + v1, "--in", "V2=" + v2}, 0, "{0 -> 1, 2 -> 3}\n", ""},
		{[]string{"grad", "-e", "s * V1", "--wrt", "s", "--in", "V1=" + v1, "--in", "s=2"}, 0, "{0 -> 2, 2 -> 0.5}\n", ""},
		{[]string{"grad", "-e", "sum(<i, a> in V1) a * a", "--wrt", "V1", "--in", "V1=" + v1, "--stats", "--repeat", "3"}, 0, "{0 -> 4, 2 -> 1}\n", "compile_ms="},
		{[]string{"grad", "-e", "sum(<i, a> in V1) a * a", "--wrt", "V1", "--in", "V1=" + v1, "--stats", "--threads", "2"}, 0, "{0 -> 4, 2 -> 1}\n", "threads=1 reason="},
		// enough work to share: BATAx's Gustavson ran on two goroutines
		// (the closures': --exec auto would run the JIT's kernel, on one,
		// when the cache holds it)
		{[]string{"grad", "-e", "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> beta * v1 * v2 * x(k) }", "--wrt", "x",
			"--in", "A=synthetic:rows=300,cols=300,nnz=9000,seed=1", "--in", "x=synthetic:n=300,density=1,seed=2:dense", "--in", "beta=0.5",
			"--stats", "--threads", "2", "--exec", "compiled"}, 0, "*", "executor=compiled threads=2 reason=\"--exec compiled\"\n"},
		{[]string{"grad", "-f", prog, "--in", "V1=" + v1, "--in", "V2=" + v2}, 2, "", "grad needs --wrt NAME"},
		{[]string{"grad", "-f", prog, "--wrt", "V3", "--in", "V1=" + v1, "--in", "V2=" + v2}, 1, "", "--wrt V3: V3 is not an input of the program (its inputs: V1, V2)"},
		{[]string{"grad", "-e", "sum(<_, i> in (0:n)) x * i", "--wrt", "n", "--in", "n=3", "--in", "x=2"}, 1, "", "1:18: cannot differentiate with respect to n: it has type int"},
		{[]string{"grad", "-e", "V1(1)", "--wrt", "V1", "--in", "V1=" + v1, "--repeat", "0"}, 2, "", "--repeat 0"},
		{[]string{"grad", "-f", ill2, "--wrt", "n", "--in", "n=3"}, 1, "", ill2 + ":1:1: cannot differentiate a program whose result has type int"},
		{[]string{"plan", "-e", "sum(<i, a> in V2) V1(i) * a", "--wrt", "V1"}, 0, "*", ""},
		{[]string{"plan", "-e", "sum(<i, a> in V2) V1(i) * a", "--wrt", "V9"}, 1, "", "V9 is not an input"},
		{[]string{"eval", "-e", "s * V1", "--in", "V1=" + v1, "--in", "s=2", "--out-format", "csr"}, 1, "", "--out-format csr: formats: csr has no variant of order 1"},
		{[]string{"eval", "-e", "s * V1", "--in", "V1=" + v1, "--in", "s=2", "--out-format", "coo"}, 0, "format: coo\nshape: [4]\npos1: [0 2]\nidx1: [0 2]\nval: [4 1]\n", ""},
		{[]string{"eval", "-e", "2.0", "--out-format", "coo"}, 1, "", "the result is the scalar 2"},
		{[]string{"eval", "-e", "1", "--exec", "fast"}, 2, "", "--exec \"fast\""},
		{[]string{"eval", "-e", "1", "--dict", "btree"}, 2, "", "--dict \"btree\""},
		{[]string{"eval", "-e", "1", "--threads", "0"}, 2, "", "--threads 0"},
		{[]string{"eval", "-e", "1", "--opt", "max"}, 2, "", "--opt \"max\""},
	} {
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || stdout != c.out && c.code == 0 && c.out != "*" || !strings.Contains(stderr, c.inErr) {
			t.Errorf("nablasd %.200q:\n exit %d, stdout %q, stderr %q\n want exit %d, stdout %q, stderr containing %q",
				c.args, code, stdout, stderr, c.code, c.out, c.inErr)
		}
		if c.code != 0 && !strings.HasPrefix(stderr, "nablasd: ") && c.code != 0 {
			t.Errorf("nablasd %.200q: stderr %q does not start with 'nablasd: '", c.args, stderr)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "4 1 2\n1 1 4\n3 1 1\n") {
		t.Errorf("--out wrote %q (%v)", b, err)
	}
}

func TestDemo(t *testing.T) {
	code, out, stderr := runCLI("demo")
	if code != 0 || !strings.Contains(out, "= {0 -> 41.5, 1 -> 9, 2 -> 54.5}") ||
		!strings.Contains(out, "= {0 -> {0 -> 8.5, 2 -> 11}, 1 -> {1 -> 4.5}, 2 -> {0 -> 11, 2 -> 14.5}}") {
		t.Errorf("demo: exit %d\n%s%s", code, out, stderr)
	}
}

func TestDataSources(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mtx")
	os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n"), 0o644)
	huge := filepath.Join(dir, "huge.mtx")
	os.WriteFile(huge, []byte("%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 4000000000000\n1 1 1.0\n"), 0o644)
	wide := filepath.Join(dir, "wide.mtx")
	os.WriteFile(wide, []byte("%%MatrixMarket matrix coordinate real general\n2000000 2000000 1\n1 1 1.0\n"), 0o644)
	for _, c := range []struct {
		args  []string
		code  int
		inErr string
	}{
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=" + bad}, 1, "--in A: bad.mtx:4: row index 4 out of range 1..3"},
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=" + huge}, 1, "huge.mtx:2: entry count 4000000000000 is too large"},
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=" + wide + ":dense"}, 1, "--in A: formats:"},
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=" + wide}, 0, ""},
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=synthetic:rows=10,cols=10,density=2"}, 1, "density"},
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=synthetic:rows=10,colz=10"}, 1, "colz"},
		{[]string{"eval", "-e", "A(0)(0)", "--in", "A=suitesparse:nosuchmatrix"}, 1, "nosuchmatrix"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.inErr) {
			t.Errorf("nablasd %q: exit %d, stderr %q; want exit %d, stderr containing %q", c.args, code, stderr, c.code, c.inErr)
		}
	}
	if len(datasets.SharedDirs()) == 0 {
		t.Skip("../shared/datasets/suitesparse is absent: skipping the SuiteSparse binding")
	}
	code, out, stderr := runCLI("eval", "-e", "sum(<i, r> in A) sum(<j, a> in r) a", "--in", "A=suitesparse:bcspwr10:csc")
	if code != 0 || out != "21842\n" {
		t.Errorf("bcspwr10 entry count: exit %d, %q, %s", code, out, stderr)
	}
}

func TestGenCLI(t *testing.T) {
	code, out, stderr := runCLI("gen", "-e", "sum(<i, r> in A) sum(<j, a> in r) a * x(j)", "--wrt", "x",
		"--in", "A=synthetic:rows=20,cols=20,density=0.2,seed=1", "--in", "x=synthetic:n=20,density=1,seed=2:dense")
	if code != 0 || !strings.Contains(out, "func Grad_x(A_idx []int, A_len int, A_pos []int, A_val []float64, x_len int, x_val []float64, dst *Grad_xResult) (err error) {") ||
		!strings.Contains(out, "for k := range A_idxSeg {") || !strings.Contains(out, "A_pos = t.Pos[1]") || strings.Contains(out, "map[") {
		t.Fatalf("gen: exit %d\n%s%s", code, out, stderr)
	}
	if formatted, err := format.Source([]byte(out)); err != nil || string(formatted) != out {
		t.Errorf("gen output is not gofmt-clean (%v)", err)
	}
	file := filepath.Join(t.TempDir(), "k.go")
	code, _, stderr = runCLI("gen", "-e", "sum(<i, a> in V) a * a", "--in", "V=synthetic:n=20,density=0.5,seed=2", "-o", file, "--func", "Sq")
	if b, err := os.ReadFile(file); code != 0 || err != nil || !strings.Contains(string(b), "func Sq(") {
		t.Errorf("gen -o: exit %d, %s, %v", code, stderr, err)
	}
	// a logical program over a dictionary input, taken as nested maps
	code, out, stderr = runCLI("gen", "-e", "sum(<i, a> in V) { i -> V * a }", "--opt", "none", "--in", "V=synthetic:n=20,density=0.5,seed=2", "--func", "Outer")
	if code != 0 || !strings.Contains(out, "func Outer(V map[int]float64, dst *OuterResult) (err error) {") {
		t.Errorf("gen --opt none: exit %d\n%s%s", code, out, stderr)
	}
	if formatted, err := format.Source([]byte(out)); err != nil || string(formatted) != out {
		t.Errorf("gen --opt none output is not gofmt-clean (%v)", err)
	}
	code, _, stderr = runCLI("gen", "-e", "sum(<i, a> in V) { i -> V * a }", "--opt", "none", "--in", "V=synthetic:n=20,density=0.5,seed=2", "-o", file)
	if code != 0 || !strings.Contains(stderr, "func Kernel(V, dst *KernelResult) error") {
		t.Errorf("gen -o of a general kernel: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI("gen", "-e", "sum(<i, a> in V) a * a", "--wrt", "W", "--in", "V=synthetic:n=20,density=0.5,seed=2")
	if code != 1 || !strings.Contains(stderr, "--wrt W: W is not an input") {
		t.Errorf("gen --wrt W: exit %d, %s", code, stderr)
	}
}

// TestExecJIT: --exec jit gives the compiled kernel's result (built into
// native code where plugins load; else the compiled kernel, with a
// warning naming why).
func TestExecJIT(t *testing.T) {
	x := filepath.Join(t.TempDir(), "x.mtx")
	if err := os.WriteFile(x, []byte("%%MatrixMarket matrix array real general\n4 1\n1.5\n0\n2\n-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"grad", "-e", "sum(<i, a> in x) a * a * c", "--wrt", "x", "--in", "x=" + x, "--in", "c=3"}
	var want, got, stderr bytes.Buffer
	if code := run(append(args, "--exec", "compiled"), &want, &stderr); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	stderr.Reset()
	if code := run(append(args, "--exec", "jit"), &got, &stderr); code != 0 {
		t.Fatalf("--exec jit: exit %d: %s", code, stderr.String())
	}
	if got.String() != want.String() {
		t.Errorf("--exec jit printed %q, the compiled kernel %q", got.String(), want.String())
	}
	_, cc := exec.LookPath("gcc")
	switch s := stderr.String(); {
	case cc == nil && s != "":
		t.Errorf("--exec jit with a C compiler at hand: stderr %q, want none (the JIT built the kernel)", s)
	case cc != nil && !strings.Contains(s, "JIT cannot build"):
		t.Errorf("--exec jit without a C compiler: stderr %q, want the fallback's warning", s)
	}
}
