package batch

import (
	"errors"
	"strings"
	"testing"
)

// TestParseTableSpec: a binding's value names a table (with its format
// and options), names something else, or is a misuse of either.
func TestParseTableSpec(t *testing.T) {
	for _, c := range []struct {
		val, path, format, err string
		table                  bool
	}{
		{val: "A.parquet", path: "A.parquet", table: true},
		{val: "A.arrow:csc?row=src,col=dst", path: "A.arrow", format: "csc", table: true},
		{val: "x.arrows:dense", path: "x.arrows", format: "dense", table: true},
		{val: "A.mtx:csr"},
		{val: "synthetic:rows=3,cols=3,density=0.5"},
		{val: "A.parquet:nope", table: true, err: "nope"},
		{val: "A.parquet?shape=x", table: true, err: "shape"},
	} {
		ts, ok, err := ParseTableSpec("A", c.val)
		if ok != c.table {
			t.Errorf("%s: table %v, want %v", c.val, ok, c.table)
		}
		switch {
		case c.err != "":
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ue) {
				t.Errorf("%s: error %v, want a usage error about %s", c.val, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.val, err)
		case ts.Path != c.path || (c.format != "" && ts.Format.Name() != c.format):
			t.Errorf("%s: %+v", c.val, ts)
		}
	}
}

// TestParseInputsErrors: bad bindings are usage errors naming the flag.
func TestParseInputsErrors(t *testing.T) {
	for flag, want := range map[string]string{
		"A":          `--in "A": want NAME=VALUE`,
		"1x=2":       `"1x" is not a variable name`,
		"sum=2":      `"sum" is not a variable name`,
		"A=nope.mtx": "--in A: ",
	} {
		_, err := ParseInputs([]string{flag}, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--in %s: error %v, want %q", flag, err, want)
		}
	}
	if _, err := ParseInputs([]string{"a=1", "a=2"}, nil); err == nil || !strings.Contains(err.Error(), "bound twice") {
		t.Errorf("a bound twice: %v", err)
	}
	in, err := ParseInputs([]string{"beta=0.5", "A=synthetic:rows=4,cols=3,nnz=5,seed=1:csc"}, nil)
	if err != nil || in["beta"] != 0.5 || in["A"] == nil {
		t.Fatalf("%v %v", in, err)
	}
}
