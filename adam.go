package nablasd

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// Adam is the Adam method (Kingma and Ba, "Adam: A Method for Stochastic
// Optimization", ICLR 2015, Algorithm 1) as a gonum optimize.Method: each
// iteration evaluates the loss and gradient at the iterate and steps by
// the bias-corrected first moment over the square root of the second,
// times LearningRate. Gonum has no Adam; it is the one method nablasd
// writes by hand. It takes no line search, so its loss need not decrease
// at every iteration.
type Adam struct {
	// LearningRate is the step α (0: 1e-3). Beta1 and Beta2 are the
	// moments' decay rates (0: 0.9 and 0.999), Epsilon the denominator's
	// guard (0: 1e-8).
	LearningRate, Beta1, Beta2, Epsilon float64

	m, v []float64
	t    int
}

var _ optimize.Method = (*Adam)(nil)

// Init starts a run of dim values; Adam evaluates one point at a time.
func (a *Adam) Init(dim, tasks int) int {
	a.m, a.v, a.t = make([]float64, dim), make([]float64, dim), 0
	return 1
}

// Uses needs the gradient.
func (a *Adam) Uses(has optimize.Available) (optimize.Available, error) {
	if !has.Grad {
		return optimize.Available{}, errors.New("nablasd: Adam needs the gradient")
	}
	return optimize.Available{Grad: true}, nil
}

// Run is gonum's protocol of a Method: evaluate, report a major
// iteration, step, until Minimize answers PostIteration.
func (a *Adam) Run(operation chan<- optimize.Task, result <-chan optimize.Task, tasks []optimize.Task) {
	lr, b1, b2, eps := a.LearningRate, a.Beta1, a.Beta2, a.Epsilon
	if lr == 0 {
		lr = 1e-3
	}
	if b1 == 0 {
		b1 = 0.9
	}
	if b2 == 0 {
		b2 = 0.999
	}
	if eps == 0 {
		eps = 1e-8
	}
	task := tasks[0]
	const both = optimize.FuncEvaluation | optimize.GradEvaluation
	if task.Op&both != both {
		task.Op = both
		operation <- task
		if task = <-result; task.Op == optimize.PostIteration {
			a.finish(operation, result)
			return
		}
	}
	for {
		task.Op = optimize.MajorIteration
		operation <- task
		if task = <-result; task.Op == optimize.PostIteration {
			break
		}
		a.t++
		c1, c2 := 1-math.Pow(b1, float64(a.t)), 1-math.Pow(b2, float64(a.t))
		for i, g := range task.Gradient {
			a.m[i] = b1*a.m[i] + (1-b1)*g
			a.v[i] = b2*a.v[i] + (1-b2)*g*g
			task.X[i] -= lr * (a.m[i] / c1) / (math.Sqrt(a.v[i]/c2) + eps)
		}
		task.Op = both
		operation <- task
		if task = <-result; task.Op == optimize.PostIteration {
			break
		}
	}
	a.finish(operation, result)
}

// finish drains the results and closes the operations, as gonum's own
// methods end.
func (a *Adam) finish(operation chan<- optimize.Task, result <-chan optimize.Task) {
	for range result {
	}
	close(operation)
}
