// Package formats holds nablasd's storage formats, in the style of TACO's
// level formats: a format is a list of levels (dense, compressed,
// singleton) plus a mode order, instantiated for the order of a tensor.
//
// Each format has two faces that must agree:
//
//   - a Go container of plain slices, Tensor, built with FromCoords or
//     Convert, checked with Validate, read with Iterate, At and ToValue;
//   - its definition in Physical SDQLite (Fig. 10 of the ∇SD paper),
//     generated from the level list by Definition, whose inputs Bind binds
//     to the container's slices without copying.
//
// Evaluating a format's definition over Bind(t) gives the same logical
// dictionary as ToValue(t): that is each format's defining test.
//
// A tensor's structure is its stored positions: explicit zeros are kept,
// and dense formats store every position. Bad data gives an error whose
// message starts with "formats: "; misuse by a programmer (a coordinate out
// of range for At, an invalid tensor passed to Iterate or ToValue) panics
// with such a message.
//
// The package interoperates with gonum: FromMatrix reads any mat.Matrix
// (through mat.NonZeroDoer, mat.RowNonZeroDoer or mat.ColNonZeroDoer when
// available), ToDense exports, and Matrix adapts a matrix tensor to
// mat.Matrix.
package formats
