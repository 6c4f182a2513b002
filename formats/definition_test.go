package formats

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// evalDefinition evaluates t's definition under name over Bind(t, name).
func evalDefinition(t *Tensor, name string) (sdql.Value, string, error) {
	def, err := Definition(t.Format, name, t.Order())
	if err != nil {
		return nil, "", err
	}
	e, err := sdql.Parse(name+".sdql", def)
	if err != nil {
		return nil, def, err
	}
	env, err := Bind(t, name)
	if err != nil {
		return nil, def, err
	}
	v, err := sdql.Eval(e, env)
	return v, def, err
}

// TestDefinitionMatchesContainer is the defining test of every format:
// its definition evaluated over its container gives the container's
// logical dictionary, stored positions included.
func TestDefinitionMatchesContainer(t *testing.T) {
	for order := 1; order <= 3; order++ {
		for _, f := range ForOrder(order) {
			for _, c := range cases(order) {
				t.Run(fmt.Sprintf("%s/order=%d/%s", f, order, c.name), func(t *testing.T) {
					x := mustBuild(t, c, f)
					got, def, err := evalDefinition(x, "A")
					if err != nil {
						t.Fatalf("%s\n%v", def, err)
					}
					if err := sameValue(got, ToValue(x)); err != nil {
						t.Fatalf("%s\n%v", def, err)
					}
				})
			}
		}
	}
}

// TestBindInputs checks that Bind binds exactly the inputs Inputs lists,
// sharing the container's slices.
func TestBindInputs(t *testing.T) {
	for order := 1; order <= 3; order++ {
		for _, f := range ForOrder(order) {
			c := cases(order)[2]
			x := mustBuild(t, c, f)
			names, err := Inputs(f, "B", order)
			if err != nil {
				t.Fatal(err)
			}
			env, err := Bind(x, "B")
			if err != nil {
				t.Fatal(err)
			}
			if len(env) != len(names) {
				t.Errorf("%s/%d: Bind gives %d inputs, Inputs lists %v", f, order, len(env), names)
			}
			for _, n := range names {
				if _, ok := env[n]; !ok {
					t.Errorf("%s/%d: input %s not bound", f, order, n)
				}
			}
			if val := env["B_val"].(sdql.RealArray); len(val) > 0 && &val[0] != &x.Val[0] {
				t.Errorf("%s/%d: B_val is a copy", f, order)
			}
		}
	}
}

func TestDefinitionErrors(t *testing.T) {
	for _, tc := range []struct {
		f     Format
		name  string
		order int
		want  string
	}{
		{CSR, "A", 3, "formats: csr has no variant of order 3"},
		{CSC, "A", 1, "formats: csc has no variant of order 1"},
		{Dense, "A", 0, "formats: dense has no variant of order 0"},
		{Format{}, "A", 2, "formats: invalid (zero) format"},
		{CSR, "1A", 2, `formats: tensor name "1A" is not an identifier`},
		{CSR, "_", 2, `formats: tensor name "_" is not an identifier`},
		{CSR, "A-B", 2, `formats: tensor name "A-B" is not an identifier`},
	} {
		_, err := Definition(tc.f, tc.name, tc.order)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Definition(%s, %q, %d) = %v, want %s", tc.f, tc.name, tc.order, err, tc.want)
		}
	}
}

// TestSameValueDetectsDifferences checks the comparison the defining test
// relies on: a lost explicit zero or a changed value is a difference.
func TestSameValueDetectsDifferences(t *testing.T) {
	c := entries("z", []int{2, 2}, []float64{0, 5}, []int{0, 1}, []int{1, 1})
	x := mustBuild(t, c, CSR)
	pruned, err := Prune(x)
	if err != nil {
		t.Fatal(err)
	}
	if sameValue(ToValue(x), ToValue(pruned)) == nil {
		t.Error("a dropped explicit zero went unnoticed")
	}
	y := mustBuild(t, c, CSR)
	y.Val[1] = 6
	got, _, err := evalDefinition(y, "A")
	if err != nil {
		t.Fatal(err)
	}
	if sameValue(got, ToValue(x)) == nil {
		t.Error("a changed value went unnoticed")
	}
}

// TestFields: every input of a format's definition is bound by Bind to the
// tensor field Fields names.
func TestFields(t *testing.T) {
	for _, f := range All() {
		for order := 1; order <= 3; order++ {
			if !f.Supports(order) {
				continue
			}
			shape := []int{3, 4, 2}[:order]
			idx := make([][]int, order)
			for m := range idx {
				idx[m] = []int{0, shape[m] - 1}
			}
			ten, err := FromCoords(shape, idx, []float64{1, 2}, f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Bind(ten, "A")
			if err != nil {
				t.Fatal(err)
			}
			fields, err := Fields(f, "A", order)
			if err != nil {
				t.Fatal(err)
			}
			if len(fields) != len(b) {
				t.Errorf("%s/%d: %d fields for %d bound inputs", f, order, len(fields), len(b))
			}
			for name, v := range b {
				var want sdql.Value
				var k int
				switch field := fields[name]; {
				case field == "t.Val":
					want = sdql.RealArray(ten.Val)
				case scan(field, "t.Pos[%d]", &k):
					want = sdql.IntArray(ten.Pos[k])
				case scan(field, "t.Idx[%d]", &k):
					want = sdql.IntArray(ten.Idx[k])
				case scan(field, "t.Shape[%d]", &k):
					want = sdql.Int(ten.Shape[k])
				case scan(field, "len(t.Idx[%d])", &k):
					want = sdql.Int(len(ten.Idx[k]))
				default:
					t.Fatalf("%s/%d: %s: unknown field %q", f, order, name, field)
				}
				if sdql.FormatValue(v) != sdql.FormatValue(want) {
					t.Errorf("%s/%d: %s = %s, bound to %s", f, order, name, fields[name], sdql.FormatValue(v))
				}
			}
		}
	}
}

func scan(s, format string, k *int) bool {
	n, err := fmt.Sscanf(s, format, k)
	return n == 1 && err == nil && fmt.Sprintf(format, *k) == s
}
