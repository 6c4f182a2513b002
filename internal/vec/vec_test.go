package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// values are the test's inputs: random reals of every magnitude, and
// the special ones (zeros, infinities, NaN, negatives, subnormals).
func values(r *rand.Rand, n int) []float64 {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, math.MaxFloat64, 3, 1e-300, -2.5}
	xs := make([]float64, n)
	for k := range xs {
		if r.IntN(4) == 0 {
			xs[k] = special[r.IntN(len(special))]
		} else {
			xs[k] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
	}
	return xs
}

// same reports whether a and b are the same float to the bit, any NaN
// equal to any other (the processor's NaN of a negative's square root is
// not specified by Go).
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestMatchesScalar: every pass gives, entry by entry, the scalar
// operation's float, over lengths around the four-lane blocks, at
// unaligned offsets, with the assembly and without, and writes nothing
// past its length.
func TestMatchesScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	hasAVX := useAVX
	defer func() { useAVX = hasAVX }()
	for _, avx := range []bool{false, true} {
		if avx && !hasAVX {
			t.Log("no AVX: only the scalar loops are tested")
			continue
		}
		useAVX = avx
		for n := 0; n <= 37; n++ {
			for off := 0; off < 3; off++ {
				x, y := values(r, n+off)[off:], values(r, n+off)[off:]
				u := values(r, 1)[0]
				type pass struct {
					name string
					run  func(dst []float64)
					want func(k int) float64
				}
				cases := []pass{
					{"Sqrt", func(dst []float64) { Sqrt(dst, x) }, func(k int) float64 { return math.Sqrt(x[k]) }},
				}
				for op, name := range []string{"Add", "Sub", "Mul", "Div"} {
					f := []func(a, b float64) float64{
						func(a, b float64) float64 { return a + b },
						func(a, b float64) float64 { return a - b },
						func(a, b float64) float64 { return a * b },
						func(a, b float64) float64 { return a / b },
					}[op]
					cases = append(cases,
						pass{"Arith " + name, func(dst []float64) { Arith(Op(op), dst, x, y) }, func(k int) float64 { return f(x[k], y[k]) }},
						pass{"ArithRight " + name, func(dst []float64) { ArithRight(Op(op), dst, x, u) }, func(k int) float64 { return f(x[k], u) }},
						pass{"ArithLeft " + name, func(dst []float64) { ArithLeft(Op(op), dst, u, y) }, func(k int) float64 { return f(u, y[k]) }})
				}
				for _, c := range cases {
					dst := make([]float64, n+off+2)
					const sentinel = 12345.5
					for k := range dst {
						dst[k] = sentinel
					}
					c.run(dst[off : off+n+2])
					for k := 0; k < n; k++ {
						if got, want := dst[off+k], c.want(k); !same(got, want) {
							t.Fatalf("avx=%v %s n=%d off=%d: entry %d is %v, want %v", avx, c.name, n, off, k, got, want)
						}
					}
					for k, v := range dst {
						if (k < off || k >= off+n) && v != sentinel {
							t.Fatalf("avx=%v %s n=%d off=%d: wrote entry %d outside the pass", avx, c.name, n, off, k-off)
						}
					}
				}
			}
		}
	}
}
