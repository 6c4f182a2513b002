package nablasd

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// backoff is a line search that a point of no finite loss or slope sends
// back: a step too long for the program's arithmetic (log(1 + exp(z))
// past z ≈ 710, a log of a negative number) is not a minimum to bracket
// but a bound to stay under. gonum's line searches interpolate the values
// they are given, and an infinite or NaN value would poison them; so
// backoff keeps the shortest step found not finite (hi) and the longest
// found finite (lo), and starts the search under it again from the same
// start at their midpoint (a tenth of hi while no step was finite), a
// Moré–Thuente search (which extrapolates) bounded by that step. Where the
// loss still falls at that bound (gonum's ErrLinesearcherBound), the
// interval's lower end rises to it and the search starts again higher,
// until it brackets a minimum or the interval closes on the last finite
// step, which is taken when it decreases the loss enough (Armijo). Up to
// maxBackoffs restarts in a line search; a finite point goes to the
// search as it is.
type backoff struct {
	ls optimize.Linesearcher
	// mt is ls when it is Moré–Thuente; maxStep its own MaximumStep
	mt      *optimize.MoreThuente
	maxStep float64
	f0, g0  float64 // the line search's start: φ(0), φ'(0)
	step    float64 // the step last asked for
	op      optimize.Operation
	// lo is the longest finite step, loF its value; hi the shortest step
	// that is not finite (+Inf: none)
	lo, loF, hi float64
	backoffs    int
	// accepting: lo is being evaluated again to end the search there
	accepting bool
	// over the fit: the line searches, the points sent back, and the
	// line search that sent back the last
	searches, nonFinites, lastNonFinite int
}

// newBackoff wraps a line search.
func newBackoff(ls optimize.Linesearcher) *backoff {
	b := &backoff{ls: ls}
	if mt, ok := ls.(*optimize.MoreThuente); ok {
		b.mt, b.maxStep = mt, mt.MaximumStep
	}
	return b
}

// maxBackoffs bounds the restarts of one line search: 60 halvings of the
// interval between a finite step and one that is not leave no room.
const maxBackoffs = 60

// armijo is the sufficient decrease a last finite step must give to be
// taken.
const armijo = 1e-4

// errNoFiniteStep is the line search's failure when no step is short
// enough.
var errNoFiniteStep = errors.New("linesearch: no step along the direction gives a finite loss")

func (b *backoff) Init(value, derivative, step float64) optimize.Operation {
	b.f0, b.g0, b.step, b.backoffs, b.accepting = value, derivative, step, 0, false
	b.searches++
	b.lo, b.loF, b.hi = 0, value, math.Inf(1)
	if b.mt != nil {
		b.mt.MaximumStep = b.maxStep
	}
	b.op = b.ls.Init(value, derivative, step)
	return b.op
}

func (b *backoff) Iterate(value, derivative float64) (optimize.Operation, float64, error) {
	if b.accepting {
		b.accepting = false
		b.op = optimize.MajorIteration
		return b.op, b.step, nil
	}
	// a value or slope not asked for is NaN: only those asked count
	bad := b.op&optimize.FuncEvaluation != 0 && (math.IsInf(value, 0) || math.IsNaN(value)) ||
		b.op&optimize.GradEvaluation != 0 && (math.IsInf(derivative, 0) || math.IsNaN(derivative))
	if bad {
		b.nonFinites++
		b.lastNonFinite = b.searches
		b.hi = min(b.hi, b.step)
		return b.restart()
	}
	if b.step > b.lo && b.step < b.hi && b.op&optimize.FuncEvaluation != 0 {
		b.lo, b.loF = b.step, value
	}
	op, step, err := b.ls.Iterate(value, derivative)
	if errors.Is(err, optimize.ErrLinesearcherBound) && !math.IsInf(b.hi, 1) {
		// the loss still falls at the bound we set: look higher
		return b.restart()
	}
	b.op, b.step = op, step
	return op, step, err
}

// restart starts the search again at the midpoint of lo and hi (a tenth
// of hi without a finite step), bounded there; when the interval has
// closed it takes lo, if it decreases the loss enough.
func (b *backoff) restart() (optimize.Operation, float64, error) {
	next := b.hi / 10
	if b.lo > 0 {
		next = (b.lo + b.hi) / 2
	}
	if b.backoffs++; b.backoffs > maxBackoffs || next <= b.lo || next >= b.hi {
		if b.lo > 0 && b.loF <= b.f0+armijo*b.lo*b.g0 {
			// evaluate lo again (the last point evaluated is another),
			// then end there
			b.accepting, b.step = true, b.lo
			b.op = optimize.FuncEvaluation | optimize.GradEvaluation
			return b.op, b.step, nil
		}
		return optimize.NoOperation, 0, errNoFiniteStep
	}
	if b.mt != nil {
		b.mt.MaximumStep = next
	}
	b.op, b.step = b.ls.Init(b.f0, b.g0, next), next
	return b.op, next, nil
}
