package nablasd_test

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
)

// TestValidateOnBinding: a tensor breaking its format's invariants is an
// error naming the input when it is bound, by Prepare and by Run given
// new inputs; Options.NoValidate trusts it.
func TestValidateOnBinding(t *testing.T) {
	good := &formats.Tensor{Format: formats.CSR, Shape: []int{2, 3},
		Pos: [][]int{nil, {0, 2, 3}}, Idx: [][]int{nil, {0, 2, 1}}, Val: []float64{1, 2, 3}}
	unsorted := &formats.Tensor{Format: formats.CSR, Shape: []int{2, 3},
		Pos: [][]int{nil, {0, 2, 3}}, Idx: [][]int{nil, {2, 0, 1}}, Val: []float64{1, 2, 3}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	if unsorted.Validate() == nil {
		t.Fatal("the unsorted CSR validates")
	}
	const src = "sum(<i, row> in A) sum(<j, a> in row) a * x(j)"
	x := []float64{1, 10, 100}
	if _, err := nablasd.Prepare(src, nablasd.Inputs{"A": unsorted, "x": x}, nil); err == nil || !strings.Contains(err.Error(), "input A") {
		t.Fatalf("Prepare with an invalid tensor: %v, want an error naming input A", err)
	}
	if _, err := nablasd.Prepare(src, nablasd.Inputs{"A": unsorted, "x": x}, &nablasd.Options{NoValidate: true}); err != nil {
		t.Fatalf("Prepare with NoValidate: %v", err)
	}
	q, err := nablasd.Prepare(src, nablasd.Inputs{"A": good, "x": x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.Compile()
	if err != nil {
		t.Fatal(err)
	}
	dst := k.NewResult()
	if err := k.Run(dst, nil); err != nil {
		t.Fatal(err)
	}
	if got := dst.Scalar(); got != 1+200+30 {
		t.Fatalf("got %v, want 231", got)
	}
	if err := k.Run(dst, nablasd.Inputs{"A": unsorted}); err == nil || !strings.Contains(err.Error(), "input A") {
		t.Fatalf("Run rebinding an invalid tensor: %v, want an error naming input A", err)
	}
	// NoValidate trusts the tensors Run is given too: no pass over their
	// coordinates (formats.BindTrusted), so the unsorted one runs
	q, err = nablasd.Prepare(src, nablasd.Inputs{"A": good, "x": x}, &nablasd.Options{NoValidate: true})
	if err != nil {
		t.Fatal(err)
	}
	if k, err = q.Compile(); err != nil {
		t.Fatal(err)
	}
	dst = k.NewResult()
	if err := k.Run(dst, nablasd.Inputs{"A": unsorted}); err != nil {
		t.Fatalf("Run with NoValidate rebinding an unsorted tensor: %v", err)
	}
	if got := dst.Scalar(); got != 100+2+30 {
		t.Fatalf("got %v, want 132 (the unsorted row read as stored)", got)
	}
}
