package bench

import (
	"embed"
	"fmt"
)

// Examples are programs of issue 33 beside the workloads, each written
// with its lets (examples/NAME.sdql) and inline (variants/NAME.inline.sdql):
// written inline they once ran thousands of times slower, or never
// finished. They are over a sparse matrix A and a dense vector x (the
// inputs of WorkloadData), their gradient with respect to x. The first
// example of the issue, two tanh layers with the inner one inline, is the
// workload mlp2's inline variant.
var Examples = []string{"normalized", "tanh3"}

//go:embed examples/*.sdql
var exampleFiles embed.FS

// ExampleSource returns the text of an example's let-bound program.
func ExampleSource(name string) (string, error) {
	b, err := exampleFiles.ReadFile("examples/" + name + ".sdql")
	if err != nil {
		return "", fmt.Errorf("no example %s", name)
	}
	return string(b), nil
}

// ExampleWrt is the input the examples' gradients are taken with respect
// to.
const ExampleWrt = "x"
