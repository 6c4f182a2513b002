package ad

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{ModeAuto, ModeForward, ModeReverse} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if m, err := ParseMode(""); err != nil || m != ModeAuto {
		t.Errorf(`ParseMode("") = %v, %v; want auto`, m, err)
	}
	if _, err := ParseMode("backward"); err == nil {
		t.Error(`ParseMode("backward"): no error`)
	}
}

// TestBundleSplit checks that a bundle's results come back out with their
// types, a missing entry (a zero result) as the zero of its type.
func TestBundleSplit(t *testing.T) {
	o := &Outputs{Names: []string{"value", "x", "s"}, Types: []sdql.Type{sdql.RealType, sdql.Tensor(2), sdql.RealType}}
	prog := Bundle([]sdql.Expr{sdql.MustParse("2.5"), sdql.MustParse("{1 -> {2 -> 3.0}}"), sdql.MustParse("zero[real]")}, o)
	v, err := sdql.Eval(prog, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, sdql.Print(prog))
	}
	outs, err := o.Split(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2.5", "{1 -> {2 -> 3}}", "0"}
	for i, w := range want {
		if got := sdql.FormatValue(outs[i]); got != w {
			t.Errorf("result %s = %s, want %s (bundle %s)", o.Names[i], got, w, sdql.FormatValue(v))
		}
	}
	if _, err := o.Split(sdql.Real(1)); err == nil {
		t.Error("Split of a scalar as a bundle: no error")
	}
	one := &Outputs{Names: []string{"x"}, Types: []sdql.Type{sdql.Tensor(1)}}
	if p := Bundle([]sdql.Expr{sdql.MustParse("{1 -> 1.0}")}, one); sdql.PrintFlat(p) != "{ 1 -> 1.0 }" {
		t.Errorf("a bundle of one result is %s, want the result itself", sdql.PrintFlat(p))
	}
}
