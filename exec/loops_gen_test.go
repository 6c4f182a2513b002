package exec

import (
	"os"
	"testing"

	"github.com/nablasd/nablasd/exec/internal/loopgen"
)

// TestLoopsGenUpToDate fails when loops_gen.go differs from what its
// generator writes (run go generate ./exec).
func TestLoopsGenUpToDate(t *testing.T) {
	want, err := loopgen.Source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("loops_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("loops_gen.go is stale or edited by hand: run go generate ./exec")
	}
}
