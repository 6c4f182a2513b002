package sdql_test

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// TestDataDriven runs the testdata files: the paper's programs, the
// semantics vectors, the checker's and parser's errors.
func TestDataDriven(t *testing.T) {
	sdqltest.New().Run(t, "testdata/*.txt")
}

// TestInterpMemoryLimit: a dictionary a sum builds past Interp.MemoryLimit
// is a run-time error at the sum, not an exhausted machine.
func TestInterpMemoryLimit(t *testing.T) {
	prog := sdql.MustParse("let n = 100000 in\nsum(<_, i> in (0:n)) { i -> 1.0 }")
	in := &sdql.Interp{File: "p.sdql", MemoryLimit: 64 << 10}
	_, err := in.Eval(prog, nil)
	want := "p.sdql:2:1: the dictionary this sum builds has 1024 keys and grows: the run needs more than "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "over the memory limit of 64.0 KiB") {
		t.Errorf("got %v\nwant %s", err, want)
	}
	in.MemoryLimit = 1 << 30
	if v, err := in.Eval(prog, nil); err != nil || v.(*sdql.Dict).Len() != 100000 {
		t.Errorf("under the limit: %v", err)
	}
	for b, want := range map[float64]string{512: "512 B", 1536: "1.5 KiB", 19.2 * (1 << 30): "19.2 GiB", 8e12: "7.3 TiB"} {
		if got := sdql.FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%g) = %q, want %q", b, got, want)
		}
	}
}
