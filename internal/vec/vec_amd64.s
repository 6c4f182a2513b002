#include "textflag.h"

// The loops take four entries an iteration (n a multiple of 4, n > 0),
// aligned on a 32-byte boundary (PCALIGN) so that no iteration straddles
// two fetch lines (internal/hotloops says why that matters). Go's AVX
// operand order is the reverse of Intel's: VDIVPD divisor, dividend,
// destination.

// func sqrtAVX(dst, x *float64, n int)
TEXT ·sqrtAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	PCALIGN $32
sqrtloop:
	VSQRTPD (SI)(AX*8), Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT sqrtloop
	VZEROUPPER
	RET

// func divAVX(dst, x, y *float64, n int)
TEXT ·divAVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	PCALIGN $32
divloop:
	VMOVUPD (SI)(AX*8), Y0
	VDIVPD (DX)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT divloop
	VZEROUPPER
	RET

// func divIntoAVX(dst *float64, u float64, y *float64, n int)
TEXT ·divIntoAVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	VBROADCASTSD u+8(FP), Y1
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	PCALIGN $32
divintoloop:
	VDIVPD (DX)(AX*8), Y1, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT divintoloop
	VZEROUPPER
	RET

// func divByAVX(dst, x *float64, u float64, n int)
TEXT ·divByAVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	VBROADCASTSD u+16(FP), Y1
	MOVQ n+24(FP), CX
	XORQ AX, AX
	PCALIGN $32
divbyloop:
	VMOVUPD (SI)(AX*8), Y0
	VDIVPD Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT divbyloop
	VZEROUPPER
	RET
