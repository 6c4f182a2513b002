// Package ad differentiates SDQLite programs (∇SD, sections 4 and 5.1–5.2).
//
// The pipeline of a gradient is
//
//	ANF ─▶ tensorized forward mode D_τ (Fig. 6) under the gradient macro (Fig. 7) ─▶ Sparsify (Fig. 9, first group)
//
// and every stage is an ordinary sdql program (GradStages returns all of
// them). Forward is the scalar forward mode F of Fig. 5 (the special case
// τ = real); Tensorized is D_τ for any tensor type τ.
//
// Conventions:
//   - The tangent of a variable x is the variable x' (more primes when the
//     program's own names end in primes). No pairs: the primal and the
//     tangent are bound together by the tupled let `let <x, x'> = <e, D[e]>`.
//   - The derivative of a result of type tensor n with respect to a variable
//     of type tensor m has type tensor (n+m): the result's indices first.
//   - int, bool and other non-real values (keys, conditions, counts) have the
//     zero tangent ∅, printed 0; it is bound where Fig. 5 binds it (the key
//     of a sum, a let of an int) and never used in a result.
//   - Errors are *sdql.Error values with the position of the offending
//     expression where there is one.
package ad
