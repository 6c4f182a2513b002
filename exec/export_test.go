package exec

import "github.com/nablasd/nablasd/sdql"

// GenerateGoValue is the general translation (GoValue) alone, for tests
// of package exec_test: GenerateGoKernel takes it only where no
// specialized layout applies.
func GenerateGoValue(prog sdql.Expr, bindings map[string]sdql.Value, funcName string, opts GoOptions) (*GoKernel, error) {
	types := map[string]sdql.Type{}
	for n, v := range bindings {
		types[n] = sdql.TypeOfValue(v)
	}
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		return nil, err
	}
	if opts.Package == "" {
		opts.Package = "kernels"
	}
	return generateGoValue(prog, info, funcName, opts)
}

// TensorOf and Composed are the internal tests' helpers (corpus_test.go)
// for the external ones: a logical value stored in a format, and a program
// composed with its tensor inputs' definitions over their arrays.
var (
	TensorOf = tensorOf
	Composed = composed
)
