package formats

import "testing"

// TestLayoutOrders: every format refuses orders below 1 with an error (a
// caller asking for the formats of a non-tensor, order -1, or of a
// scalar, order 0) instead of panicking, and ForOrder lists none for them.
func TestLayoutOrders(t *testing.T) {
	for _, f := range All() {
		for _, order := range []int{-1, 0} {
			if _, err := f.Layout(order); err == nil {
				t.Errorf("%s: Layout(%d) gave no error", f, order)
			}
			if f.Supports(order) {
				t.Errorf("%s supports order %d", f, order)
			}
		}
		if !f.Supports(2) {
			t.Errorf("%s does not support matrices", f)
		}
	}
	for _, order := range []int{-1, 0} {
		if fs := ForOrder(order); len(fs) != 0 {
			t.Errorf("ForOrder(%d) = %v", order, fs)
		}
	}
	if n := len(ForOrder(2)); n != len(All()) {
		t.Errorf("ForOrder(2) has %d formats, All %d", n, len(All()))
	}
}
