package exec

import "github.com/nablasd/nablasd/sdql"

type parallel struct{}

func (c *compiler) parallelReal(e sdql.Expr) *parallel { return nil }
func (c *compiler) parallelInto(e sdql.Expr) *parallel { return nil }

func (p *parallel) run(k *Kernel, fr *frame, r *Result) error { return nil }
