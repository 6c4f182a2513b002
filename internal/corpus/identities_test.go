package corpus

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/internal/adtest"
	"github.com/nablasd/nablasd/sdql"
)

// TestCorpusIdentities: every corpus program with a wrt input satisfies
// the derivative identities (package internal/adtest: ⟨ȳ, J·v⟩ =
// ⟨ȳ·J, v⟩, J·v = ⟨grad, v⟩ for a real result, H·v against finite
// differences of the gradient in both modes) with a tangent that has
// entries where the input stores nothing, over the logical inputs and
// over every storage format of the inputs (the tangent's too: it is an
// input of the products); the products give the interpreter's dictionary
// through the compiled kernel over the logical inputs and, without
// -short, composed and optimized over the formats.
func TestCorpusIdentities(t *testing.T) {
	ok, err := identitiesOf(t, wrtItems(t))
	if err != nil {
		t.Fatal(err)
	}
	if ok.Inner < 20 || ok.Grad == 0 || ok.HVP == 0 {
		t.Errorf("too little checked: %+v", ok)
	}
	t.Logf("%d ⟨ȳ, J·v⟩ = ⟨ȳ·J, v⟩, %d J·v = ⟨grad, v⟩, %d H·v against finite differences (%d at kinks left out); %d cases not finite", ok.Inner, ok.Grad, ok.HVP, ok.Kinks, ok.Singular)
}

// TestCorpusIdentitiesCatchUnrestrictedTangents: with tangents read at
// every position again (ad.UnrestrictedTangents, the definition before
// issue 39), the corpus's identities fail.
func TestCorpusIdentitiesCatchUnrestrictedTangents(t *testing.T) {
	ad.UnrestrictedTangents = true
	defer func() { ad.UnrestrictedTangents = false }()
	_, err := identitiesOf(nil, wrtItems(t))
	if err == nil {
		t.Fatal("the corpus's identities did not notice tangents read where their input stores nothing")
	}
	t.Logf("caught: %v", err)
}

// wrtItems are the corpus programs with an input to differentiate with
// respect to.
func wrtItems(t *testing.T) []item {
	var out []item
	for _, it := range collect(t, "../../ad/testdata/*.txt", "fd", "grad", "gradient", "forward") {
		if it.wrt != "" {
			out = append(out, it)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d corpus programs with a wrt input", len(out))
	}
	return out
}

// identitiesOf checks the identities of items and returns what it
// compared. With t it reports every failure there (and runs the products
// through the executors); without, it returns the first failure.
func identitiesOf(t *testing.T, items []item) (adtest.Checked, error) {
	var all adtest.Checked
	r := rand.New(rand.NewPCG(39, 1))
	for _, it := range items {
		types := map[string]sdql.Type{}
		for k, v := range it.inputs {
			types[k] = sdql.TypeOfValue(v)
		}
		order := sdql.Order(types[it.wrt])
		if order < 0 {
			continue
		}
		extent := maxKey(it.inputs) + 2
		check := func(where string, vals map[string]sdql.Value, logical bool) error {
			c := &adtest.Case{Prog: it.prog, Wrt: it.wrt, Values: vals, Tangent: adtest.RandomTangent(r, order, extent), R: r}
			p, ok, err := c.Programs()
			if !ok || err != nil {
				return err
			}
			if _, err := sdql.Eval(it.prog, vals); err != nil {
				return nil // not a program over these inputs
			}
			v, err := c.Eval(p)
			if err != nil {
				return err
			}
			n, err := c.Identities(p, v)
			all.Inner += n.Inner
			all.Grad += n.Grad
			all.HVP += n.HVP
			all.Kinks += n.Kinks
			all.Singular += n.Singular
			if err != nil || t == nil || !logical {
				return err
			}
			productsAcrossExecutors(t, where, it, vals, p, c.Tangent, v.Cotangent)
			return nil
		}
		fail := func(where string, err error) error {
			err = fmt.Errorf("%s, derivatives with respect to %s: %v\n%s", where, it.wrt, err, sdql.Print(it.prog))
			if t != nil {
				t.Error(err)
				return nil
			}
			return err
		}
		if err := check(it.where, it.inputs, true); err != nil {
			if err := fail(it.where, err); err != nil {
				return all, err
			}
		}
		for round := 0; round < rounds(it.inputs); round++ {
			b, ok := bindFormats(it.inputs, round)
			if !ok {
				break
			}
			where := it.where + " over " + b.desc
			if err := check(where, b.logical, false); err != nil {
				if err := fail(where, err); err != nil {
					return all, err
				}
			}
		}
	}
	return all, nil
}

// productsAcrossExecutors runs the products through the compiled kernel
// over the logical inputs and, without -short, over every storage format
// of the inputs and of the products' values, composed and optimized;
// each must give the interpreter's dictionary.
func productsAcrossExecutors(t *testing.T, where string, it item, vals map[string]sdql.Value, p *adtest.Programs, tangent, cotangent sdql.Value) {
	t.Helper()
	inputs := map[string]sdql.Value{p.Tangent: tangent, p.Cotangent: cotangent}
	for k, v := range vals {
		inputs[k] = v
	}
	for _, prod := range []struct {
		name string
		e    sdql.Expr
	}{{"J·v", p.JVP}, {"ȳ·J", p.VJP}, {"H·v (forward over reverse)", p.HVPReverse}, {"H·v (forward over forward)", p.HVPForward}} {
		if prod.e == nil {
			continue
		}
		w := fmt.Sprintf("%s (%s with respect to %s)", where, prod.name, it.wrt)
		want, err := sdql.Eval(prod.e, inputs)
		if err != nil {
			t.Errorf("%s: interpreter: %v", w, err)
			continue
		}
		check(t, w, prod.e, inputs, want)
		if testing.Short() {
			continue
		}
		// every input in a format, the products' values too
		for round := 0; round < rounds(inputs); round++ {
			b, ok := bindFormats(inputs, round)
			if !ok {
				break
			}
			want, err := sdql.Eval(prod.e, b.logical)
			if err != nil {
				t.Errorf("%s over %s: interpreter: %v", w, b.desc, err)
				continue
			}
			check(t, w+" composed over "+b.desc, fuse.Compose(prod.e, b.defs), b.phys, want)
			opt, err := optimize(prod.e, b)
			if err != nil {
				t.Errorf("%s over %s: fuse: %v", w, b.desc, err)
				continue
			}
			check(t, w+" optimized over "+b.desc, opt, b.phys, want)
		}
	}
}

// maxKey is the largest key of the inputs at any level (0 for none).
func maxKey(inputs map[string]sdql.Value) int {
	top := 0
	var walk func(v sdql.Value)
	walk = func(v sdql.Value) {
		if d, ok := v.(*sdql.Dict); ok {
			d.Range(func(k int, x sdql.Value) bool {
				top = max(top, k)
				walk(x)
				return true
			})
		}
	}
	for _, v := range inputs {
		walk(v)
	}
	return top
}
