package nablasd

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Result is a kernel's destination: after Run, the value of a program or
// of a gradient, a scalar or a tensor. A compiled kernel fills it in
// place, reusing its storage run after run.
type Result struct {
	t     sdql.Type
	shape []int
	ex    *exec.Result // the compiled kernel's destination
	jr    *jitResult   // the JIT's destination (Options.Exec "jit")
	owner *exec.Kernel // the kernel ex belongs to
	// idle keeps the destination of the executor that did not fill it
	// last, while an "auto" kernel runs both in turn (tier.go)
	idle *idleDest
	// v is the value when it is not ex's: the interpreter's, or a
	// gradient completed to its input's stored positions; pending
	// computes that completion when the result is first read (settle)
	v       sdql.Value
	pending func() sdql.Value
	// onto is the tensor input a pending completion completes to, when
	// the run's input was one: Entries merges with its coordinates
	// instead (completedEntries)
	onto *formats.Tensor
	// k is the kernel that ran last into r, inputs the inputs that run
	// rebound (nil: the query's), label what r is ("value", "grad x"):
	// for CheckFinite
	k      *Kernel
	inputs Inputs
	label  string
}

// settle computes a pending completion of the last run's gradient.
func (r *Result) settle() {
	if r.pending != nil {
		r.v, r.pending, r.onto = r.pending(), nil, nil
	}
}

// Type returns the result's type (real for a scalar, {int -> real} for a
// vector, ...).
func (r *Result) Type() sdql.Type { return r.t }

// Order returns the number of indices of a tensor result (0 for a
// scalar).
func (r *Result) Order() int { return max(sdql.Order(r.t), 0) }

// Shape returns the result's extents, mode by mode, as far as the program
// tells them from its inputs' shapes (a gradient: the result's, then the
// input's); 0 where unknown (one past the largest key is then the
// extent). It is nil for a scalar.
func (r *Result) Shape() []int { return append([]int(nil), r.shape...) }

// Scalar returns a scalar result (0 for a tensor).
func (r *Result) Scalar() float64 {
	r.settle()
	if r.v == nil && r.jr != nil {
		return r.jr.scalar
	}
	if r.v == nil && r.ex != nil {
		return r.ex.Scalar()
	}
	f, _ := r.v.(sdql.Real)
	if i, ok := r.v.(sdql.Int); ok {
		return float64(i)
	}
	return float64(f)
}

// Value returns the result as an sdql value (a literal's worth of nested
// dictionaries: for printing and comparing, not for large results).
func (r *Result) Value() sdql.Value {
	r.settle()
	if r.v == nil && r.jr != nil {
		return r.jr.value(r.t)
	}
	if r.v == nil && r.ex != nil {
		return r.ex.Value()
	}
	if r.v == nil {
		return sdql.Zero(r.t)
	}
	return r.v
}

// String prints the result as an SDQL literal with sorted keys:
// {0 -> 1.5, 3 -> 2}, or a number.
func (r *Result) String() string { return sdql.FormatValue(r.Value()) }

// Entries calls f for every stored entry of a tensor result with its keys
// (outermost first, in ascending order) and value, until f returns false;
// coords is reused between calls. It reads the result in place.
func (r *Result) Entries(f func(coords []int, v float64) bool) error {
	if r.Order() < 1 {
		return fmt.Errorf("nablasd: the result is a scalar, not a tensor")
	}
	if r.pending != nil && r.onto != nil {
		if ok, err := r.completedEntries(r.onto, f); ok {
			return err
		}
	}
	r.settle()
	if r.v == nil && r.jr != nil {
		r.jr.k.entries(r.jr.dst, f)
		return nil
	}
	if r.v == nil && r.ex != nil {
		return r.ex.Entries(f)
	}
	coords := make([]int, 0, r.Order())
	var walk func(v sdql.Value) bool
	walk = func(v sdql.Value) bool {
		d, ok := v.(*sdql.Dict)
		if !ok {
			x, _ := v.(sdql.Real)
			return f(coords, float64(x))
		}
		for _, k := range d.Keys() {
			x, _ := d.Get(k)
			coords = append(coords, k)
			more := walk(x)
			coords = coords[:len(coords)-1]
			if !more {
				return false
			}
		}
		return true
	}
	walk(r.Value())
	return nil
}

// Size returns the bytes a compiled kernel's destination holds (its
// arrays' and indexes' capacity); 0 for the interpreter's values and
// scalars.
func (r *Result) Size() int64 {
	r.settle()
	if r.v == nil && r.ex != nil {
		return r.ex.Size()
	}
	return 0
}

// Extents returns the result's shape for writing it: Shape where known,
// else one past the largest key of each mode.
func (r *Result) Extents() ([]int, error) {
	order := r.Order()
	if order < 1 {
		return nil, fmt.Errorf("nablasd: the result is a scalar, not a tensor")
	}
	out := make([]int, order)
	copy(out, r.shape)
	unknown := false
	for _, n := range out {
		unknown = unknown || n == 0
	}
	if !unknown {
		return out, nil
	}
	seen := make([]int, order)
	err := r.Entries(func(c []int, _ float64) bool {
		for m, k := range c {
			if m < order {
				seen[m] = max(seen[m], k+1)
			}
		}
		return true
	})
	for m := range out {
		if out[m] == 0 {
			out[m] = seen[m]
		}
	}
	return out, err
}

// Tensor stores a tensor result in format f, with the result's extents
// (Extents); every stored key is kept, explicit zeros included.
func (r *Result) Tensor(f formats.Format) (*formats.Tensor, error) {
	shape, err := r.Extents()
	if err != nil {
		return nil, err
	}
	order := len(shape)
	idx := make([][]int, order)
	var val []float64
	if err := r.Entries(func(c []int, v float64) bool {
		for m := range idx {
			idx[m] = append(idx[m], c[m])
		}
		val = append(val, v)
		return true
	}); err != nil {
		return nil, err
	}
	return formats.FromCoords(shape, idx, val, f)
}

// Dense returns a tensor result as a dense row-major array over its
// extents (Extents), zeros where nothing is stored: for a vector, its
// values by index, ready for gonum's mat.NewVecDense.
func (r *Result) Dense() ([]float64, error) {
	shape, err := r.Extents()
	if err != nil {
		return nil, err
	}
	size := 1
	for _, n := range shape {
		if n > 0 && size > int(^uint(0)>>1)/n {
			return nil, fmt.Errorf("nablasd: a dense %v array is too large", shape)
		}
		size *= n
	}
	out := make([]float64, size)
	var bad error
	err = r.Entries(func(c []int, v float64) bool {
		p := 0
		for m, k := range c {
			if k < 0 || k >= shape[m] {
				bad = fmt.Errorf("nablasd: key %d of mode %d outside the result's extent %d", k, m, shape[m])
				return false
			}
			p = p*shape[m] + k
		}
		out[p] += v
		return true
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// WriteMatrixMarket writes a vector or matrix result as a coordinate
// Matrix Market file (a vector as an n×1 matrix) of its extents
// (Extents), entries in ascending key order and reals in Go's shortest
// round-trip form. It streams the result through a buffer: besides the
// result it takes the buffer's memory, not a copy.
func (r *Result) WriteMatrixMarket(w io.Writer, opts *datasets.WriteOptions) error {
	if o := r.Order(); o != 1 && o != 2 {
		if o == 0 {
			return fmt.Errorf("the result is a scalar (%s); Matrix Market holds vectors and matrices", r)
		}
		return fmt.Errorf("the result has order %d; Matrix Market holds vectors and matrices", o)
	}
	shape, err := r.Extents()
	if err != nil {
		return err
	}
	n := 0
	if err := r.Entries(func([]int, float64) bool { n++; return true }); err != nil {
		return err
	}
	mw, err := datasets.NewMatrixMarketWriter(w, shape, n, opts)
	if err != nil {
		return err
	}
	if err := r.Entries(func(c []int, v float64) bool {
		err = mw.Write(c, v)
		return err == nil
	}); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	return mw.Close()
}
