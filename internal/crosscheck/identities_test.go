package crosscheck

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/adtest"
	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

// identityPrograms is how many programs TestDerivativeIdentities checks:
// 400, 24 with -short, 8 under the race detector, or
// $NABLASD_IDENTITIES_N.
func identityPrograms() int { return sampleSize("NABLASD_IDENTITIES_N", 400, 24, 8) }

// tangentExtent is the last key of the tangents at every level: past the
// generated programs' keys (up to 5) and every input's extent, so that a
// tangent has entries where its input stores nothing.
const tangentExtent = 6

// identityReport is what checkIdentities found.
type identityReport struct {
	failures []string
	checked  adtest.Checked
	cases    int // storage rounds whose program was differentiable
	runs     int // variant runs of the products compared
}

// checkIdentities checks the derivative identities (package adtest) of
// program i of seed, with respect to its wrt input, over every storage
// round of its inputs, with a tangent that has entries where the input
// stores nothing, stored in each round in another format of its order.
// With variants the products (J·v, ȳ·J and for a real result H·v in both
// modes) also run through every optimization level and executor, as the
// cross-check runs a program, and must give the interpreter's
// dictionaries.
func checkIdentities(seed uint64, i int, variants bool) identityReport {
	var rep identityReport
	g, err := generate(seed, i)
	if err != nil {
		rep.failures = append(rep.failures, err.Error())
		return rep
	}
	r := rand.New(rand.NewPCG(seed^0x39, uint64(i)))
	for round := 0; round < rounds(); round++ {
		ts, err := g.in.store(round)
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("program %d: %v", i, err))
			return rep
		}
		b, err := bind(ts, g.in.scalars())
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("program %d: binding: %v", i, err))
			return rep
		}
		order := max(sdql.Order(b.cfg.Inputs[g.wrt]), 0)
		c := &adtest.Case{Prog: g.prog, Wrt: g.wrt, Values: b.logical, Types: b.cfg.Inputs,
			Tangent: adtest.RandomTangent(r, order, tangentExtent), R: r}
		where := func() string {
			return fmt.Sprintf("program %d (seed %d), derivatives with respect to %s, over %s:\n%s\nM: %s",
				i, seed, g.wrt, b.desc, sdqlgen.Indent(g.src), g.in.desc)
		}
		p, ok, err := c.Programs()
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("%s\n  %v", where(), err))
			continue
		}
		if !ok {
			return rep // not differentiable with respect to wrt: in no round
		}
		if _, err := (&job{prog: g.prog, b: b}).oracle(); err != nil {
			continue // not a program over these inputs
		}
		v, err := c.Eval(p)
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("%s\n  %v", where(), err))
			continue
		}
		n, err := c.Identities(p, v)
		rep.cases++
		rep.checked.Inner += n.Inner
		rep.checked.Grad += n.Grad
		rep.checked.HVP += n.HVP
		rep.checked.Kinks += n.Kinks
		rep.checked.Singular += n.Singular
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("%s\n  %v", where(), err))
			continue
		}
		if variants {
			bad, runs, err := productVariants(ts, g, p, c.Tangent, v.Cotangent, round)
			rep.runs += runs
			if err != nil {
				bad = append(bad, err.Error())
			}
			if len(bad) > 0 {
				rep.failures = append(rep.failures, fmt.Sprintf("%s\n  %s", where(), strings.Join(bad, "\n  ")))
			}
		}
	}
	return rep
}

// productVariants runs the products p through every optimization level
// and executor, over the inputs ts with the tangent stored in a format of
// its order (another in each round) and the cotangent bound as a logical
// value, and compares them with the interpreter on the logical products.
func productVariants(ts map[string]*formats.Tensor, g *generated, p *adtest.Programs, tangent, cotangent sdql.Value, round int) ([]string, int, error) {
	all := map[string]*formats.Tensor{}
	for n, t := range ts {
		all[n] = t
	}
	scalars := g.in.scalars()
	scalars[p.Cotangent] = cotangent
	if d, ok := tangent.(*sdql.Dict); ok {
		t, err := storeValue(d, round)
		if err != nil {
			return nil, 0, fmt.Errorf("storing the tangent: %v", err)
		}
		all[p.Tangent] = t
	} else {
		scalars[p.Tangent] = tangent
	}
	b, err := bind(all, scalars)
	if err != nil {
		return nil, 0, fmt.Errorf("binding the products: %v", err)
	}
	b.desc += fmt.Sprintf(" %s=%s", p.Tangent, describeValue(all[p.Tangent]))
	var bad []string
	runs := 0
	for _, prod := range []struct {
		name string
		e    sdql.Expr
	}{{"J·v", p.JVP}, {"ȳ·J", p.VJP}, {"H·v (forward over reverse)", p.HVPReverse}, {"H·v (forward over forward)", p.HVPForward}} {
		if prod.e == nil {
			continue
		}
		e := prod.e
		j := &job{prog: g.prog, b: b, derive: func(map[string]sdql.Type) (sdql.Expr, error) { return e, nil }}
		want, err := j.oracle()
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: the interpreter: %v", prod.name, err))
			continue
		}
		outs, _ := j.run("")
		runs += len(outs)
		for _, d := range disagreements(want, outs) {
			bad = append(bad, prod.name+" over "+b.desc+": "+d)
		}
	}
	return bad, runs, nil
}

// storeValue stores a tensor dictionary in the format of its order at
// index round.
func storeValue(d *sdql.Dict, round int) (*formats.Tensor, error) {
	order := sdql.Order(sdql.TypeOfValue(d))
	shape := make([]int, order)
	idx := make([][]int, order)
	var val []float64
	var walk func(v sdql.Value, prefix []int)
	walk = func(v sdql.Value, prefix []int) {
		if len(prefix) == order {
			x, _ := v.(sdql.Real)
			for m, k := range prefix {
				idx[m] = append(idx[m], k)
				shape[m] = max(shape[m], k+1)
			}
			val = append(val, float64(x))
			return
		}
		dd, _ := v.(*sdql.Dict)
		for _, k := range dd.Keys() {
			x, _ := dd.Get(k)
			walk(x, append(append([]int(nil), prefix...), k))
		}
	}
	walk(d, nil)
	fs := formats.ForOrder(order)
	return formats.FromCoords(shape, idx, val, fs[round%len(fs)])
}

func describeValue(t *formats.Tensor) string {
	if t == nil {
		return "a number"
	}
	return t.String()
}

// identities checks programs 0..n-1 of seed on all cores, stopping once
// maxFailures are found.
func identities(seed uint64, n int, variants func(i int) bool, maxFailures int) identityReport {
	reps := make([]identityReport, n)
	var next, failed int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := failed >= maxFailures
				mu.Unlock()
				if i >= n || stop {
					return
				}
				reps[i] = checkIdentities(seed, i, variants(i))
				if len(reps[i].failures) > 0 {
					mu.Lock()
					failed += len(reps[i].failures)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	var all identityReport
	for _, r := range reps {
		all.failures = append(all.failures, r.failures...)
		all.cases += r.cases
		all.runs += r.runs
		all.checked.Inner += r.checked.Inner
		all.checked.Grad += r.checked.Grad
		all.checked.HVP += r.checked.HVP
		all.checked.Kinks += r.checked.Kinks
		all.checked.Singular += r.checked.Singular
	}
	return all
}

// TestDerivativeIdentities: on the cross-check's random programs, over
// every storage format of their inputs, with tangents that have entries
// where their input stores nothing, ⟨ȳ, J·v⟩ = ⟨ȳ·J, v⟩, J·v = ⟨grad, v⟩
// for a real result (the gradient of either mode), and H·v (forward over
// reverse and forward over forward) is the finite difference of the
// gradient along v; every fourth program's products (every program's
// without -short) also run through every optimization level and
// executor, with the tangent stored in every format, and agree with the
// interpreter.
func TestDerivativeIdentities(t *testing.T) {
	start := time.Now()
	n := identityPrograms()
	rep := identities(7, n, func(i int) bool { return !testing.Short() || i%4 == 0 }, 20)
	for _, f := range rep.failures {
		t.Error(f)
	}
	c := rep.checked
	if c.Inner < n || c.Grad == 0 || c.HVP == 0 {
		t.Errorf("too little checked: %+v over %d programs", c, n)
	}
	t.Logf("%d programs, %d differentiable over a storage round: %d ⟨ȳ, J·v⟩ = ⟨ȳ·J, v⟩, %d J·v = ⟨grad, v⟩, %d H·v against finite differences (%d at kinks left out); %d variant runs of the products agree (%v)",
		n, rep.cases, c.Inner, c.Grad, c.HVP, c.Kinks, rep.runs, time.Since(start).Round(time.Millisecond))
}

// TestIdentitiesCatchUnrestrictedTangents: with tangents read at every
// position again (ad.UnrestrictedTangents, the definition before issue
// 39), the identities fail, so they would have caught that fault.
func TestIdentitiesCatchUnrestrictedTangents(t *testing.T) {
	ad.UnrestrictedTangents = true
	defer func() { ad.UnrestrictedTangents = false }()
	rep := identities(7, identityPrograms(), func(int) bool { return false }, 1)
	if len(rep.failures) == 0 {
		t.Fatalf("the identities of %d programs did not notice tangents read where their input stores nothing", identityPrograms())
	}
	t.Logf("caught:\n%s", rep.failures[0])
}
