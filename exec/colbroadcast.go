package exec

import (
	"slices"

	"github.com/nablasd/nablasd/lower"
)

// This file compiles a columnar region's broadcast operations (a row's
// value applied to each of its entries through the lane map) and product
// chains.

// ancestorReal reports the column slot and level of e when e reads a
// real variable of a level d above l (a row's value, read by each of its
// entries through the lane map cx.anc[d]).
func (rg *region) ancestorReal(e lower.Expr, l int) (slot, d int, ok bool) {
	r, isRef := e.(*lower.Ref)
	if !isRef || r.V.Kind != lower.Real {
		return 0, 0, false
	}
	d, in := rg.level[r.V]
	if !in || d >= l {
		return 0, 0, false
	}
	return rg.fcol[r.V], d, true
}

// broadcastOperand finds the operand of x that is an ancestor level's
// variable (ancestorReal), when exactly one is: its column slot and
// level, and whether it is the left operand (two broadcasts are left to
// the general case).
func (rg *region) broadcastOperand(x *lower.Binary, l int) (slot, d int, left, ok bool) {
	slot, d, left = rg.ancestorReal(x.X, l)
	_, _, right := rg.ancestorReal(x.Y, l)
	switch {
	case left && right:
		return 0, 0, false, false
	case left:
		return slot, d, true, true
	}
	slot, d, ok = rg.ancestorReal(x.Y, l)
	return slot, d, false, ok
}

// broadcastBinary compiles a binary operation of which one operand is an
// ancestor level's variable (ancestorReal) and the other a column, as one
// pass that reads the variable through the lane map, instead of a pass
// that broadcasts it into a column and another that combines the two
// (c - x(j) in a row's loop). It returns nil for other operands.
func (rg *region) broadcastBinary(x *lower.Binary, l int, ca, cb fcol, buf int) fcol {
	slot, d, left, ok := rg.broadcastOperand(x, l)
	if !ok {
		return nil
	}
	other := cb
	if !left {
		other = ca
	}
	rg.useAnc(d, l)
	op := x.Op
	return func(fr *frame, cx *vctx) []float64 {
		b := other(fr, cx)
		src := fr.regions[rg.id].f[slot]
		anc := cx.anc[d][:len(b)]
		out := rg.fbuf(fr, buf, len(b))
		broadcastOp(out, b, src, anc, op, !left)
		return out
	}
}

// broadcastGather compiles a binary operation of an ancestor level's
// variable (ancestorReal) and a dense vector's guarded lookup at a key of
// the batch (select(0 <= j && j < n, X[j], 0), lower.GuardedLoad, as
// guardedGather compiles it alone) as one pass: each lane reads the
// variable through the lane map and gathers the vector at its key, and
// combines the two (x(i) - x(j) in the loop over a row's entries), where
// a pass gathered the lookups into a column and a second combined it.
// The arithmetic is the same. It returns nil for other operands, before
// compiling either.
func (rg *region) broadcastGather(x *lower.Binary, l int, buf int) fcol {
	slot, d, left, ok := rg.broadcastOperand(x, l)
	if !ok {
		return nil
	}
	other := x.Y
	if !left {
		other = x.X
	}
	s, ok := other.(*lower.Select)
	if !ok {
		return nil
	}
	n, ld := lower.GuardedLoad(s)
	if ld == nil || ld.A.Kind != lower.Real || rg.varies(n) {
		return nil // (the select's else is a real zero: its load is of reals)
	}
	un := rg.c.int(n)
	_, cj := rg.int(ld.Index, l, false)
	rg.useAnc(d, l)
	a := ld.A.ID
	op := x.Op
	return func(fr *frame, cx *vctx) []float64 {
		idx, arr := cj(fr, cx), fr.fa[a]
		bound := uint(min(max(un(fr), 0), len(arr)))
		src := fr.regions[rg.id].f[slot]
		out := rg.fbuf(fr, buf, len(idx))
		broadcastGatherOp(out, idx, arr[:bound], src, cx.anc[d], op, !left)
		return out
	}
}

// broadcastGatherOp sets out[k] = src[anc[k]] op g, or g op src[anc[k]]
// when flip, where g is arr[idx[k]], or 0 where idx[k] is outside arr.
func broadcastGatherOp(out []float64, idx []int, arr, src []float64, anc []int32, op lower.BinaryOp, flip bool) {
	idx = idx[:len(out)]
	anc = anc[:len(out)]
	at := func(j int) float64 {
		if uint(j) < uint(len(arr)) {
			return arr[j]
		}
		return 0
	}
	switch {
	case op == lower.Add && !flip:
		for k, a := range anc {
			out[k] = src[a] + at(idx[k])
		}
	case op == lower.Add:
		for k, a := range anc {
			out[k] = at(idx[k]) + src[a]
		}
	case op == lower.Mul && !flip:
		for k, a := range anc {
			out[k] = src[a] * at(idx[k])
		}
	case op == lower.Mul:
		for k, a := range anc {
			out[k] = at(idx[k]) * src[a]
		}
	case op == lower.Sub && !flip:
		for k, a := range anc {
			out[k] = src[a] - at(idx[k])
		}
	case op == lower.Sub:
		for k, a := range anc {
			out[k] = at(idx[k]) - src[a]
		}
	case !flip:
		for k, a := range anc {
			out[k] = src[a] / at(idx[k])
		}
	default:
		for k, a := range anc {
			out[k] = at(idx[k]) / src[a]
		}
	}
}

// broadcastOp sets out[k] = src[anc[k]] op b[k], or b[k] op src[anc[k]]
// when flip (the broadcast operand on the right).
func broadcastOp(out, b, src []float64, anc []int32, op lower.BinaryOp, flip bool) {
	b = b[:len(out)]
	anc = anc[:len(out)]
	switch {
	case op == lower.Add:
		for k, a := range anc {
			out[k] = src[a] + b[k]
		}
	case op == lower.Mul:
		for k, a := range anc {
			out[k] = src[a] * b[k]
		}
	case op == lower.Sub && !flip:
		for k, a := range anc {
			out[k] = src[a] - b[k]
		}
	case op == lower.Sub:
		for k, a := range anc {
			out[k] = b[k] - src[a]
		}
	case !flip:
		for k, a := range anc {
			out[k] = src[a] / b[k]
		}
	default:
		for k, a := range anc {
			out[k] = b[k] / src[a]
		}
	}
}

// productChain runs a chain of products x1 * x2 * ... * xn (n of 3 or
// 4, chainFactors) as one pass over the batch instead of n - 1,
// multiplying in the same order (the rounding is the chain's). Other
// chains, and shorter ones, are the binary operations they are.
func (rg *region) productChain(x *lower.Binary, l int, chk bool, buf int) fcol {
	factors := rg.chain(x)
	if len(factors) < 3 {
		return nil
	}
	u, cols, ok := rg.chainFactors(factors, l, chk)
	if !ok {
		return nil
	}
	switch {
	case u == nil && len(cols) == 3:
		return func(fr *frame, cx *vctx) []float64 {
			a, b, c := cols[0](fr, cx), cols[1](fr, cx), cols[2](fr, cx)
			out := rg.fbuf(fr, buf, len(a))
			b, c = b[:len(a)], c[:len(a)]
			for k := range out {
				out[k] = a[k] * b[k] * c[k]
			}
			return out
		}
	case u == nil:
		return func(fr *frame, cx *vctx) []float64 {
			a, b, c, d := cols[0](fr, cx), cols[1](fr, cx), cols[2](fr, cx), cols[3](fr, cx)
			out := rg.fbuf(fr, buf, len(a))
			b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
			for k := range out {
				out[k] = a[k] * b[k] * c[k] * d[k]
			}
			return out
		}
	case len(cols) == 2:
		return func(fr *frame, cx *vctx) []float64 {
			v, a, b := u(fr), cols[0](fr, cx), cols[1](fr, cx)
			out := rg.fbuf(fr, buf, len(a))
			b = b[:len(a)]
			for k := range out {
				out[k] = v * a[k] * b[k]
			}
			return out
		}
	}
	return func(fr *frame, cx *vctx) []float64 {
		v, a, b, c := u(fr), cols[0](fr, cx), cols[1](fr, cx), cols[2](fr, cx)
		out := rg.fbuf(fr, buf, len(a))
		b, c = b[:len(a)], c[:len(a)]
		for k := range out {
			out[k] = v * a[k] * b[k] * c[k]
		}
		return out
	}
}

// chain returns the factors x1, ..., xn of e when it is a chain of
// products x1 * x2 * ... * xn of 2 to 4 real factors, parsed left to
// right as the language does (((x1 * x2) * x3) * x4), whose factors
// after the first vary from lane to lane; else nil.
func (rg *region) chain(e lower.Expr) []lower.Expr {
	x, ok := e.(*lower.Binary)
	if !ok || x.Op != lower.Mul || x.Kind() != lower.Real || !rg.varies(x) {
		return nil
	}
	factors := []lower.Expr{x.Y}
	e = x.X
	for {
		b, ok := e.(*lower.Binary)
		if !ok || b.Op != lower.Mul || b.Kind() != lower.Real || !rg.varies(b) {
			break
		}
		factors = append(factors, b.Y)
		e = b.X
	}
	factors = append(factors, e)
	slices.Reverse(factors)
	if len(factors) > 4 {
		return nil
	}
	for _, f := range factors[1:] {
		if !rg.varies(f) {
			return nil
		}
	}
	return factors
}

// chainFactors compiles a chain's factors (chain): u is x1 when it is
// uniform (cols then holds x2..xn), else nil (cols holds x1..xn). ok is
// false when a factor after the first compiles to a uniform value.
func (rg *region) chainFactors(factors []lower.Expr, l int, chk bool) (u fexpr, cols []fcol, ok bool) {
	u, c0 := rg.real(factors[0], l, chk)
	if u == nil {
		cols = append(cols, c0)
	}
	for _, f := range factors[1:] {
		uf, cf := rg.real(f, l, chk)
		if uf != nil {
			return nil, nil, false
		}
		cols = append(cols, cf)
	}
	return u, cols, true
}

// productSumOf is productSum of x when x is a chain of products (chain)
// whose factors compile (chainFactors), else nil.
func (rg *region) productSumOf(x lower.Expr, l int) func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
	factors := rg.chain(x)
	if factors == nil {
		return nil
	}
	u, cols, ok := rg.chainFactors(factors, l, false)
	if !ok {
		return nil
	}
	return productSum(u, cols)
}

// productSum returns, for a chain of products (chainFactors), a function
// that adds the chain's value at every lane of a batch into col, at
// the lane's ancestor (anc, non-nil; addRuns) or into one sum (anc nil,
// returning it): one pass, the products computed in the chain's order
// (a uniform first factor v, or 1: 1 * a is a, exactly) and added in the
// lanes' order, as the product's pass and then the sum's did.
func productSum(u fexpr, cols []fcol) func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
	one := func(*frame) float64 { return 1 }
	if u == nil {
		u = one
	}
	// one case per chain length, kept alike on purpose: each lane's product is written inline, where a loop over cols would cost a call per factor and lane
	switch len(cols) {
	case 1:
		return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
			v, a := u(fr), cols[0](fr, cx)[:cx.n]
			if anc == nil || len(a) == 0 {
				for _, y := range a {
					s += v * y
				}
				return s
			}
			anc = anc[:len(a)]
			prev := anc[0]
			acc := col[prev]
			for k, p := range anc {
				if p != prev {
					col[prev] = acc
					prev, acc = p, col[p]
				}
				acc += v * a[k]
			}
			col[prev] = acc
			return s
		}
	case 2:
		return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
			v, a, b := u(fr), cols[0](fr, cx)[:cx.n], cols[1](fr, cx)
			b = b[:len(a)]
			if anc == nil || len(a) == 0 {
				for k := range a {
					s += v * a[k] * b[k]
				}
				return s
			}
			anc = anc[:len(a)]
			prev := anc[0]
			acc := col[prev]
			for k, p := range anc {
				if p != prev {
					col[prev] = acc
					prev, acc = p, col[p]
				}
				acc += v * a[k] * b[k]
			}
			col[prev] = acc
			return s
		}
	case 3:
		return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
			v, a, b, c := u(fr), cols[0](fr, cx)[:cx.n], cols[1](fr, cx), cols[2](fr, cx)
			b, c = b[:len(a)], c[:len(a)]
			if anc == nil || len(a) == 0 {
				for k := range a {
					s += v * a[k] * b[k] * c[k]
				}
				return s
			}
			anc = anc[:len(a)]
			prev := anc[0]
			acc := col[prev]
			for k, p := range anc {
				if p != prev {
					col[prev] = acc
					prev, acc = p, col[p]
				}
				acc += v * a[k] * b[k] * c[k]
			}
			col[prev] = acc
			return s
		}
	}
	return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
		v, a, b, c, d := u(fr), cols[0](fr, cx)[:cx.n], cols[1](fr, cx), cols[2](fr, cx), cols[3](fr, cx)
		b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
		if anc == nil || len(a) == 0 {
			for k := range a {
				s += v * a[k] * b[k] * c[k] * d[k]
			}
			return s
		}
		anc = anc[:len(a)]
		prev := anc[0]
		acc := col[prev]
		for k, p := range anc {
			if p != prev {
				col[prev] = acc
				prev, acc = p, col[p]
			}
			acc += v * a[k] * b[k] * c[k] * d[k]
		}
		col[prev] = acc
		return s
	}
}
