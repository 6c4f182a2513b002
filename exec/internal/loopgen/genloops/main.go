// Command genloops writes exec/loops_gen.go from package loopgen; run it
// with `go generate ./exec`.
package main

import (
	"fmt"
	"os"

	"github.com/nablasd/nablasd/exec/internal/loopgen"
)

func main() {
	src, err := loopgen.Source()
	if err == nil {
		err = os.WriteFile("loops_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genloops:", err)
		os.Exit(1)
	}
}
