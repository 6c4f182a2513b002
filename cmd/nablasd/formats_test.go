package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// The paper's kernels (section 7.1) as logical programs.
var kernels = map[string]string{
	"batax": "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }",
	"smmm":  "sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b",
	"smvm":  "sum(<i, r> in A) sum(<j, a> in r) a * x(j)",
	"vva":   "V1 + V2",
	"vvd":   "sum(<i, a> in V1) a * V2(i)",
	"vsm":   "sum(<i, v> in V1) { i -> v * s * s }",
}

// wrts gives the input each kernel is differentiated with respect to in the
// paper (section 7.1).
var wrts = map[string]string{"batax": "x", "smmm": "B", "smvm": "x", "vva": "V1", "vvd": "V1", "vsm": "s"}

// TestKernelsAcrossFormats: nablasd eval and nablasd grad give the same
// result whatever storage format each input is bound in.
func TestKernelsAcrossFormats(t *testing.T) {
	for _, cmd := range []string{"eval", "grad"} {
		t.Run(cmd, func(t *testing.T) { testKernelsAcrossFormats(t, cmd) })
	}
}

// The executor and optimizer variants every combination also runs with;
// all must agree with the first.
var variants = [][]string{
	{},
	{"--exec", "interp"},
	{"--opt", "none", "--exec", "interp"},
	{"--opt", "rules", "--dict", "map", "--dps=false"},
	{"--threads", "2", "--dict", "swiss", "--no-validate"},
}

func testKernelsAcrossFormats(t *testing.T, cmd string) {
	dir := t.TempDir()
	write := func(name, spec string) string {
		c, err := datasets.ParseSynthetic(spec)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := datasets.SaveMatrixMarket(p, c, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	A := write("A.mtx", "rows=30,cols=30,density=0.1,seed=1")
	B := write("B.mtx", "rows=30,cols=30,density=0.1,seed=2")
	x := write("x.mtx", "n=30,density=0.6,seed=3")
	v1 := write("v1.mtx", "n=30,density=0.3,seed=4")
	v2 := write("v2.mtx", "n=30,density=0.3,seed=5")
	matFormats := []string{"coo", "csr", "csc", "dense", "dense_col", "dcsr", "csf"}
	vecFormats := []string{"coo", "dense", "csf"}
	for name, prog := range kernels {
		var want sdql.Value
		var wantText string
		combos := 0
		for _, fa := range matFormats {
			for _, fb := range vecFormats {
				args := []string{cmd, "-e", prog, "--in", "beta=0.5", "--in", "s=1.5"}
				if cmd == "grad" {
					args = append(args, "--wrt", wrts[name])
				}
				uses := sdql.FreeVars(sdql.MustParse(prog))
				if cmd == "grad" && skipDenseWrt(wrts[name], fa, fb) {
					// A gradient is given on the wrt input's stored positions, and
					// a dense format stores every position: it is a different
					// tensor, so its gradient has more keys.
					continue
				}
				for _, v := range uses {
					switch v {
					case "A":
						args = append(args, "--in", "A="+A+":"+fa)
					case "B":
						args = append(args, "--in", "B="+B+":"+fa)
					case "x":
						args = append(args, "--in", "x="+x+":"+fb)
					case "V1":
						args = append(args, "--in", "V1="+v1+":"+fb)
					case "V2":
						args = append(args, "--in", "V2="+v2+":"+vecFormats[(combos+1)%len(vecFormats)])
					}
				}
				for vi, variant := range variants {
					if vi > 0 && (combos+vi)%3 != 0 {
						continue // each variant on a third of the combinations
					}
					code, out, stderr := runCLI(append(append([]string(nil), args...), variant...)...)
					if code != 0 {
						t.Fatalf("%s with %s/%s %v: exit %d: %s", name, fa, fb, variant, code, stderr)
					}
					got, err := parseLiteral(out)
					if err != nil {
						t.Fatalf("%s: output %q: %v", name, out, err)
					}
					if want == nil {
						want, wantText = got, out
					} else if !sdql.Equal(got, want) {
						t.Errorf("%s: formats %s/%s %v give %s, want %s", name, fa, fb, variant, out, wantText)
					}
				}
				combos++
			}
		}
		if combos == 0 {
			t.Errorf("%s: no combination ran", name)
		}
	}
}

func parseLiteral(s string) (sdql.Value, error) {
	e, err := sdql.Parse("out", s)
	if err != nil {
		return nil, fmt.Errorf("the printed result does not parse: %v", err)
	}
	return sdql.Eval(e, nil)
}

func skipDenseWrt(wrt, matFormat, vecFormat string) bool {
	dense := map[string]bool{"dense": true, "dense_col": true}
	switch wrt {
	case "B":
		return dense[matFormat]
	case "x", "V1":
		return dense[vecFormat]
	}
	return false
}
