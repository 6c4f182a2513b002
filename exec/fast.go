package exec

import "github.com/nablasd/nablasd/sdql"

// check is a run-time validation that a fast loop relies on.
type check struct {
	name string
	run  func(fr *frame) error
}

func (c *compiler) fastSumReal(e *sdql.SumExpr, env *scope) fexpr { return nil }

func (c *compiler) fastSumInto(e *sdql.SumExpr, env *scope, fresh bool) intoFn { return nil }

func (c *compiler) fastOuter(e *sdql.BinaryExpr, env *scope) intoFn { return nil }

func (k *Kernel) validate(fr *frame) error {
	for _, ch := range k.checks {
		if err := ch.run(fr); err != nil {
			return err
		}
	}
	return nil
}

func (k *Kernel) trust(fr *frame) {}
