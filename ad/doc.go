// Package ad differentiates SDQLite programs (∇SD, sections 4 and 5.1–5.2),
// in forward and in reverse mode.
//
// Forward mode is the tensorized forward mode D_τ of ∇SD:
//
//	ANF ─▶ tensorized forward mode D_τ (Fig. 6) under the gradient macro (Fig. 7) ─▶ Sparsify (Fig. 9, first group)
//
// Reverse mode follows "You Only Linearize Once" (J, U, T), on semiring
// dictionaries:
//
//	ANF ─▶ Lift (residuals out of loops) ─▶ linearize: forward mode on tangents (Fig. 5)
//	    ─▶ unzip: the primal sweep | the linear program ─▶ transpose the linear program ─▶ Sparsify
//
// Every stage is an ordinary sdql program (GradStages and Reverse return
// all of them), so the optimizer, storage composition and the executors run
// the result unchanged.
//
// The API:
//
//	ANF(e)                         A-normal form (section 5.1)
//	Forward(e, inputs)             F[[e]], Fig. 5 (tangents x' free)
//	Tensorized(e, inputs, τ)       D_τ[[e]], Fig. 6 (tangents x' : T ⊗ τ free)
//	Gradient(e, wrt, inputs)       the gradient macro of Fig. 7 over e as given
//	GradStages(e, wrt, inputs)     ANF, the macro over it, and Sparsify of that
//	Grad(e, wrt, inputs)           GradStages(...).Sparse: forward mode's gradient
//	Reverse(e, req, inputs)        reverse mode: gradients of several inputs from one
//	                               sweep, the value, whole Jacobians, VJPs (Request)
//	JVP(e, tangents, inputs)       Jacobian–vector product (forward mode)
//	HVP(e, wrt, dir, inputs)       Hessian–vector product (forward over reverse)
//	Derive(e, req, mode, inputs)   what req asks for, in a Mode (ChooseMode for ModeAuto)
//	Lift(e, names)                 lets out of loops into dictionaries (tapes)
//	Sparsify(e, inputs)            sparsity propagation (Fig. 9, first group)
//	ExpandOneHot(e)                onehot[T] x ↦ its definition in Fig. 7
//	OnStoredPositions(g, x)        a scalar program's gradient on exactly x's positions
//
// inputs gives the types of the free variables; missing ones are inferred
// by sdql.Check from their use.
//
// Conventions:
//   - The tangent of a variable x is the variable x' (more primes when the
//     program's own names end in primes). No pairs: the primal and the
//     tangent are bound together by the tupled let `let <x, x'> = <e, D[e]>`.
//   - The derivative of a result of type tensor n with respect to a variable
//     of type tensor m has type tensor (n+m): the result's indices first, in
//     both modes. It is given on the variable's stored positions.
//   - int, bool and other non-real values (keys, conditions, counts) have the
//     zero tangent ∅, printed 0; it is bound where Fig. 5 binds it (the key
//     of a sum, a let of an int) and never used in a result.
//   - Several results (a value and gradients) of one run are a bundle
//     (Outputs), since SDQL has no tuples.
//   - Errors are *sdql.Error values (or the sdql.ErrorList of a failed
//     check) with the position of the offending expression where there is
//     one; their File is empty, for the caller to set.
//   - e1 ⋆^T[τ] e2 of Fig. 6 iterates over the indices of e1 (not of τ) and
//     builds {i1 -> ... {ip -> e2 * v}} directly (see deriver.star).
package ad
