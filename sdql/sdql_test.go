package sdql_test

import (
	"testing"

	"github.com/nablasd/nablasd/internal/sdqltest"
)

// TestDataDriven runs the testdata files: the paper's programs, the
// semantics vectors, the checker's and parser's errors.
func TestDataDriven(t *testing.T) {
	sdqltest.New().Run(t, "testdata/*.txt")
}
