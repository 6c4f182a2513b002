package vec

import "golang.org/x/sys/cpu"

// useAVX: the passes run the assembly (vec_amd64.s), four entries an
// instruction; a variable so that the tests can run the scalar loops too.
var useAVX = cpu.X86.HasAVX

// The assembly passes: n entries, n a multiple of 4 and above 0, from
// the pointers (the Go functions check the slices' lengths).

//go:noescape
func sqrtAVX(dst, x *float64, n int)

//go:noescape
func addVV(dst, x, y *float64, n int)

//go:noescape
func subVV(dst, x, y *float64, n int)

//go:noescape
func mulVV(dst, x, y *float64, n int)

//go:noescape
func divVV(dst, x, y *float64, n int)

//go:noescape
func addVS(dst, x *float64, u float64, n int)

//go:noescape
func subVS(dst, x *float64, u float64, n int)

//go:noescape
func mulVS(dst, x *float64, u float64, n int)

//go:noescape
func divVS(dst, x *float64, u float64, n int)

//go:noescape
func addSV(dst *float64, u float64, y *float64, n int)

//go:noescape
func subSV(dst *float64, u float64, y *float64, n int)

//go:noescape
func mulSV(dst *float64, u float64, y *float64, n int)

//go:noescape
func divSV(dst *float64, u float64, y *float64, n int)

// The passes of each Op, indexed by it.
var (
	vv = [...]func(dst, x, y *float64, n int){addVV, subVV, mulVV, divVV}
	vs = [...]func(dst, x *float64, u float64, n int){addVS, subVS, mulVS, divVS}
	sv = [...]func(dst *float64, u float64, y *float64, n int){addSV, subSV, mulSV, divSV}
)
