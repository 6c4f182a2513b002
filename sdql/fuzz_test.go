package sdql_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

var fuzzSeeds = []string{
	"sum(<i, a> in V1) a * V2(i)",
	"sum(<i, row> in M1) { i -> sum(<j, v1> in row) sum(<k, v2> in M2(j)) { k -> v1 * v2 } }",
	"let V1' = {}\nlet V2' = sum(<i, _> in V2) {i -> {i -> 1}}\nsum(<i, a> in V1)\n let <i', a'> = <{}, V1'(i)> in a * V2'(i) + a' * V2(i)",
	"beta * sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_VCol(A_VRow(i):A_VRow((i + 1)))) { j -> A_VVal(p) } in r * r",
	"if not (x < 2 && y >= 3 || z != 1) then -exp(x) / 2.5e-3 else zero[tensor 2]",
	"onehot[{int -> real}] V // comment",
	"sum(<_, i> in (0:len)) { unique(row(i)) -> val(i) }",
	"((((1))))", "{1 -> 2, 3 -> 4}", "1 < 2 < 3", "let <a, b> = <1, 2 > 3> in a",
}

// FuzzParse: the parser never panics, and what it accepts prints to a form
// that parses back and prints the same.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := sdql.Parse("fuzz.sdql", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.sdql:") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for _, pr := range []func(sdql.Expr) string{sdql.Print, sdql.PrintFlat} {
			s := pr(e)
			e2, err := sdql.Parse("printed.sdql", s)
			if err != nil {
				t.Fatalf("printed form does not parse: %v\n%s", err, s)
			}
			if s2 := pr(e2); s2 != s {
				t.Fatalf("print not stable:\n%s\n%s", s, s2)
			}
		}
	})
}

// FuzzCheck: the checker never panics on anything the parser accepts, with
// or without input types.
func FuzzCheck(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	inputs := map[string]sdql.Type{"V": sdql.Tensor(1), "M": sdql.Tensor(2), "x": sdql.RealType}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := sdql.Parse("fuzz.sdql", src)
		if err != nil {
			return
		}
		sdql.Check(e, nil)
		sdql.Check(e, &sdql.CheckConfig{File: "fuzz.sdql", Inputs: inputs, Strict: true})
	})
}

// TestHostileInput: deep nesting and binary garbage give positioned errors.
func TestHostileInput(t *testing.T) {
	for name, src := range map[string]string{
		"100,000 nested parentheses": strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000),
		"100,000 nested lookups":     "V" + strings.Repeat("(V", 100000) + strings.Repeat(")", 100000),
		"100,000 nested minus":       strings.Repeat("-", 100000) + "1",
		"binary garbage":             "\x00\xff\xfe sum(<",
		"unterminated":               "sum(<i, a> in",
		"100,000-term chain":         strings.Repeat("1 + ", 100000) + "1",
	} {
		start := time.Now()
		_, err := sdql.Parse("prog.sdql", src)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "prog.sdql:1:") {
			t.Errorf("%s: error without position: %v", name, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s: took %v", name, el)
		}
	}
}
