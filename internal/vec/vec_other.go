//go:build !amd64

package vec

// useAVX is false off amd64: the passes are the scalar loops.
var useAVX = false

func sqrtAVX(dst, x *float64, n int)                        { panic("internal error: vec: no AVX") }
func divAVX(dst, x, y *float64, n int)                      { panic("internal error: vec: no AVX") }
func divIntoAVX(dst *float64, u float64, y *float64, n int) { panic("internal error: vec: no AVX") }
func divByAVX(dst, x *float64, u float64, n int)            { panic("internal error: vec: no AVX") }
