package datasets

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadMatrixMarket checks that no input panics, that errors are
// positioned ParseErrors, that results are in range, and that allocation
// stays bounded by the input's size, not by what its header declares.
func FuzzReadMatrixMarket(f *testing.F) {
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n3 4 2\n1 1 1.5\n3 4 -2e3\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 1\n3 2\n",
		"%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 7\n",
		"%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
		"%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1000000000000\n1 1 1\n",
		"%%MatrixMarket matrix array real general\n40000 40000\n1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var c *Coords
		var err error
		alloc := allocatedBytes(func() {
			c, _, err = ReadMatrixMarket(bytes.NewReader(in), "f.mtx")
		})
		// Fixed buffers (the 1 MiB line buffer, gzip state) plus a bounded
		// amount per input byte.
		if limit := uint64(8<<20 + 200*len(in)); alloc > limit && len(in) > 0 && in[0] != 0x1f {
			t.Fatalf("allocated %d bytes for %d input bytes", alloc, len(in))
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		for m, idx := range c.Idx {
			for _, i := range idx {
				if i < 0 || i >= c.Shape[m] {
					t.Fatalf("index %d out of range in mode %d of %v", i, m, c.Shape)
				}
			}
		}
	})
}
