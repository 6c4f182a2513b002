// Package adtest checks the identities that tie a program's derivative
// products together, for the property tests of internal/crosscheck and
// internal/corpus (issue 39): for a program f, an input x, a tangent v of
// x and a cotangent ȳ of the result,
//
//   - ⟨ȳ, J·v⟩ = ⟨ȳ·J, v⟩ (the JVP of forward mode against the VJP of
//     reverse mode);
//   - J·v = ⟨grad, v⟩ for a real result, with the gradient of either mode;
//   - H·v is the central finite difference of the gradient along v, for
//     the HVP of both forward over reverse and forward over forward.
//
// Gradients and VJPs are given on x's stored positions (doc/spec.md,
// "Derivatives"), and so is a tangent taken: the tangents these checks
// are given have entries at positions x does not store too, which every
// product must ignore. The products are computed by the reference
// interpreter on the logical derivative programs of package ad; Programs
// returns them for callers that also run them through the executors.
package adtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/sdql"
)

// Case is a program, the input to differentiate it with respect to, the
// values of its inputs, and a tangent of that input.
type Case struct {
	Prog sdql.Expr
	Wrt  string
	// Values binds every input of Prog; Types gives their types (nil:
	// from the values, which cannot tell an empty matrix's order).
	Values map[string]sdql.Value
	Types  map[string]sdql.Type
	// Tangent is a value of Wrt's type; entries where Wrt stores nothing
	// are what these checks are about.
	Tangent sdql.Value
	// R draws the cotangent, on the keys of the result and of J·v and one
	// more at each level.
	R *rand.Rand
}

// Programs are the derivative programs of a Case, over its inputs and
// the product values named Tangent (of Wrt's type) and Cotangent (of the
// result's type).
type Programs struct {
	Tangent, Cotangent string
	// JVP is J·v (ad.JVP); VJP is ȳ·J in reverse mode (ad.Reverse with a
	// cotangent).
	JVP, VJP sdql.Expr
	// For a real result: the gradient in forward mode (ad.Grad, to be
	// completed to Wrt's stored positions) and in reverse mode, and the
	// HVP in the direction of the tangent, forward over reverse (ad.HVP)
	// and forward over forward (ad.JVP of ad.Grad), as the root package
	// computes them in its modes.
	GradForward, GradReverse, HVPReverse, HVPForward sdql.Expr
	// Result is the program's type.
	Result sdql.Type
}

// Checked counts the identities a Check compared.
type Checked struct {
	Inner, Grad, HVP int
	// Kinks counts the HVPs left unchecked at a kink of the gradient
	// (finite differences with steps h and h/2 disagree).
	Kinks int
	// Singular counts the cases left unchecked where the program or a
	// derivative is not finite (log, sqrt or pow at a stored zero): the
	// derivative is not defined there.
	Singular int
}

// types returns the case's input types, from the values where not given.
func (c *Case) types() map[string]sdql.Type {
	out := map[string]sdql.Type{}
	for n, v := range c.Values {
		out[n] = sdql.TypeOfValue(v)
	}
	for n, t := range c.Types {
		out[n] = t
	}
	return out
}

// Programs derives the case's products. ok is false when the program is
// not differentiable with respect to Wrt (it does not use it, or Wrt is
// not a real tensor): the case has nothing to check.
func (c *Case) Programs() (p *Programs, ok bool, err error) {
	types := c.types()
	info, err := sdql.Check(c.Prog, &sdql.CheckConfig{Inputs: types})
	if err != nil {
		return nil, false, nil
	}
	if _, used := info.Free[c.Wrt]; !used || sdql.Order(types[c.Wrt]) < 0 {
		return nil, false, nil
	}
	p = &Programs{Tangent: freshName(c.Prog, "tangent"), Cotangent: freshName(c.Prog, "cotangent"), Result: info.Result}
	if p.JVP, err = ad.JVP(c.Prog, map[string]string{c.Wrt: p.Tangent}, types); err != nil {
		return nil, false, nil // not differentiable with respect to Wrt
	}
	st, err := ad.Reverse(c.Prog, &ad.Request{Wrt: []string{c.Wrt}, Cotangent: p.Cotangent}, types)
	if err != nil {
		return nil, true, fmt.Errorf("the VJP: %v", err)
	}
	p.VJP = st.Result
	if info.Result != sdql.RealType {
		return p, true, nil
	}
	if p.GradForward, err = ad.Grad(c.Prog, c.Wrt, types); err != nil {
		return nil, true, fmt.Errorf("the forward gradient: %v", err)
	}
	rst, err := ad.Reverse(c.Prog, &ad.Request{Wrt: []string{c.Wrt}}, types)
	if err != nil {
		return nil, true, fmt.Errorf("the reverse gradient: %v", err)
	}
	p.GradReverse = rst.Result
	if p.HVPReverse, err = ad.HVP(c.Prog, c.Wrt, p.Tangent, types); err != nil {
		return nil, true, fmt.Errorf("the HVP (forward over reverse): %v", err)
	}
	if p.HVPForward, err = ad.JVP(p.GradForward, map[string]string{c.Wrt: p.Tangent}, types); err != nil {
		return nil, true, fmt.Errorf("the HVP (forward over forward): %v", err)
	}
	return p, true, nil
}

// Values are the products of a case as the interpreter computes them.
type Values struct {
	Y, Cotangent, JVP, VJP                           sdql.Value
	GradForward, GradReverse, HVPReverse, HVPForward sdql.Value
}

// Eval computes the programs' values over the case's inputs; the
// cotangent is drawn with c.R on the keys of the result and of J·v.
func (c *Case) Eval(p *Programs) (*Values, error) {
	v := &Values{}
	var err error
	if v.Y, err = c.evalWith(c.Prog, nil); err != nil {
		return nil, fmt.Errorf("the program: %v", err)
	}
	if v.JVP, err = c.evalWith(p.JVP, map[string]sdql.Value{p.Tangent: c.Tangent}); err != nil {
		return nil, fmt.Errorf("the JVP: %v\n%s", err, sdql.Print(p.JVP))
	}
	info, err := sdql.Check(c.Prog, &sdql.CheckConfig{Inputs: c.types()})
	if err != nil {
		return nil, fmt.Errorf("the program: %v", err)
	}
	// of the program's type, which an empty result's value does not show
	// (its rows may be dictionaries)
	v.Cotangent = randomOn(c.R, info.Result, v.Y, v.JVP)
	if v.VJP, err = c.evalWith(p.VJP, map[string]sdql.Value{p.Cotangent: v.Cotangent}); err != nil {
		return nil, fmt.Errorf("the VJP: %v\n%s", err, sdql.Print(p.VJP))
	}
	if p.GradForward == nil {
		return v, nil
	}
	if v.GradForward, err = c.evalWith(p.GradForward, nil); err != nil {
		return nil, fmt.Errorf("the forward gradient: %v\n%s", err, sdql.Print(p.GradForward))
	}
	v.GradForward = ad.OnStoredPositions(v.GradForward, c.Values[c.Wrt])
	if v.GradReverse, err = c.evalWith(p.GradReverse, nil); err != nil {
		return nil, fmt.Errorf("the reverse gradient: %v\n%s", err, sdql.Print(p.GradReverse))
	}
	dir := map[string]sdql.Value{p.Tangent: c.Tangent}
	if v.HVPReverse, err = c.evalWith(p.HVPReverse, dir); err != nil {
		return nil, fmt.Errorf("the HVP (forward over reverse): %v\n%s", err, sdql.Print(p.HVPReverse))
	}
	if v.HVPForward, err = c.evalWith(p.HVPForward, dir); err != nil {
		return nil, fmt.Errorf("the HVP (forward over forward): %v\n%s", err, sdql.Print(p.HVPForward))
	}
	return v, nil
}

// Check derives the case's products, evaluates them and checks the
// identities, returning what it compared and the first identity that
// fails. A case whose program does not use Wrt checks nothing.
func (c *Case) Check() (Checked, error) {
	var n Checked
	p, ok, err := c.Programs()
	if !ok || err != nil {
		return n, err
	}
	v, err := c.Eval(p)
	if err != nil {
		return n, err
	}
	return c.Identities(p, v)
}

// Identities checks the identities on computed products.
func (c *Case) Identities(p *Programs, v *Values) (Checked, error) {
	var n Checked
	for _, x := range []sdql.Value{v.Y, v.JVP, v.VJP, v.GradForward, v.GradReverse, v.HVPReverse, v.HVPForward} {
		if !finite(x) {
			n.Singular++
			return n, nil
		}
	}
	lhs, ls := Inner(v.Cotangent, v.JVP)
	rhs, rs := Inner(v.VJP, c.Tangent)
	if !close(lhs, rhs, ls+rs) {
		return n, fmt.Errorf("⟨ȳ, J·v⟩ = %v but ⟨ȳ·J, v⟩ = %v\n  v = %s\n  ȳ = %s\n  J·v = %s\n  ȳ·J = %s",
			lhs, rhs, sdql.FormatValue(c.Tangent), sdql.FormatValue(v.Cotangent), sdql.FormatValue(v.JVP), sdql.FormatValue(v.VJP))
	}
	n.Inner++
	if p.GradForward == nil {
		return n, nil
	}
	jv, _ := scalar(v.JVP)
	for _, g := range []struct {
		mode string
		v    sdql.Value
	}{{"forward", v.GradForward}, {"reverse", v.GradReverse}} {
		gv, s := Inner(g.v, c.Tangent)
		if !close(jv, gv, s+math.Abs(jv)) {
			return n, fmt.Errorf("J·v = %v but ⟨grad, v⟩ = %v with the %s gradient %s\n  v = %s",
				jv, gv, g.mode, sdql.FormatValue(g.v), sdql.FormatValue(c.Tangent))
		}
		n.Grad++
	}
	fd, kink, err := c.finiteDifference(p.GradReverse)
	if err != nil {
		return n, err
	}
	if kink {
		n.Kinks++
		return n, nil
	}
	for _, h := range []struct {
		mode string
		v    sdql.Value
	}{{"forward over reverse", v.HVPReverse}, {"forward over forward", v.HVPForward}} {
		if d := differ(h.v, fd, 1e-5, 1e-2); d != "" {
			return n, fmt.Errorf("H·v (%s) = %s but the finite difference of the gradient along v is %s: %s\n  v = %s",
				h.mode, sdql.FormatValue(h.v), sdql.FormatValue(fd), d, sdql.FormatValue(c.Tangent))
		}
		n.HVP++
	}
	return n, nil
}

// finiteDifference is the central difference of the gradient program grad
// along the tangent, with one Richardson step: the input moves by h·v on
// its stored positions only (it has no others to move). kink reports that
// steps h and h/2 disagree: the gradient is not differentiable there (a
// max, an abs, a condition on reals at its threshold).
func (c *Case) finiteDifference(grad sdql.Expr) (sdql.Value, bool, error) {
	x := c.Values[c.Wrt]
	scale := 1.0
	walkLeaves(x, nil, func(_ []int, f float64) { scale = math.Max(scale, math.Abs(f)) })
	diff := func(h float64) (map[string]float64, error) {
		out := map[string]float64{}
		for _, s := range []float64{1, -1} {
			moved := move(x, c.Tangent, s*h)
			g, err := c.evalWith(grad, map[string]sdql.Value{c.Wrt: moved})
			if err != nil {
				return nil, fmt.Errorf("the gradient at a moved point: %v", err)
			}
			walkLeaves(g, nil, func(k []int, f float64) { out[key(k)] += s * f / (2 * h) })
		}
		return out, nil
	}
	h := 1e-3 * scale
	d1, err := diff(h)
	if err != nil {
		return nil, false, err
	}
	d2, err := diff(h / 2)
	if err != nil {
		return nil, false, err
	}
	for k := range union(d1, d2) {
		if math.Abs(d1[k]-d2[k]) > 1e-3*math.Max(1e-2, math.Max(math.Abs(d1[k]), math.Abs(d2[k]))) {
			return nil, true, nil
		}
	}
	fd := map[string]float64{}
	for k := range union(d1, d2) {
		fd[k] = (4*d2[k] - d1[k]) / 3
	}
	return unflatten(fd, sdql.Order(c.types()[c.Wrt])), false, nil
}

// evalWith runs the interpreter on e over the case's values, with extra
// ones added or replaced.
func (c *Case) evalWith(e sdql.Expr, extra map[string]sdql.Value) (sdql.Value, error) {
	vals := map[string]sdql.Value{}
	types := c.types()
	for n, v := range c.Values {
		vals[n] = v
	}
	for n, v := range extra {
		vals[n] = v
		if _, ok := types[n]; !ok {
			types[n] = sdql.TypeOfValue(v)
		}
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: types})
	if err != nil {
		return nil, err
	}
	return (&sdql.Interp{}).Run(e, info, vals)
}

// Inner is the inner product ⟨a, b⟩ of two values of one type, as
// functions (a key one lacks is zero there), and the sum of the absolute
// values of its terms (the scale its rounding error is relative to).
func Inner(a, b sdql.Value) (float64, float64) {
	if x, ok := scalar(a); ok {
		y, _ := scalar(b)
		return x * y, math.Abs(x * y)
	}
	da, ok1 := a.(*sdql.Dict)
	db, ok2 := b.(*sdql.Dict)
	if !ok1 || !ok2 {
		return 0, 0 // zero (an empty or missing value) against anything
	}
	sum, abs := 0.0, 0.0
	da.Range(func(k int, va sdql.Value) bool {
		if vb, ok := db.Get(k); ok {
			s, a := Inner(va, vb)
			sum += s
			abs += a
		}
		return true
	})
	return sum, abs
}

func scalar(v sdql.Value) (float64, bool) {
	switch x := v.(type) {
	case sdql.Real:
		return float64(x), true
	case sdql.Int:
		return float64(x), true
	}
	return 0, false
}

// close compares two results of one computation done two ways, whose
// terms sum to scale in absolute value.
func close(a, b, scale float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, scale)
}

// move returns x with h·t added at each of x's stored leaves.
func move(x, t sdql.Value, h float64) sdql.Value {
	if f, ok := scalar(x); ok {
		d, _ := scalar(t)
		return sdql.Real(f + h*d)
	}
	dx, ok := x.(*sdql.Dict)
	if !ok {
		return x
	}
	dt, _ := t.(*sdql.Dict)
	out := sdql.NewDict()
	dx.Range(func(k int, v sdql.Value) bool {
		var tv sdql.Value = sdql.Real(0)
		if dt != nil {
			if w, ok := dt.Get(k); ok {
				tv = w
			}
		}
		out.Set(k, move(v, tv, h))
		return true
	})
	return out
}

// RandomTangent returns a value of the type of x (of the given order)
// with random values at keys 0..extent at every level, each present with
// probability 3/4 but extent, which always is: with extent past x's
// largest key, the tangent has entries where x stores nothing, beside
// those at x's positions (and in the gaps of a sparse x).
func RandomTangent(r *rand.Rand, order, extent int) sdql.Value {
	if order == 0 {
		return sdql.Real(draw(r))
	}
	d := sdql.NewDict()
	for k := 0; k <= extent; k++ {
		if k < extent && r.IntN(4) == 0 {
			continue
		}
		d.Set(k, RandomTangent(r, order-1, extent))
	}
	return d
}

// randomOn returns a random value of type t on the keys of y and of jv
// (the result and J·v), with one more key at each level; its levels follow
// t where y and jv are empty.
func randomOn(r *rand.Rand, t sdql.Type, y, jv sdql.Value) sdql.Value {
	dt, isDict := t.(*sdql.DictType)
	if !isDict {
		return sdql.Real(draw(r))
	}
	dy, _ := y.(*sdql.Dict)
	dj, _ := jv.(*sdql.Dict)
	keys := map[int]bool{}
	for _, d := range []*sdql.Dict{dy, dj} {
		if d != nil {
			for _, k := range d.Keys() {
				keys[k] = true
			}
		}
	}
	top := 0
	for k := range keys {
		top = max(top, k+1)
	}
	keys[top] = true
	sorted := make([]int, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Ints(sorted)
	out := sdql.NewDict()
	for _, k := range sorted {
		var yv, jvv sdql.Value
		if dy != nil {
			yv, _ = dy.Get(k)
		}
		if dj != nil {
			jvv, _ = dj.Get(k)
		}
		out.Set(k, randomOn(r, dt.Val, yv, jvv))
	}
	return out
}

// draw is a random value in ±[0.25, 1.25): never a zero that would hide
// an entry.
func draw(r *rand.Rand) float64 {
	v := 0.25 + r.Float64()
	if r.IntN(2) == 0 {
		v = -v
	}
	return v
}

// finite reports whether every leaf of v is a finite number.
func finite(v sdql.Value) bool {
	ok := true
	walkLeaves(v, nil, func(_ []int, f float64) { ok = ok && !math.IsNaN(f) && !math.IsInf(f, 0) })
	return ok
}

// walkLeaves calls f on every real leaf of v with its keys.
func walkLeaves(v sdql.Value, prefix []int, f func([]int, float64)) {
	if x, ok := scalar(v); ok {
		f(prefix, x)
		return
	}
	if d, ok := v.(*sdql.Dict); ok {
		d.Range(func(k int, x sdql.Value) bool {
			walkLeaves(x, append(append([]int(nil), prefix...), k), f)
			return true
		})
	}
}

func key(ks []int) string {
	b := make([]byte, 0, 4*len(ks))
	for i, k := range ks {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(k), 10)
	}
	return string(b)
}

func union(a, b map[string]float64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// unflatten turns leaves by key back into a value of the given order.
func unflatten(m map[string]float64, order int) sdql.Value {
	if order == 0 {
		return sdql.Real(m[""])
	}
	out := sdql.NewDict()
	for k, v := range m {
		var ks []int
		for _, part := range splitComma(k) {
			n, _ := strconv.Atoi(part)
			ks = append(ks, n)
		}
		d := out
		for _, kk := range ks[:len(ks)-1] {
			next, ok := d.Get(kk)
			if !ok {
				next = sdql.NewDict()
				d.Set(kk, next)
			}
			d = next.(*sdql.Dict)
		}
		d.Set(ks[len(ks)-1], sdql.Real(v))
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// differ compares a and b as functions (a missing key is zero): "" when
// every leaf agrees within tol·max(floor, |a|, |b|), else the first
// difference (NaN agrees with nothing).
func differ(a, b sdql.Value, tol, floor float64) string {
	fa, fb := map[string]float64{}, map[string]float64{}
	walkLeaves(a, nil, func(k []int, f float64) { fa[key(k)] += f })
	walkLeaves(b, nil, func(k []int, f float64) { fb[key(k)] += f })
	keys := make([]string, 0)
	for k := range union(fa, fb) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, y := fa[k], fb[k]
		if !(math.Abs(x-y) <= tol*math.Max(floor, math.Max(math.Abs(x), math.Abs(y)))) {
			return fmt.Sprintf("at (%s): %v and %v", k, x, y)
		}
	}
	return ""
}

// freshName returns base, or base with a number, that e does not use.
func freshName(e sdql.Expr, base string) string {
	used := map[string]bool{}
	sdql.Inspect(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.Ident:
			used[x.Name] = true
		case *sdql.SumExpr:
			used[x.Key.Name], used[x.Val.Name] = true, true
		case *sdql.LetExpr:
			for _, b := range x.Names {
				used[b.Name] = true
			}
		}
		return true
	})
	name := base
	for i := 2; used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	return name
}
