package sdql

import "testing"

func TestIdentical(t *testing.T) {
	parse := func(s string) Value {
		t.Helper()
		e, err := Parse("", s)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Eval(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		a, b string
		want string // "" when identical
	}{
		{"{1 -> 2.0}", "{1 -> 2.0}", ""},
		{"{1 -> 2.0}", "{1 -> 2}", ""},
		{"{1 -> 0.0}", "{}", "at [1]: key only in the first (0)"},
		{"{}", "{1 -> 0.0}", "at [1]: key only in the second (0)"},
		{"{1 -> {}}", "{}", "at [1]: key only in the first ({})"},
		{"{1 -> {2 -> 1.0}}", "{1 -> {2 -> 1.5}}", "at [1][2]: 1 against 1.5"},
		{"{1 -> {2 -> 1.0}}", "{1 -> {2 -> 1.0, 3 -> 0.0}}", "at [1][3]: key only in the second (0)"},
		{"2.0", "2.0", ""},
		{"2.0", "{}", "at the top: 2 against {}"},
	} {
		got := DiffDicts(parse(c.a), parse(c.b), 1e-9)
		if got != c.want {
			t.Errorf("DiffDicts(%s, %s) = %q, want %q", c.a, c.b, got, c.want)
		}
		if Identical(parse(c.a), parse(c.b)) != (c.want == "") {
			t.Errorf("Identical(%s, %s) disagrees with DiffDicts", c.a, c.b)
		}
	}
	// equal as functions is weaker
	if !Equal(parse("{1 -> 0.0}"), parse("{}")) {
		t.Error("Equal should ignore zero entries")
	}
}
