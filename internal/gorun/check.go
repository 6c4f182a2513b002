package gorun

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// Check runs the cases (Run) and reports through t every case whose
// kernel failed or whose result is not wants[i] (sdql.Equal), with the
// program it came from (program(i), "" for none) and the kernel's source;
// it stops the test when the program cannot be built at all.
func Check(t testing.TB, cases []Case, wants []sdql.Value, program func(i int) string) {
	t.Helper()
	results, err := Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		src := ""
		if program != nil {
			src = program(i)
		}
		switch {
		case res.Err != nil:
			t.Errorf("%s: %v\n%s\n%s", cases[i].Name, res.Err, src, cases[i].Kernel.Source)
		case !sdql.Equal(res.Value, wants[i]):
			t.Errorf("%s: generated Go %s, interpreted %s\n%s\n%s", cases[i].Name, sdql.FormatValue(res.Value),
				sdql.FormatValue(wants[i]), src, cases[i].Kernel.Source)
		}
	}
}
