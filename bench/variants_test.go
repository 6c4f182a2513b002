package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/sdql"
)

// TestVariantFiles checks the variants' headers and coverage: every
// variant names an original that exists and differs from it as a program
// (not only in comments); every workload and kernel has a commuted
// variant, every workload a let variant and, when it has a let, an inline
// one (let_inlined, where its lets are used once), every example an
// inline one, BATAx its loops swapped, and each hand-written physical
// program with index arithmetic its 1 + i.
func TestVariantFiles(t *testing.T) {
	all, err := Variants()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string][]string{} // kind/original -> spellings
	for _, v := range all {
		osrc, why, err := v.OriginalSource()
		if err != nil {
			t.Fatal(err)
		}
		if why != "" {
			t.Logf("%s: not compared with its original: %s", v.File, why)
		} else if sdql.Print(mustParse(t, "orig", osrc)) == sdql.Print(mustParse(t, v.File, v.Src)) {
			t.Errorf("%s: the same program as its original", v.File)
		}
		key := v.Kind + "/" + v.Original
		if slices.Contains(have[key], v.Spelling) {
			t.Errorf("%s: a second %s variant of %s", v.File, v.Spelling, v.Original)
		}
		have[key] = append(have[key], v.Spelling)
	}
	want := func(key string, spellings ...string) {
		for _, s := range spellings {
			ok := slices.Contains(have[key], s)
			switch s {
			case "let":
				ok = slices.Contains(have[key], "let_inlined") || slices.Contains(have[key], "let_bound")
			case "inline":
				ok = ok || slices.Contains(have[key], "let_inlined")
			}
			if !ok {
				t.Errorf("%s has no %s variant", key, s)
			}
		}
	}
	for _, w := range Workloads {
		want(OfWorkload+"/"+w.Name, "commuted", "let")
		if src, _, why, err := WorkloadSource(w.Name); err == nil && why == "" && strings.Contains(src, "let ") {
			want(OfWorkload+"/"+w.Name, "inline")
		}
	}
	for _, x := range Examples {
		want(OfExample+"/"+x, "inline")
	}
	for _, k := range Kernels {
		want(OfKernel+"/"+k.Name, "commuted")
	}
	want(OfKernel+"/batax", "loops_swapped")
	for _, w := range IndexWorkloads {
		want(OfIndex+"/"+w.Name, "one_plus_i")
	}
	files, err := kernelFiles.ReadDir("kernels")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, _ := kernelFiles.ReadFile("kernels/" + f.Name())
		name := strings.TrimSuffix(f.Name(), ".sdql")
		if strings.Contains(string(b), "+1)") && name != "batax_csr_none" {
			want(OfPhysical+"/"+name, "one_plus_i")
		}
	}
}

// TestParseVariant: a malformed header is an error naming the file and
// line.
func TestParseVariant(t *testing.T) {
	for _, c := range []struct{ file, src, want string }{
		{"smvm.sdql", "// original: kernel smvm\n// spelling: commuted\nV1", "smvm.sdql: a variant's file is named ORIGINAL.SPELLING.sdql"},
		{"smvm.commuted.sdql", "// spelling: commuted\nV1", `smvm.commuted.sdql:1: a variant begins with "// original: KIND NAME" and "// spelling: SPELLING"`},
		{"smvm.commuted.sdql", "// original: kernal smvm\n// spelling: commuted\nV1", `smvm.commuted.sdql:1: want "// original: KIND NAME" with KIND workload, kernel, physical, example or index`},
		{"smvm.commuted.sdql", "// original: kernel smmm\n// spelling: commuted\nV1", "smvm.commuted.sdql:1: the original smmm is not the file's (smvm)"},
		{"smvm.commuted.sdql", "// original: kernel smvm\n// spelling: swapped\nV1", `smvm.commuted.sdql:2: unknown spelling "swapped" (want one of commuted, one_plus_i, let_inlined, let_bound, loops_swapped, inline)`},
		{"smvm.commuted.sdql", "// original: kernel smvm\n// spelling: let_bound\nV1", "smvm.commuted.sdql:2: the spelling let_bound is not the file's (commuted)"},
		{"smvm.commuted.sdql", "// original: kernel smvm\n// spelling: commuted\nsum(<i in V1", "smvm.commuted.sdql:3:"},
	} {
		_, err := ParseVariant(c.file, c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want %s", c.file, c.src, err, c.want)
		}
	}
}

// TestVariantsAgree checks that every variant computes the same values as
// its original with the reference interpreter: a workload's value and
// gradient (ad, then the interpreter, on the logical program), a kernel's
// value and gradient likewise, and a physical program's value; and that
// nablasd's compiled kernel of each variant gives them too (for
// workloads, the hand-written closed form's).
func TestVariantsAgree(t *testing.T) {
	all, err := Variants()
	if err != nil {
		t.Fatal(err)
	}
	m := small(t)
	for _, v := range all {
		t.Run(strings.TrimSuffix(v.File, ".sdql"), func(t *testing.T) {
			osrc, why, err := v.OriginalSource()
			if err != nil {
				t.Fatal(err)
			}
			if why != "" {
				t.Skipf("skipping: %s", why)
			}
			switch v.Kind {
			case OfWorkload:
				w, ok := WorkloadByName(v.Original)
				if !ok {
					t.Fatalf("no workload %s", v.Original)
				}
				d := smallWorkloadData(t, w)
				inputs, err := d.Inputs(sdql.FreeVars(mustParse(t, "orig", osrc)))
				if err != nil {
					t.Fatal(err)
				}
				interpAgree(t, osrc, v, inputs, w.Wrt)
				for _, mode := range Modes {
					cs, _, err := NewWorkloadCase(w, mode, d, v)
					if err != nil {
						t.Fatal(err)
					}
					c, err := cs.Compile(1)
					if err != nil {
						t.Fatal(err)
					}
					cs.Hand()
					if !sdql.Equal(c.Result.Value(), cs.HandValue()) {
						t.Errorf("%s: the compiled kernel disagrees with the hand-written closed form", mode)
					}
				}
			case OfKernel:
				format := kernelFormat(v.Original)
				cs, err := NewVariantCase(v.Original, format, "small", m, v)
				if err != nil {
					t.Fatal(err)
				}
				interpAgree(t, osrc, v, cs.Inputs, Wrt[v.Original])
				k, err := cs.Compile(exec.Options{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := k.Run(cs.Bindings)
				if err != nil {
					t.Fatal(err)
				}
				cs.Hand()
				if !sdql.Equal(res.Value(), cs.HandValue()) {
					t.Errorf("the compiled gradient disagrees with the hand-written loop")
				}
			case OfIndex:
				w, d := smallIndexData(t, v.Original)
				for _, wrt := range append([]string{""}, w.Wrt...) {
					want := handValue(t, d, wrt)
					for _, o := range []nablasd.Options{{Exec: "interp", Opt: "none"}, {}, {Threads: 2}} {
						got := runIndexSource(t, v.Src, d, wrt, &o)
						if diff := sdql.DiffDicts(got, want, 1e-9); diff != "" {
							t.Errorf("w.r.t. %q, %+v: %s against the hand-written closed form", wrt, o, diff)
						}
					}
				}
			case OfExample:
				w, _ := WorkloadByName("mlp2") // its data: A square, x
				inputs, err := smallWorkloadData(t, w).Inputs([]string{"A", ExampleWrt})
				if err != nil {
					t.Fatal(err)
				}
				interpAgree(t, osrc, v, inputs, ExampleWrt)
				for _, src := range []string{osrc, v.Src} {
					q, err := nablasd.Prepare(src, inputs, nil)
					if err != nil {
						t.Fatal(err)
					}
					val, g, err := q.ValueAndGrad(ExampleWrt)
					if err != nil {
						t.Fatal(err)
					}
					iq, err := nablasd.Prepare(src, inputs, &nablasd.Options{Opt: "none", Exec: "interp"})
					if err != nil {
						t.Fatal(err)
					}
					ival, ig, err := iq.ValueAndGrad(ExampleWrt)
					if err != nil {
						t.Fatal(err)
					}
					if !sdql.Equal(val.Value(), ival.Value()) || !sdql.Equal(g[0].Value(), ig[0].Value()) {
						t.Errorf("the compiled kernel disagrees with the interpreter")
					}
				}
			case OfPhysical:
				kernel, format, _ := strings.Cut(v.Original, "_")
				orig, err := OriginalCase(kernel, format, "small", m)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := NewVariantCase(kernel, format, "small", m, v)
				if err != nil {
					t.Fatal(err)
				}
				want, err := sdql.Eval(orig.Prog, orig.Bindings)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sdql.Eval(cs.Prog, cs.Bindings)
				if err != nil {
					t.Fatal(err)
				}
				if sdql.IsZero(want) || !sdql.Equal(got, want) {
					t.Errorf("the interpreter gives %s, the original %s", short(got), short(want))
				}
				k, err := cs.Compile(exec.Options{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := k.Run(cs.Bindings)
				if err != nil {
					t.Fatal(err)
				}
				if !sdql.Equal(res.Value(), want) {
					t.Errorf("the compiled kernel disagrees with the interpreter")
				}
			}
		})
	}
}

// interpAgree compares a variant's value and gradient with respect to wrt
// with its original's, both by the reference interpreter on the logical
// program (nablasd with Opt "none" and Exec "interp": ad, then sdql's
// interpreter).
func interpAgree(t *testing.T, osrc string, v *Variant, inputs nablasd.Inputs, wrt string) {
	t.Helper()
	run := func(file, src string) (sdql.Value, sdql.Value) {
		q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: file, Opt: "none", Exec: "interp"})
		if err != nil {
			t.Fatal(err)
		}
		val, g, err := q.ValueAndGrad(wrt)
		if err != nil {
			t.Fatal(err)
		}
		return val.Value(), g[0].Value()
	}
	ov, og := run("original", osrc)
	vv, vg := run(v.File, v.Src)
	if sdql.IsZero(ov) || sdql.IsZero(og) {
		t.Fatalf("a weak test input: the original's value or gradient is zero")
	}
	if !sdql.Equal(vv, ov) {
		t.Errorf("value %s, the original's %s", short(vv), short(ov))
	}
	if !sdql.Equal(vg, og) {
		t.Errorf("gradient %s, the original's %s", short(vg), short(og))
	}
}

func kernelFormat(kernel string) string {
	for _, k := range Kernels {
		if k.Name == kernel {
			return k.Format
		}
	}
	return ""
}

func short(v sdql.Value) string {
	s := sdql.FormatValue(v)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
