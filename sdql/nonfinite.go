package sdql

import "math"

// Finding where a value stops being finite (Interp.NonFinite, MaxOps).

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// nonFiniteOf says whether a value holds a NaN and whether it holds an
// infinity (its leaves, in key order), with the first of each.
func nonFiniteOf(v Value) (nan, inf bool, firstNaN, firstInf float64) {
	visit := func(x float64) bool {
		switch {
		case math.IsNaN(x) && !nan:
			nan, firstNaN = true, x
		case math.IsInf(x, 0) && !inf:
			inf, firstInf = true, x
		}
		return !(nan && inf)
	}
	var walk func(v Value) bool
	walk = func(v Value) bool {
		switch v := v.(type) {
		case Real:
			return visit(float64(v))
		case Int, Bool, IntArray, nil:
			return true
		case RealArray:
			for _, x := range v {
				if !visit(x) {
					return false
				}
			}
			return true
		}
		more := true
		Entries(v, func(_ int, x Value) bool {
			more = walk(x)
			return more
		})
		return more
	}
	walk(v)
	return
}

// FirstNonFinite returns the first NaN or infinity of a value (its
// leaves in key order), and whether it holds one.
func FirstNonFinite(v Value) (float64, bool) {
	var bad float64
	found := false
	var walk func(v Value) bool
	walk = func(v Value) bool {
		switch v := v.(type) {
		case Real:
			bad, found = float64(v), !isFinite(float64(v))
			return !found
		case Int, Bool, IntArray, nil:
			return true
		case RealArray:
			for _, x := range v {
				if !isFinite(x) {
					bad, found = x, true
					return false
				}
			}
			return true
		}
		more := true
		Entries(v, func(_ int, x Value) bool {
			more = walk(x)
			return more
		})
		return more
	}
	walk(v)
	return bad, found
}

// worse returns the NaN or infinity a result brings that its operands
// do not (a NaN from operands without one, an infinity from finite
// operands), and whether there is one.
func worse(nan, inf bool, firstNaN, firstInf float64, operandNaN, operandNonFinite bool) (float64, bool) {
	switch {
	case nan && !operandNaN:
		return firstNaN, true
	case inf && !operandNonFinite:
		return firstInf, true
	}
	return 0, false
}

// checkFinite reports an operation whose result out is less finite than
// its operands (Interp.NonFinite).
func (r *run) checkFinite(at Expr, out Value, operands ...Value) {
	nan, inf, fn, fi := nonFiniteOf(out)
	if !nan && !inf {
		return
	}
	opNaN, opBad := false, false
	args := make([]float64, 0, len(operands))
	for _, v := range operands {
		n, i, _, _ := nonFiniteOf(v)
		opNaN, opBad = opNaN || n, opBad || n || i
		if x, ok := scalarOf(v); ok && args != nil {
			args = append(args, x)
		} else {
			args = nil
		}
	}
	if bad, ok := worse(nan, inf, fn, fi, opNaN, opBad); ok {
		r.nonFinite(at, args, bad)
	}
}

// scalarsNonFinite is checkFinite for scalar operands and a scalar
// result that is not finite.
func (r *run) scalarsNonFinite(at Expr, args []float64, result float64) {
	opNaN, opBad := false, false
	for _, x := range args {
		opNaN, opBad = opNaN || math.IsNaN(x), opBad || !isFinite(x)
	}
	if _, ok := worse(math.IsNaN(result), math.IsInf(result, 0), result, result, opNaN, opBad); ok {
		r.nonFinite(at, args, result)
	}
}

// nonFinite calls Interp.NonFinite, and stops the run when it says so.
func (r *run) nonFinite(at Expr, args []float64, result float64) {
	if !r.in.NonFinite(at, args, result) {
		panic(stopPanic{ErrStopped})
	}
}

// budget stops a run past Interp.MaxOps.
func (r *run) budget() {
	if r.in.MaxOps > 0 && r.in.Ops > r.in.MaxOps {
		panic(stopPanic{ErrMaxOps})
	}
}
