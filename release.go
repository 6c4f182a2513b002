package nablasd

import (
	"fmt"
	"slices"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Release drops the kernel's values of the named tensor inputs, the
// tensors it was prepared and compiled over, keeping what it was compiled
// for (their formats and orders): every later Run must give them, and
// fails naming one it is not given. A grouped job compiles its kernel over
// its first group's tensors and then runs it over each group's own:
// released, the first group's memory is free once its run is done
// instead of held to the end of the job. The kernel's query, and the
// kernels compiled from it, hold them no longer either (they plan and
// run as if the tensors were empty, of extents 0, unless given them).
// Release must not be called while the kernel or its query runs or
// compiles.
func (k *Kernel) Release(names ...string) error {
	qs := []*Query{k.q}
	if k.q.parent != nil { // a product's query: its inputs are its parent's
		qs = append(qs, k.q.parent)
	}
	for _, n := range names {
		in, ok := k.q.inputs[n]
		if !ok {
			return fmt.Errorf("input %s: not an input of the program (its inputs: %s)", n, k.q.inputList())
		}
		if in.tensor == nil {
			return fmt.Errorf("input %s: not a tensor (only tensors are released)", n)
		}
		if in.released {
			continue
		}
		empty, err := formats.FromSortedCoords(make([]int, in.tensor.Order()), make([][]int, in.tensor.Order()), nil, in.tensor.Format)
		if err != nil {
			return fmt.Errorf("internal error: input %s: %v", n, err)
		}
		stand := &input{name: n, tensor: empty, released: true}
		// the bindings the plans run over without the input: its arrays
		// (its logical value with Options.Opt "none")
		repl := map[string]sdql.Value{n: formats.ToValue(empty)}
		if k.q.opts.Opt != "none" {
			if repl, err = formats.BindTrusted(empty, n); err != nil {
				return fmt.Errorf("internal error: input %s: %v", n, err)
			}
		}
		plans := []*Plan{k.plan}
		for _, q := range qs {
			q.mu.Lock()
			if q.inputs[n] != nil {
				q.inputs[n] = stand
			}
			for _, p := range q.plans {
				plans = append(plans, p)
			}
			for _, qk := range q.kernels {
				qk.wrtValue = nil
			}
			q.mu.Unlock()
		}
		for _, p := range plans {
			for name, v := range repl {
				if _, ok := p.Bindings[name]; ok {
					p.Bindings[name] = v
				}
			}
		}
	}
	k.wrtValue = nil
	return nil
}

// released returns the released inputs (Kernel.Release) a run is not
// given, sorted.
func (k *Kernel) released(inputs Inputs) []string {
	var missing []string
	for n, in := range k.q.inputs {
		if _, given := inputs[n]; in.released && !given {
			missing = append(missing, n)
		}
	}
	slices.Sort(missing)
	return missing
}
