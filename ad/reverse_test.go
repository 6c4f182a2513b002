package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

// checkReverse checks reverse mode and the products built on it against
// the forward-mode Jacobian want (flattened, the result's indices first)
// of prog with respect to wrt:
//
//   - Reverse's transposed and simplified programs compute want;
//   - JVP, and the linearized and unzipped stages with the tangent bound,
//     compute J·ẋ for a random tangent ẋ on wrt's stored positions;
//   - the VJP with a random cotangent ȳ on the result's stored positions
//     computes ȳ·J, and ⟨ȳ, J·ẋ⟩ = ⟨ȳ·J, ẋ⟩;
//   - value and gradients in one bundle, with respect to wrt and every
//     other real input, agree with the program's value and forward mode;
//   - for a real result and with hvp set, the Hessian–vector product
//     (forward over reverse) agrees with central finite differences of the
//     gradient (programs with kinks, such as conditions on reals, leave it
//     out).
func checkReverse(prog sdql.Expr, wrt string, values map[string]sdql.Value, types map[string]sdql.Type, want map[string]float64, hvp bool) error {
	st, err := Reverse(prog, &Request{Wrt: []string{wrt}}, types)
	if err != nil {
		return fmt.Errorf("reverse: %v", err)
	}
	eval := func(what string, e sdql.Expr, in map[string]sdql.Value, ts map[string]sdql.Type) (sdql.Value, error) {
		v, err := evalTyped(e, in, ts)
		if err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", what, err, sdql.Print(e))
		}
		return v, nil
	}
	for _, s := range []struct {
		name string
		e    sdql.Expr
	}{{"reverse (transposed)", st.Transposed}, {"reverse", st.Result}} {
		v, err := eval(s.name, s.e, values, types)
		if err != nil {
			return err
		}
		if err := compareFlat(s.name+" vs forward mode", flatten(v), want, modeTol, 0); err != nil {
			return fmt.Errorf("%v\n%s", err, sdql.Print(s.e))
		}
	}
	y, err := eval("program", prog, values, types)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(uint64(len(sdql.PrintFlat(prog))), 3))
	m := sdql.Order(types[wrt])
	jac := splitJacobian(want, m)

	// JVP: J·ẋ
	xdot := randomLike(r, values[wrt])
	wantJVP := map[string]float64{}
	for _, p := range leaves(xdot) {
		for rk, v := range jac[p.key] {
			wantJVP[rk] += v * p.val
		}
	}
	jvp, err := JVP(prog, map[string]string{wrt: "xdot"}, types)
	if err != nil {
		return fmt.Errorf("jvp: %v", err)
	}
	in := with(values, "xdot", xdot)
	ts := withType(types, "xdot", types[wrt])
	tin := with(values, st.Tangents[wrt], xdot)
	tts := withType(types, st.Tangents[wrt], types[wrt])
	for _, s := range []struct {
		name string
		e    sdql.Expr
		in   map[string]sdql.Value
		ts   map[string]sdql.Type
	}{{"jvp", jvp, in, ts}, {"linearized", st.Linearized, tin, tts}, {"unzipped", st.Unzipped, tin, tts}} {
		v, err := eval(s.name, s.e, s.in, s.ts)
		if err != nil {
			return err
		}
		if err := compareFlat(s.name+" vs J·ẋ", flatten(v), wantJVP, modeTol, 0); err != nil {
			return fmt.Errorf("%v\n%s", err, sdql.Print(s.e))
		}
	}

	// VJP: ȳ·J, and the inner-product identity
	ybar := randomLike(r, y)
	vst, err := Reverse(prog, &Request{Wrt: []string{wrt}, Cotangent: "ybar"}, types)
	if err != nil {
		return fmt.Errorf("vjp: %v", err)
	}
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types})
	if err != nil {
		return err
	}
	vjp, err := eval("vjp", vst.Result, with(values, "ybar", ybar), withType(types, "ybar", info.Result))
	if err != nil {
		return err
	}
	wantVJP := map[string]float64{}
	yb := flatten(ybar)
	for xk, col := range jac {
		for rk, v := range col {
			wantVJP[xk] += yb[rk] * v
		}
	}
	if err := compareFlat("vjp vs ȳ·J", flatten(vjp), wantVJP, modeTol, 0); err != nil {
		return fmt.Errorf("%v\n%s", err, sdql.Print(vst.Result))
	}
	var lhs, rhs float64
	for k, v := range flatten(ybar) {
		lhs += v * wantJVP[k]
	}
	vf := flatten(vjp)
	for _, p := range leaves(xdot) {
		rhs += vf[p.key] * p.val
	}
	if math.Abs(lhs-rhs) > 1e-9*math.Max(1, math.Max(math.Abs(lhs), math.Abs(rhs))) {
		return fmt.Errorf("⟨ȳ, J·ẋ⟩ = %g but ⟨ȳ·J, ẋ⟩ = %g", lhs, rhs)
	}

	// value and every gradient from one sweep
	all := []string{wrt}
	for _, n := range sdql.FreeVars(prog) {
		if n != wrt && sdql.Order(types[n]) >= 0 {
			all = append(all, n)
		}
	}
	bst, err := Reverse(prog, &Request{Wrt: all, Value: true}, types)
	if err != nil {
		return fmt.Errorf("value and gradients: %v", err)
	}
	bv, err := eval("value and gradients", bst.Result, values, types)
	if err != nil {
		return err
	}
	outs, err := bst.Outputs.Split(bv)
	if err != nil {
		return err
	}
	if !sdql.Equal(outs[0], y) {
		return fmt.Errorf("the bundled value %s differs from the program's %s", sdql.FormatValue(outs[0]), sdql.FormatValue(y))
	}
	for i, n := range all {
		w := want
		if n != wrt {
			g, err := Grad(prog, n, types)
			if err != nil {
				return err
			}
			gv, err := eval("forward", g, values, types)
			if err != nil {
				return err
			}
			w = flatten(gv)
		}
		if err := compareFlat("bundled gradient of "+n+" vs forward mode", flatten(outs[i+1]), w, modeTol, 0); err != nil {
			return fmt.Errorf("%v\n%s", err, sdql.Print(bst.Result))
		}
	}

	if hvp && sdql.TypeOfValue(y) == sdql.RealType {
		return checkHVP(prog, wrt, values, types, st.Result, r)
	}
	return nil
}

// checkHVP checks HVP against central finite differences (one Richardson
// step) of the reverse gradient grad in a random direction, where the
// gradient is differentiable: where differences with steps h and h/2
// disagree by more than 1e-3, the point is a kink and nothing is checked.
func checkHVP(prog sdql.Expr, wrt string, values map[string]sdql.Value, types map[string]sdql.Type, grad sdql.Expr, r *rand.Rand) error {
	hvp, err := HVP(prog, wrt, "dir", types)
	if err != nil {
		return fmt.Errorf("hvp: %v", err)
	}
	dir := randomLike(r, values[wrt])
	hv, err := evalTyped(hvp, with(values, "dir", dir), withType(types, "dir", types[wrt]))
	if err != nil {
		return fmt.Errorf("hvp: %v\n%s", err, sdql.Print(hvp))
	}
	x := values[wrt]
	scale := 1.0
	for _, p := range leaves(x) {
		scale = math.Max(scale, math.Abs(p.val))
	}
	diff := func(h float64) (map[string]float64, error) {
		out := map[string]float64{}
		for _, s := range []float64{1, -1} {
			moved := x
			for _, p := range leaves(dir) {
				old, _ := leafAt(moved, p.idx)
				moved = setLeaf(moved, p.idx, old+s*h*p.val)
			}
			g, err := evalTyped(grad, with(values, wrt, moved), types)
			if err != nil {
				return nil, err
			}
			for k, v := range flatten(g) {
				out[k] += s * v / (2 * h)
			}
		}
		return out, nil
	}
	h := 1e-3 * scale
	d1, err := diff(h)
	if err != nil {
		return err
	}
	d2, err := diff(h / 2)
	if err != nil {
		return err
	}
	if compareFlat("", d1, d2, 1e-3, 1e-2) != nil {
		// the two steps disagree: the gradient has a kink here (max, min,
		// abs at equal arguments), where the Hessian is not defined
		return nil
	}
	fd := map[string]float64{}
	for k := range union(d1, d2) {
		fd[k] = (4*d2[k] - d1[k]) / 3
	}
	if err := compareFlat("hvp vs finite differences of the gradient", flatten(hv), fd, 1e-5, 1e-2); err != nil {
		return fmt.Errorf("%v\n%s", err, sdql.Print(hvp))
	}
	return nil
}

// splitJacobian regroups a flattened Jacobian (the result's indices first,
// then m indices of the wrt input) by the wrt input's position.
func splitJacobian(j map[string]float64, m int) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for k, v := range j {
		parts := strings.Split(k, ",")
		if k == "" {
			parts = nil
		}
		n := len(parts) - m
		rk, xk := strings.Join(parts[:n], ","), strings.Join(parts[n:], ",")
		if out[xk] == nil {
			out[xk] = map[string]float64{}
		}
		out[xk][rk] += v
	}
	return out
}

// randomLike returns a tensor with v's stored positions and random values
// in [-1, 1).
func randomLike(r *rand.Rand, v sdql.Value) sdql.Value {
	switch v.(type) {
	case sdql.Real, sdql.Int:
		return sdql.Real(2*r.Float64() - 1)
	}
	d := sdql.NewDict()
	keys := []int{}
	sdql.Entries(v, func(k int, _ sdql.Value) bool {
		keys = append(keys, k)
		return true
	})
	sort.Ints(keys)
	for _, k := range keys {
		x, _ := sdql.Lookup(v, k)
		d.Set(k, randomLike(r, x))
	}
	return d
}

// leafAt returns the scalar at idx.
func leafAt(v sdql.Value, idx []int) (float64, bool) {
	for _, k := range idx {
		var ok bool
		if v, ok = sdql.Lookup(v, k); !ok {
			return 0, false
		}
	}
	switch x := v.(type) {
	case sdql.Real:
		return float64(x), true
	case sdql.Int:
		return float64(x), true
	}
	return 0, false
}

func with(values map[string]sdql.Value, name string, v sdql.Value) map[string]sdql.Value {
	out := map[string]sdql.Value{name: v}
	for n, x := range values {
		if n != name {
			out[n] = x
		}
	}
	return out
}

func withType(types map[string]sdql.Type, name string, t sdql.Type) map[string]sdql.Type {
	out := map[string]sdql.Type{name: t}
	for n, x := range types {
		if n != name {
			out[n] = x
		}
	}
	return out
}

// TestGeneratedPrograms checks reverse mode (checkReverse, without the
// Hessian–vector product: the generator writes conditions on reals) on the
// shared generator's programs (sdqlgen.Gen), with respect to each of their
// real tensor inputs, against forward mode. NABLASD_AD_RANDOM sets the
// number of programs.
func TestGeneratedPrograms(t *testing.T) {
	n := randomCount(t, 300, 60)
	failures, checked := 0, 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 11))
		g := &sdqlgen.Gen{R: r}
		src := g.Program([]string{"real", "vec", "mat"}[r.IntN(3)], 4)
		prog, err := sdql.Parse("", src)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if info, err := sdql.Check(prog, nil); err != nil || discrete(info.Result) {
			continue // an int result (literals only) has no derivative
		}
		values := sdqlgen.GenInputs(r)
		in := map[string]sdql.Value{}
		types := map[string]sdql.Type{}
		for _, v := range sdql.FreeVars(prog) {
			in[v], types[v] = values[v], sdql.TypeOfValue(values[v])
		}
		info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		for v := range types {
			types[v] = info.Free[v] // complete where an empty dictionary's is not
		}
		for _, wrt := range sdql.FreeVars(prog) {
			f, err := Grad(prog, wrt, types)
			if err != nil {
				t.Fatalf("seed %d, wrt %s: forward mode: %v\n%s", seed, wrt, err, src)
			}
			want, err := evalTyped(f, in, types)
			if err != nil {
				t.Fatalf("seed %d, wrt %s: forward mode: %v", seed, wrt, err)
			}
			checked++
			if err := checkReverse(prog, wrt, in, types, flatten(want), false); err != nil {
				failures++
				t.Errorf("seed %d, wrt %s: %v\nprogram: %s", seed, wrt, err, src)
				if failures >= 5 {
					t.Fatal("too many failures")
				}
			}
		}
	}
	t.Logf("%d programs, %d gradients", n, checked)
}
