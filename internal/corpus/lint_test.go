package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// TestLintPaperPrograms: the precedence lint (sdql.Lint) is silent on
// every program of the paper (the paper corpora of sdql, ad and fuse), on
// the benchmark kernels and on the workloads beside the repository
// (../shared/workloads, when present).
func TestLintPaperPrograms(t *testing.T) {
	progs := map[string]string{}
	for _, path := range []string{"../../sdql/testdata/paper.txt", "../../ad/testdata/paper.txt", "../../fuse/testdata/paper.txt"} {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			_, src, err := sdqltest.Split(d.Input)
			if err == nil {
				src, _, _ = strings.Cut(src, "\n===\n") // ad's expected-program separator
				progs[d.Pos] = src
			}
			return d.Expected
		})
	}
	for name, src := range bench.Logical {
		progs["bench "+name] = src
	}
	workloads, _ := filepath.Glob("../../../shared/workloads/*.sdql")
	for _, w := range workloads {
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		progs[w] = string(b)
	}
	if len(progs) < 50 {
		t.Fatalf("only %d programs found", len(progs))
	}
	for where, src := range progs {
		ws, err := sdql.Lint(where, src)
		if err != nil {
			continue // an error case of the corpus
		}
		for _, w := range ws {
			t.Errorf("lint warning on a paper program: %v\n%s", w, src)
		}
	}
	t.Logf("%d programs, %d workloads: no warnings", len(progs), len(workloads))
}
