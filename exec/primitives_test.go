package exec

import (
	"testing"

	"github.com/nablasd/nablasd/lower"
)

// TestPrimitiveLoops: every primitive rule of lower.Rules has a loop
// here, and nothing here names a rule lower does not have.
func TestPrimitiveLoops(t *testing.T) {
	names := map[string]bool{}
	for _, r := range lower.Rules {
		names[r.Name] = true
		if primitiveLoops[r.Name] == nil {
			t.Errorf("rule %s has no primitive loop in exec", r.Name)
		}
	}
	for n := range primitiveLoops {
		if !names[n] {
			t.Errorf("exec runs a primitive %s that lower.Rules lacks", n)
		}
	}
}
