package ad

import (
	"fmt"

	"github.com/nablasd/nablasd/sdql"
)

// Mode selects how a derivative is computed.
type Mode int

// The modes. ModeAuto chooses one per program (ChooseMode).
const (
	ModeAuto Mode = iota
	// ModeForward is tensorized forward mode (Fig. 6 and 7): one sweep
	// whose tangents carry the wrt input's indices.
	ModeForward
	// ModeReverse is reverse mode: linearize, unzip, transpose (Reverse).
	ModeReverse
)

// ParseMode parses "auto", "forward" or "reverse" ("" is auto).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return ModeAuto, nil
	case "forward":
		return ModeForward, nil
	case "reverse":
		return ModeReverse, nil
	}
	return ModeAuto, fmt.Errorf("unknown mode %q (want auto, forward or reverse)", s)
}

// String returns the mode's name as ParseMode reads it.
func (m Mode) String() string {
	switch m {
	case ModeForward:
		return "forward"
	case ModeReverse:
		return "reverse"
	}
	return "auto"
}

// ChooseMode resolves ModeAuto for the derivative of e with respect to the
// wrt inputs, by a static cost estimate. A Jacobian costs about the
// program's work times the number of directions seeded: forward mode seeds
// one direction per stored entry of the wrt inputs (Σ over them), reverse
// mode one per stored entry of the result, and the reverse sweep's work
// does not grow with the program's depth. Without the inputs' sizes an
// order-n tensor is taken to have about dⁿ entries for one common
// dimension d, so the estimate compares orders: reverse when the result's
// order is below the largest wrt order (a scalar result with a vector or
// matrix input: every loss and gradient-descent objective), forward
// otherwise (equal orders keep forward mode, whose single sweep the
// optimizer reduces to closed forms on one-layer programs). A caller that
// can estimate both programs' costs (the pipeline, with fuse's cost model
// and the inputs' sizes) may refine the choice.
func ChooseMode(e sdql.Expr, wrt []string, inputs map[string]sdql.Type) (Mode, error) {
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return ModeAuto, err
	}
	res := sdql.Order(info.Result)
	most := -1
	for _, w := range wrt {
		t, ok := info.Free[w]
		if !ok {
			t = inputs[w]
		}
		most = max(most, sdql.Order(t))
	}
	if res >= 0 && res < most {
		return ModeReverse, nil
	}
	return ModeForward, nil
}

// Derive returns the program that computes what req asks for, in the
// given mode (ModeAuto: ChooseMode; a cotangent needs reverse mode), and
// describes its results. In forward mode each gradient is a program of its
// own (Grad) and the value the program itself, bundled.
func Derive(e sdql.Expr, req *Request, mode Mode, inputs map[string]sdql.Type) (sdql.Expr, *Outputs, Mode, error) {
	if mode == ModeAuto {
		if req.Cotangent != "" {
			mode = ModeReverse
		} else {
			m, err := ChooseMode(e, req.Wrt, inputs)
			if err != nil {
				return nil, nil, mode, err
			}
			mode = m
		}
	}
	if mode == ModeReverse {
		st, err := Reverse(e, req, inputs)
		if err != nil {
			return nil, nil, mode, err
		}
		return st.Result, &st.Outputs, mode, nil
	}
	if req.Cotangent != "" {
		return nil, nil, mode, fmt.Errorf("a vector–Jacobian product needs reverse mode")
	}
	if err := checkRequest(e, req, inputs); err != nil {
		return nil, nil, mode, err
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, nil, mode, err
	}
	out := &Outputs{}
	var results []sdql.Expr
	if req.Value {
		results = append(results, clone(e))
		out.Names = append(out.Names, "value")
		out.Types = append(out.Types, info.Result)
	}
	for _, w := range req.Wrt {
		g, err := Grad(e, w, inputs)
		if err != nil {
			return nil, nil, mode, err
		}
		tw, ok := info.Free[w]
		if !ok {
			tw = inputs[w]
		}
		results = append(results, g)
		out.Names = append(out.Names, w)
		out.Types = append(out.Types, sdql.Outer(info.Result, tw))
	}
	return bundle(results, out.Types), out, mode, nil
}
