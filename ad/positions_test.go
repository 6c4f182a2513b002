package ad

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

func TestOnStoredPositions(t *testing.T) {
	val := func(s string) sdql.Value {
		t.Helper()
		v, err := sdql.Eval(sdql.MustParse(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ g, x, want string }{
		{"{0 -> 1.0, 2 -> 3.0}", "{0 -> 0.5, 1 -> -1.0, 2 -> 2.0}", "{0 -> 1.0, 1 -> 0.0, 2 -> 3.0}"},
		{"{}", "{4 -> 1.0}", "{4 -> 0.0}"},
		{"{1 -> {0 -> 2.0}}", "{0 -> {}, 1 -> {0 -> 1.0, 2 -> 1.0}}", "{0 -> {}, 1 -> {0 -> 2.0, 2 -> 0.0}}"},
		{"2.5", "1.0", "2.5"}, // a scalar input: the derivative itself
	} {
		got := OnStoredPositions(val(c.g), val(c.x))
		if d := sdql.DiffDicts(got, val(c.want), 0); d != "" {
			t.Errorf("OnStoredPositions(%s, %s) = %s, want %s: %s", c.g, c.x, sdql.FormatValue(got), c.want, d)
		}
	}
}
