package vec

import "golang.org/x/sys/cpu"

// useAVX: the passes run the assembly (vec_amd64.s), four entries an
// instruction; a variable so that the tests can run the scalar loops too.
var useAVX = cpu.X86.HasAVX

// The assembly passes: n entries, n a multiple of 4, from the pointers
// (the Go functions check the slices' lengths).

//go:noescape
func sqrtAVX(dst, x *float64, n int)

//go:noescape
func divAVX(dst, x, y *float64, n int)

//go:noescape
func divIntoAVX(dst *float64, u float64, y *float64, n int)

//go:noescape
func divByAVX(dst, x *float64, u float64, n int)
