#include "textflag.h"

// The loops take four entries an iteration (n a multiple of 4, n > 0),
// aligned on a 32-byte boundary (PCALIGN) so that no iteration straddles
// two fetch lines (internal/hotloops says why that matters). Go's AVX
// operand order is the reverse of Intel's: VSUBPD y, x, dst is
// dst = x - y, the scalar code's x - y with its operands in its order.

// func sqrtAVX(dst, x *float64, n int)
TEXT ·sqrtAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	PCALIGN $32
loop:
	VSQRTPD (SI)(AX*8), Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT loop
	VZEROUPPER
	RET

// VV: func(dst, x, y *float64, n int): dst[k] = x[k] op y[k]
#define VV(name, op) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ dst+0(FP), DI \
	MOVQ x+8(FP), SI \
	MOVQ y+16(FP), DX \
	MOVQ n+24(FP), CX \
	XORQ AX, AX \
	PCALIGN $32 \
loop: \
	VMOVUPD (SI)(AX*8), Y0 \
	op (DX)(AX*8), Y0, Y0 \
	VMOVUPD Y0, (DI)(AX*8) \
	ADDQ $4, AX \
	CMPQ AX, CX \
	JLT loop \
	VZEROUPPER \
	RET

// VS: func(dst, x *float64, u float64, n int): dst[k] = x[k] op u
#define VS(name, op) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ dst+0(FP), DI \
	MOVQ x+8(FP), SI \
	VBROADCASTSD u+16(FP), Y1 \
	MOVQ n+24(FP), CX \
	XORQ AX, AX \
	PCALIGN $32 \
loop: \
	VMOVUPD (SI)(AX*8), Y0 \
	op Y1, Y0, Y0 \
	VMOVUPD Y0, (DI)(AX*8) \
	ADDQ $4, AX \
	CMPQ AX, CX \
	JLT loop \
	VZEROUPPER \
	RET

// SV: func(dst *float64, u float64, y *float64, n int): dst[k] = u op y[k]
#define SV(name, op) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ dst+0(FP), DI \
	VBROADCASTSD u+8(FP), Y1 \
	MOVQ y+16(FP), DX \
	MOVQ n+24(FP), CX \
	XORQ AX, AX \
	PCALIGN $32 \
loop: \
	op (DX)(AX*8), Y1, Y0 \
	VMOVUPD Y0, (DI)(AX*8) \
	ADDQ $4, AX \
	CMPQ AX, CX \
	JLT loop \
	VZEROUPPER \
	RET

VV(·addVV, VADDPD)
VV(·subVV, VSUBPD)
VV(·mulVV, VMULPD)
VV(·divVV, VDIVPD)
VS(·addVS, VADDPD)
VS(·subVS, VSUBPD)
VS(·mulVS, VMULPD)
VS(·divVS, VDIVPD)
SV(·addSV, VADDPD)
SV(·subSV, VSUBPD)
SV(·mulSV, VMULPD)
SV(·divSV, VDIVPD)
