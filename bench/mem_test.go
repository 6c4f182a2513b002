package bench

import (
	"errors"
	"testing"
)

var sink []byte

func TestAllocatedBy(t *testing.T) {
	const n = 1 << 20
	if got := AllocatedBy(func() { sink = make([]byte, n) }); got < n || got > 2*n {
		t.Errorf("AllocatedBy(make 1 MiB) = %d bytes", got)
	}
	sink = nil
}

// TestPeakRSS checks that touching 64 MiB raises the peak by about that
// much, and that memory freed before the measurement is not counted.
func TestPeakRSS(t *testing.T) {
	const n = 64 << 20
	touch := func() {
		sink = make([]byte, n)
		for i := 0; i < n; i += 4096 {
			sink[i] = 1
		}
	}
	touch()
	sink = nil
	extra, base, err := PeakRSS(touch)
	if errors.Is(err, ErrNoPeakRSS) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	sink = nil
	if base <= 0 || extra < n*9/10 || extra > n*3/2 {
		t.Errorf("PeakRSS(touch 64 MiB) = %d bytes above a baseline of %d", extra, base)
	}
}
