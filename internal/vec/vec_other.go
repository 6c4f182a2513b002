//go:build !amd64

package vec

// useAVX is false off amd64: the passes are the scalar loops.
var useAVX = false

func sqrtAVX(dst, x *float64, n int) { panic("internal error: vec: no AVX") }

var (
	vv [4]func(dst, x, y *float64, n int)
	vs [4]func(dst, x *float64, u float64, n int)
	sv [4]func(dst *float64, u float64, y *float64, n int)
)
