package nablasd

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Non-finite results
//
// A kernel computes with IEEE floats: exp(800) is an infinity, inf / inf
// a NaN, and nothing stops there. Kernels check nothing while they run
// (their loops stay free of it); Result.NonFinite scans a result after
// the run, and Result.CheckFinite also finds where the first NaN or
// infinity appears, by running the reference interpreter again over the
// run's inputs with its NonFinite hook (sdql.Interp): the input that holds
// one, or the first operation that makes one, at its place in the program.

// NonFinite describes a result that holds a NaN or an infinity. It is an
// error too (--check-finite returns it).
type NonFinite struct {
	// Result names the result: "value", "grad x" (the gradient with
	// respect to x), "vjp x", "jvp" or "hvp x".
	Result string
	// Key is the first entry holding one, keys in ascending order (nil
	// for a scalar result), and Value its value.
	Key   []int
	Value float64
	// Count is how many of the result's Entries stored entries hold one.
	Count, Entries int64
	// Origin says where one first appears, when CheckFinite found it
	// ("the input b holds nan at key 3", "it first appears in exp(v) at
	// 1:29: exp(800) = inf"), or why it did not; "" after NonFinite
	// alone.
	Origin string
}

// Error is the description: "grad z has nan at key 1 (1 of 3 entries are
// not finite); it first appears ...".
func (n *NonFinite) Error() string {
	var b strings.Builder
	what := n.Result
	if what == "" {
		what = "the result"
	}
	if n.Key == nil {
		fmt.Fprintf(&b, "%s is %s", what, sdql.FormatReal(n.Value))
	} else {
		fmt.Fprintf(&b, "%s has %s at key %s (%d of %d entries are not finite)", what, sdql.FormatReal(n.Value), keyString(n.Key), n.Count, n.Entries)
	}
	if n.Origin != "" {
		b.WriteString("; ")
		b.WriteString(n.Origin)
	}
	return b.String()
}

// keyString prints keys as 3, or (3, 1) for several.
func keyString(key []int) string {
	if len(key) == 1 {
		return fmt.Sprint(key[0])
	}
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = fmt.Sprint(k)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// NonFinite scans the result for NaNs and infinities: nil when it holds
// none, else the first (in key order) and how many. It reads the result
// once, in place.
func (r *Result) NonFinite() *NonFinite {
	nf := &NonFinite{Result: r.label}
	if r.Order() == 0 {
		x := r.Scalar()
		if isFinite(x) {
			return nil
		}
		nf.Value, nf.Count, nf.Entries = x, 1, 1
		return nf
	}
	err := r.Entries(func(c []int, v float64) bool {
		nf.Entries++
		if !isFinite(v) {
			if nf.Count == 0 {
				nf.Key, nf.Value = slices.Clone(c), v
			}
			nf.Count++
		}
		return true
	})
	if err != nil || nf.Count == 0 {
		return nil
	}
	return nf
}

// locateMaxOps bounds the reference interpreter's work when CheckFinite
// looks for where a NaN or an infinity appears: a few seconds at most.
const locateMaxOps = 200_000_000

// CheckFinite is NonFinite, and when the result holds a NaN or an
// infinity it finds where the first appears (NonFinite.Origin): an input
// that holds one, or the first operation that makes one, by running the
// reference interpreter over the run's inputs (the logical program, and
// for a derivative the derivative program too) up to that operation, at
// most locateMaxOps operations. Kernels run unchecked: this costs a scan
// of the result, and a rerun by the interpreter only when there is
// something to find.
func (r *Result) CheckFinite() *NonFinite {
	nf := r.NonFinite()
	if nf != nil {
		nf.Origin = r.locate(nf)
	}
	return nf
}

// event is an operation that made a NaN or an infinity (sdql.Interp's
// NonFinite hook).
type event struct {
	at     sdql.Expr
	args   []float64
	result float64
}

// locate finds where the first NaN or infinity of nf appears.
func (r *Result) locate(nf *NonFinite) string {
	k := r.k
	if k == nil {
		return ""
	}
	q := k.q
	vals, err := k.logicalInputs(r.inputs)
	if err != nil {
		return fmt.Sprintf("not located: %v", err)
	}
	if where := nonFiniteInput(q, r.inputs); where != "" {
		return where
	}
	wantNaN := math.IsNaN(nf.Value)
	// the program's value: where the user's source first goes non-finite
	vroot, vmatch, verr := firstEvents(q.name, q.prog, q.info, vals, wantNaN)
	if k.plan.req.kind == "value" || r.label == "value" {
		switch {
		case vmatch != nil && vroot != vmatch:
			return fmt.Sprintf("it first appears in %s, after %s", describe(vmatch, ""), describe(vroot, ""))
		case vmatch != nil:
			return "it first appears in " + describe(vmatch, "")
		case verr != nil:
			return fmt.Sprintf("not located: %v", verr)
		}
		return notLocated
	}
	// a derivative: its own program makes what the value's does not
	info, err := sdql.Check(k.plan.derivative, &sdql.CheckConfig{File: q.name, Inputs: q.types, Strict: true})
	if err != nil {
		return fmt.Sprintf("not located: internal error: the derivative program does not check: %v", err)
	}
	droot, dmatch, derr := firstEvents(q.name, k.plan.derivative, info, vals, wantNaN)
	prog := map[string]string{"grad": "the gradient's program", "vjp": "the VJP's program", "jvp": "the JVP's program", "hvp": "the HVP's program"}[k.plan.req.kind]
	cause := vroot // the user's source, where it has a place
	if cause == nil {
		cause = droot
	}
	switch {
	case dmatch == nil && derr != nil:
		return fmt.Sprintf("not located: %v", derr)
	case dmatch == nil:
		return notLocated
	case cause == nil || sameEvent(cause, dmatch):
		return "it first appears in " + describe(dmatch, prog)
	}
	causeProg := ""
	if cause != vroot {
		causeProg = prog
	}
	return fmt.Sprintf("it first appears in %s, after %s", describe(dmatch, prog), describe(cause, causeProg))
}

// notLocated is the origin when the reference interpreter's run stays
// finite where the kernel's did not: the optimized program computes in
// another order.
const notLocated = "not located: the reference interpreter's run of the program stays finite (the optimized program computes in another order; --opt none runs the program as written)"

// firstEvents runs prog by the reference interpreter over vals and
// returns its first operation that makes a NaN or an infinity (root),
// and the first that makes a NaN (wantNaN) or an infinity (match).
func firstEvents(file string, prog sdql.Expr, info *sdql.Info, vals map[string]sdql.Value, wantNaN bool) (root, match *event, err error) {
	in := &sdql.Interp{File: file, MaxOps: locateMaxOps, NonFinite: func(at sdql.Expr, args []float64, result float64) bool {
		ev := &event{at: at, args: slices.Clone(args), result: result}
		if root == nil {
			root = ev
		}
		if math.IsNaN(result) == wantNaN {
			match = ev
			return false
		}
		return true
	}}
	_, err = in.Run(prog, info, vals)
	switch {
	case match != nil:
		return root, match, nil
	case errors.Is(err, sdql.ErrMaxOps):
		return root, nil, fmt.Errorf("the reference interpreter stopped after %d operations", locateMaxOps)
	case err != nil && !errors.Is(err, sdql.ErrStopped):
		return root, nil, fmt.Errorf("the reference interpreter failed: %v", err)
	}
	return root, nil, nil
}

func sameEvent(a, b *event) bool {
	return a.at.Pos() == b.at.Pos() && sdql.Print(a.at) == sdql.Print(b.at) && a.result == b.result ||
		math.IsNaN(a.result) && math.IsNaN(b.result) && sdql.Print(a.at) == sdql.Print(b.at)
}

// describe prints an event: "exp(v) at 1:29: exp(800) = inf"; in a
// derivative's program (prog), whose nodes' places are those of the
// source they were derived from, "t * (1.0 / t1) in the gradient's
// program: inf * 0 = nan".
func describe(ev *event, prog string) string {
	where := strings.Join(strings.Fields(sdql.Print(ev.at)), " ")
	if len(where) > 60 {
		where = where[:57] + "..."
	}
	switch p := ev.at.Pos(); {
	case prog != "":
		where += " in " + prog
	case p.IsValid():
		where += " at " + p.String()
	}
	f := sdql.FormatReal
	res := f(ev.result)
	switch e := ev.at.(type) {
	case *sdql.CallExpr:
		args := make([]string, len(ev.args))
		for i, a := range ev.args {
			args[i] = f(a)
		}
		return fmt.Sprintf("%s: %s(%s) = %s", where, e.Op, strings.Join(args, ", "), res)
	case *sdql.BinaryExpr:
		if len(ev.args) == 2 {
			return fmt.Sprintf("%s: %s %s %s = %s", where, f(ev.args[0]), e.Op, f(ev.args[1]), res)
		}
	case *sdql.SumExpr:
		if len(ev.args) == 2 {
			return fmt.Sprintf("%s: the sum's addition %s + %s = %s", where, f(ev.args[0]), f(ev.args[1]), res)
		}
	}
	return fmt.Sprintf("%s gives %s", where, res)
}

// nonFiniteInput names the first input of a run (in name order) that
// holds a NaN or an infinity, and where; "" when none does.
func nonFiniteInput(q *Query, rebound Inputs) string {
	for _, n := range slices.Sorted(maps.Keys(q.inputs)) {
		in := q.inputs[n]
		if v, ok := rebound[n]; ok {
			if c, err := convertInput(n, v, false); err == nil {
				in = c
			}
		}
		switch {
		case in.tensor != nil:
			for _, v := range in.tensor.Val {
				if isFinite(v) {
					continue
				}
				idx, val, err := in.tensor.Coords()
				if err != nil {
					return fmt.Sprintf("the input %s holds %s", n, sdql.FormatReal(v))
				}
				// the first in key order, as the result's is
				first := -1
				for e, x := range val {
					if !isFinite(x) && (first < 0 || lessKey(idx, e, first)) {
						first = e
					}
				}
				key := make([]int, len(idx))
				for m := range idx {
					key[m] = idx[m][first]
				}
				return fmt.Sprintf("the input %s holds %s at key %s", n, sdql.FormatReal(val[first]), keyString(key))
			}
		case in.isNum:
			if !isFinite(in.number) {
				return fmt.Sprintf("the input %s is %s", n, sdql.FormatReal(in.number))
			}
		case in.logical != nil:
			if x, bad := sdql.FirstNonFinite(in.logical); bad {
				return fmt.Sprintf("the input %s holds %s", n, sdql.FormatReal(x))
			}
		}
	}
	return ""
}

// lessKey compares entries a and b of coordinate arrays.
func lessKey(idx [][]int, a, b int) bool {
	for m := range idx {
		if idx[m][a] != idx[m][b] {
			return idx[m][a] < idx[m][b]
		}
	}
	return false
}

// logicalInputs are the logical values of a run's inputs: the query's,
// with those the run rebound (Kernel.Run's inputs) in their place.
func (k *Kernel) logicalInputs(rebound Inputs) (map[string]sdql.Value, error) {
	vals := k.q.logicalValues()
	for n, v := range rebound {
		in, err := convertInput(n, v, false)
		if err != nil {
			return nil, err
		}
		switch {
		case in.tensor != nil:
			vals[n] = formats.ToValue(in.tensor)
		case in.isNum:
			if err := in.resolve(k.q.types[n]); err != nil {
				return nil, err
			}
			vals[n] = in.logical
		default:
			vals[n] = in.logical
		}
	}
	return vals, nil
}

// label names a kernel's result when it has one (NonFinite.Result).
func (k *Kernel) label() string {
	r := k.plan.req
	if o := k.plan.Outputs; o != nil && o.Bundled() {
		return "the results"
	}
	switch r.kind {
	case "value":
		return "value"
	case "jvp":
		return "jvp"
	}
	if len(r.wrt) == 1 {
		return r.kind + " " + r.wrt[0]
	}
	return r.kind
}

// outputLabel names one of a bundled kernel's results.
func (k *Kernel) outputLabel(name string) string {
	switch {
	case name == "value":
		return "value"
	case k.plan.req.kind == "jvp":
		return "jvp"
	}
	return k.plan.req.kind + " " + name
}
