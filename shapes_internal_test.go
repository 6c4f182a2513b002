package nablasd

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestEqualModes checks the groups of modes the shape check makes equal,
// which lowering takes as facts (lower.Options.EqualModes): each lookup
// joins the looked-up mode with its key's, groups that share a mode merge
// whatever the lookups' order, and none without the check.
func TestEqualModes(t *testing.T) {
	inputs := Inputs{
		"A": [][]float64{{1, 0, 2, 0}, {0, 3, 0, 1}, {1, 1, 0, 0}},
		"x": []float64{1, 2, 3, 4}, "y": []float64{1, 2, 3, 4}, "z": []float64{1, 2, 3, 4},
		"w": []float64{1, 2, 3},
	}
	cases := []struct{ src, want string }{
		{"sum(<i, row> in A) sum(<j, a> in row) a * x(j) * w(i)", "A/0 w/0; A/1 x/0"},
		// z by x's keys, y by A's columns, then x by A's columns: the
		// third lookup merges the first two groups
		{"(sum(<k, v> in x) v * z(k)) + (sum(<i, row> in A) sum(<j, a> in row) a * y(j)) + sum(<i, row> in A) sum(<j, a> in row) a * x(j)", "A/1 x/0 y/0 z/0"},
		{"sum(<k, v> in x) v * x(k)", ""},
	}
	for _, c := range cases {
		for _, off := range []bool{false, true} {
			q, err := Prepare(c.src, inputs, &Options{NoShapeCheck: off})
			if err != nil {
				t.Fatalf("%s: %v", c.src, err)
			}
			var groups []string
			for _, g := range q.equalModes() {
				var ms []string
				for _, m := range g {
					ms = append(ms, fmt.Sprintf("%s/%d", m.Tensor, m.Mode))
				}
				slices.Sort(ms)
				groups = append(groups, strings.Join(ms, " "))
			}
			slices.Sort(groups)
			got, want := strings.Join(groups, "; "), c.want
			if off {
				want = ""
			}
			if got != want {
				t.Errorf("%s (shape check off %v): groups %q, want %q", c.src, off, got, want)
			}
		}
	}
}
