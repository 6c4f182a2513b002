package ad

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Tolerances of checkGradient. fdTol bounds |g - fd| / max(|g|, |fd|, 1e-2)
// for the central finite difference fd (with one Richardson step); modeTol
// bounds the disagreement of the scalar and tensorized modes.
const (
	fdTol   = 1e-6
	modeTol = 1e-9
)

// checkGradient computes the gradient of prog with respect to wrt at the
// given inputs in every way the package offers and checks that they agree:
// the sparsified and the raw tensorized derivative (both over ANF), the
// gradient macro over the program as given, the scalar forward mode run
// once per stored position of wrt, and central finite differences
// perturbing each stored position of wrt. It returns the gradient.
//
// types gives the inputs' types where they cannot be read off the values
// (an empty dictionary); the others are taken from the values.
func checkGradient(prog sdql.Expr, wrt string, values map[string]sdql.Value, given map[string]sdql.Type) (sdql.Value, error) {
	types := map[string]sdql.Type{}
	for n, v := range values {
		types[n] = given[n]
		if types[n] == nil {
			types[n] = sdql.TypeOfValue(v)
		}
	}
	st, err := GradStages(prog, wrt, types)
	if err != nil {
		return nil, err
	}
	eval := func(what string, e sdql.Expr, in map[string]sdql.Value) (sdql.Value, error) {
		v, err := evalTyped(e, in, types)
		if err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", what, err, sdql.Print(e))
		}
		return v, nil
	}
	var leftover error
	sdql.Inspect(st.Sparse, func(e sdql.Expr) bool {
		if l, ok := e.(*sdql.LetExpr); ok {
			for i, v := range l.Values {
				if lit, ok := v.(*sdql.IntLit); ok && lit.Value == 0 && strings.HasSuffix(l.Names[i].Name, "'") {
					leftover = fmt.Errorf("the sparsified gradient still binds the ∅ tangent %s:\n%s", l.Names[i].Name, sdql.Print(st.Sparse))
				}
			}
		}
		return leftover == nil
	})
	if leftover != nil {
		return nil, leftover
	}
	g, err := eval("sparse", st.Sparse, values)
	if err != nil {
		return nil, err
	}
	gflat := flatten(g)
	raw, err := eval("derivative", st.Derivative, values)
	if err != nil {
		return nil, err
	}
	if err := compareFlat("derivative vs sparse", flatten(raw), gflat, modeTol, 0); err != nil {
		return nil, err
	}
	macro, err := Gradient(prog, wrt, types)
	if err != nil {
		return nil, err
	}
	mv, err := eval("gradient without ANF", macro, values)
	if err != nil {
		return nil, err
	}
	if err := compareFlat("gradient without ANF vs with", flatten(mv), gflat, modeTol, 0); err != nil {
		return nil, err
	}
	if err := checkReverse(prog, wrt, values, types, gflat, true); err != nil {
		return nil, err
	}

	// scalar mode, one run per position
	tan, err := Forward(st.ANF, types)
	if err != nil {
		return nil, err
	}
	for n, t := range tan.Types {
		types[tan.Names[n]] = t
	}
	x := values[wrt]
	pos := leaves(x)
	scalar := map[string]float64{}
	fd := map[string]float64{}
	for _, p := range pos {
		in := map[string]sdql.Value{}
		for n, v := range values {
			in[n] = v
			if tn, ok := tan.Names[n]; ok {
				in[tn] = sdql.Zero(tan.Types[n])
			}
		}
		in[tan.Names[wrt]] = oneHotAt(p.idx)
		col, err := eval("scalar mode", tan.Expr, in)
		if err != nil {
			return nil, err
		}
		for k, v := range flatten(col) {
			scalar[joinKey(k, p.key)] += v
		}
		// finite differences with one Richardson step
		h := 1e-3 * math.Max(1, math.Abs(p.val))
		diff := func(h float64) (map[string]float64, error) {
			out := map[string]float64{}
			for _, s := range []float64{1, -1} {
				in := map[string]sdql.Value{}
				for n, v := range values {
					in[n] = v
				}
				in[wrt] = setLeaf(x, p.idx, p.val+s*h)
				f, err := eval("finite difference", prog, in)
				if err != nil {
					return nil, err
				}
				for k, v := range flatten(f) {
					out[k] += s * v / (2 * h)
				}
			}
			return out, nil
		}
		d1, err := diff(h)
		if err != nil {
			return nil, err
		}
		d2, err := diff(h / 2)
		if err != nil {
			return nil, err
		}
		for k := range union(d1, d2) {
			fd[joinKey(k, p.key)] += (4*d2[k] - d1[k]) / 3
		}
	}
	if err := compareFlat("scalar vs tensorized mode", scalar, gflat, modeTol, 0); err != nil {
		return nil, err
	}
	if err := compareFlat("finite differences vs gradient", fd, gflat, fdTol, 1e-2); err != nil {
		return nil, err
	}
	return g, nil
}

// evalTyped evaluates e over the inputs with their types given (the type
// of an empty dictionary cannot be read off the value).
func evalTyped(e sdql.Expr, in map[string]sdql.Value, types map[string]sdql.Type) (sdql.Value, error) {
	ts := map[string]sdql.Type{}
	for n, v := range in {
		ts[n] = types[n]
		if ts[n] == nil {
			ts[n] = sdql.TypeOfValue(v)
		}
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: ts, Strict: true})
	if err != nil {
		return nil, err
	}
	return (&sdql.Interp{}).Run(e, info, in)
}

type leaf struct {
	idx []int
	key string
	val float64
}

// leaves returns the stored scalar positions of a real tensor value.
func leaves(v sdql.Value) []leaf {
	var out []leaf
	var walk func(v sdql.Value, idx []int)
	walk = func(v sdql.Value, idx []int) {
		switch x := v.(type) {
		case sdql.Real:
			out = append(out, leaf{idx: append([]int(nil), idx...), key: keyOf(idx), val: float64(x)})
		case sdql.Int:
			out = append(out, leaf{idx: append([]int(nil), idx...), key: keyOf(idx), val: float64(x)})
		default:
			sdql.Entries(v, func(k int, e sdql.Value) bool {
				walk(e, append(idx, k))
				return true
			})
		}
	}
	walk(v, nil)
	return out
}

// setLeaf returns a copy of v with the scalar at idx replaced by x.
func setLeaf(v sdql.Value, idx []int, x float64) sdql.Value {
	if len(idx) == 0 {
		return sdql.Real(x)
	}
	out := sdql.NewDict()
	sdql.Entries(v, func(k int, e sdql.Value) bool {
		if k == idx[0] {
			e = setLeaf(e, idx[1:], x)
		}
		out.Set(k, e)
		return true
	})
	return out
}

// oneHotAt is the tensor that is 1 at idx and has no other entry.
func oneHotAt(idx []int) sdql.Value {
	var v sdql.Value = sdql.Real(1)
	for i := len(idx) - 1; i >= 0; i-- {
		d := sdql.NewDict()
		d.Set(idx[i], v)
		v = d
	}
	return v
}

func keyOf(idx []int) string {
	parts := make([]string, len(idx))
	for i, k := range idx {
		parts[i] = strconv.Itoa(k)
	}
	return strings.Join(parts, ",")
}

func joinKey(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// flatten maps every scalar position of a tensor value to its value.
func flatten(v sdql.Value) map[string]float64 {
	out := map[string]float64{}
	for _, l := range leaves(v) {
		out[l.key] += l.val
	}
	return out
}

func union(a, b map[string]float64) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// compareFlat compares two tensors as functions (a missing position is 0):
// |a - b| <= tol * max(|a|, |b|, floor), with floor 1 when floor is 0.
func compareFlat(what string, got, want map[string]float64, tol, floor float64) error {
	if floor == 0 {
		floor = 1
	}
	var bad []string
	for k := range union(got, want) {
		a, b := got[k], want[k]
		if math.Abs(a-b) > tol*math.Max(floor, math.Max(math.Abs(a), math.Abs(b))) || math.IsNaN(a) != math.IsNaN(b) {
			bad = append(bad, fmt.Sprintf("(%s): %.12g vs %.12g", k, a, b))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	if len(bad) > 5 {
		bad = append(bad[:5], fmt.Sprintf("... %d more", len(bad)-5))
	}
	return fmt.Errorf("%s differ at %s", what, strings.Join(bad, "; "))
}
