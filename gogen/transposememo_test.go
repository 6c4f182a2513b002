package gogen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/gotool"
)

// TestIntsHelper runs the generated helper that keeps a transposition's
// copy of the structure it sorted (PFXInts, with PFXTransposeMemo) in a
// program of its own: a copy compares equal exactly to the array it
// copied, held in int32 or, where an entry does not fit, in int; an array
// differing by 2³² in one entry (equal in int32) or in length is not
// equal. exec's intsCopy is the same (TestIntsCopy).
func TestIntsHelper(t *testing.T) {
	gocmd, err := gotool.Command()
	if err != nil {
		t.Skip(err)
	}
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"slices\"\n)\n\n" +
		strings.ReplaceAll(helperSources["transposeMemo"]+helperSources["transpose"], "PFX", "t") + `
func main() {
	bad := 0
	for _, tc := range []struct {
		kept, other []int
		want        bool
	}{
		{[]int{0, 2, 5}, []int{0, 2, 5}, true},
		{[]int{0, 2, 5}, []int{0, 2, 6}, false},
		{[]int{0, 2, 5}, []int{0, 2}, false},
		{[]int{0, 2, 5}, []int{0, 2, 5 + 1<<32}, false},
		{[]int{0, 2, -5}, []int{0, 2, -5}, true},
		{[]int{1, 1 << 40}, []int{1, 1 << 40}, true},
		{[]int{1, 1 << 40}, []int{1, 0}, false},
		{[]int{1, 1<<40 + 1}, []int{1, 1}, false},
		{nil, []int{}, true},
	} {
		var c tInts
		c.keep([]int{7, 1 << 33})
		c.keep(tc.kept)
		if got := c.equal(tc.other); got != tc.want {
			fmt.Printf("a copy of %v equal to %v: %v, want %v\n", tc.kept, tc.other, got, tc.want)
			bad++
		}
	}
	os.Exit(bad)
}
`
	dir := t.TempDir()
	f := filepath.Join(dir, "main.go")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gocmd, "run", f)
	cmd.Dir = dir
	cmd.Env = gotool.Env(map[string]string{"GO111MODULE": "off"})
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
