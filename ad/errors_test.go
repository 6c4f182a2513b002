package ad

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

func TestOpWithoutDerivative(t *testing.T) {
	sdql.Ops["floor"] = &sdql.Op{Name: "floor", Fn: math.Floor}
	defer delete(sdql.Ops, "floor")
	e, err := sdql.Parse("prog.sdql", "sum(<i, a> in V)\n  a * floor(a)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Grad(e, "V", nil)
	var se *sdql.Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want an *sdql.Error", err)
	}
	if se.Pos != (sdql.Pos{Line: 2, Col: 7}) || !strings.Contains(se.Msg, "floor") || !strings.Contains(se.Msg, "no derivative") {
		t.Errorf("got %q at %s, want a message about floor's derivative at 2:7", se.Msg, se.Pos)
	}
	// the same program without a tangent through floor is fine
	if _, err := Grad(sdql.MustParse("sum(<i, a> in V) a * floor(2.0)"), "V", nil); err != nil {
		t.Errorf("floor of a constant: %v", err)
	}
}

func TestTensorizedBadTau(t *testing.T) {
	if _, err := Tensorized(sdql.MustParse("x"), nil, sdql.IntType); err == nil {
		t.Error("Tensorized with τ = int: no error")
	}
}
