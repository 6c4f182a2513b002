package ad

import (
	"fmt"

	"github.com/nablasd/nablasd/sdql"
)

// Outputs describes the results of a program that computes several
// (a value and gradients) in one run. SDQL has no tuples, so such a
// program returns a bundle: a dictionary {0 -> r0, 1 -> r1, ...} whose
// entries are the results in order, each wrapped in singletons
// {0 -> ... {0 -> r} ...} up to the highest order among them, so that the
// entries have one type. A program with one result returns it as it is.
type Outputs struct {
	// Names names the results: "value" for the program's value, the wrt
	// input's name for a gradient.
	Names []string
	// Types gives each result's type.
	Types []sdql.Type
}

// Bundled reports whether the program returns a bundle (several results).
func (o *Outputs) Bundled() bool { return len(o.Names) > 1 }

// bundle builds the bundle of results, whose types are given.
func bundle(results []sdql.Expr, types []sdql.Type) sdql.Expr {
	if len(results) == 1 {
		return results[0]
	}
	most := 0
	for _, t := range types {
		most = max(most, sdql.Order(t))
	}
	out := &sdql.DictExpr{}
	for i, r := range results {
		for range most - sdql.Order(types[i]) {
			r = &sdql.DictExpr{Entries: []sdql.Entry{{Key: intLit(0), Val: r}}}
		}
		out.Entries = append(out.Entries, sdql.Entry{Key: intLit(i), Val: r})
	}
	return out
}

// Split returns the results of a run: the value itself for one result,
// the bundle's entries unwrapped otherwise (a missing entry is a zero).
func (o *Outputs) Split(v sdql.Value) ([]sdql.Value, error) {
	if !o.Bundled() {
		return []sdql.Value{v}, nil
	}
	most := 0
	for _, t := range o.Types {
		most = max(most, sdql.Order(t))
	}
	if _, ok := v.(*sdql.Dict); !ok {
		return nil, fmt.Errorf("a bundle of %d results is a dictionary, not %s", len(o.Names), sdql.FormatValue(v))
	}
	out := make([]sdql.Value, len(o.Names))
	for i, t := range o.Types {
		r, ok := sdql.Lookup(v, i)
		for range most - sdql.Order(t) {
			if !ok {
				break
			}
			r, ok = sdql.Lookup(r, 0)
		}
		if !ok {
			r = sdql.Zero(t)
		}
		out[i] = r
	}
	return out, nil
}

// Bundle returns the program that computes results (closed expressions
// over the same inputs, described by o) in one run: the results
// themselves for one, else their bundle.
func Bundle(results []sdql.Expr, o *Outputs) sdql.Expr { return bundle(results, o.Types) }
