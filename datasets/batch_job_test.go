package datasets

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/nablasd/nablasd/internal/tabletest"
)

// TestJobProgress checks the progress line a job draws: groups done, the
// share of the entries read (the Parquet file gives their number), the
// rate, and a final line ending with the time taken.
func TestJobProgress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "A.parquet")
	if err := tabletest.Write(path, "g:int64 i:int64 val:float64\n1 0 1\n1 1 2\n2 0 3\n3 2 4\n", 2, nil); err != nil {
		t.Fatal(err)
	}
	g, err := OpenGroups("g", []GroupInput{{Name: "v", Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var buf bytes.Buffer
	job := &Job{Groups: g, Out: filepath.Join(dir, "out.arrow"), Progress: &buf,
		Step: func(grp *Group) (*TableTensor, error) { return &TableTensor{Scalar: 1}, nil }}
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	final := regexp.MustCompile(`\r3 groups, 100% of 4 entries, [0-9.]+[kMG]? entries/s, [0-9.]+(µs|ms|s)\n$`)
	if !final.Match(buf.Bytes()) {
		t.Errorf("progress %q", buf.String())
	}
}
