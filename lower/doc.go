// Package lower lowers an optimized physical SDQL program (fuse's output)
// to a small typed loop IR, which both back ends consume: the closure
// runtime (package exec) and the Go generator (package gogen). Nothing
// downstream of lowering reads program text; what a loop can do comes from
// the IR and from what the storage formats say of their levels
// (formats.Levels), as TACO's lowerer asks each level whether it can
// iterate positions, locate a coordinate or append.
//
// # The IR
//
// A Program has parameters (scalars, the formats' arrays, dictionary
// inputs), a result (a scalar variable or a Tensor) and a body of
// statements. Everything the IR computes with is a scalar (Real, Int,
// Bool): loop indices, array loads, positions. Dictionaries exist only as
//
//   - arrays of the storage formats, read by loads inside explicit loops
//     (a CSR row is the loop `for p := A_pos[i]; p < A_pos[i+1]; p++`
//     binding j := A_idx[p]), or
//   - Tensors: dictionaries the kernel builds (its result and the
//     intermediates it must materialize) and dictionary inputs. A tensor is
//     a list of levels in the manner of TACO: each level maps a parent
//     position and a key to a child position, and the leaves hold values at
//     positions. A level's storage is chosen by lowering: Dense (keys
//     0..n-1, child = parent*n + key, with presence unless every key is
//     written), Sparse (a dense workspace with a marker array and a list
//     of its keys: Gustavson's accumulator; one parent), Hash (open
//     addressing, the last resort) or Positions (the positions of an
//     input's level, for a gradient given on that input's stored
//     positions).
//
// Statements are For (a range loop, with an optional parallel mark saying
// how workers' results merge), ForLevel (the children of a tensor's
// position), Search (binary search in a sorted segment of an array, or
// a gallop from a finger past the last key found: FingerSearches),
// Insert and Locate (a tensor's child position by key, created or found),
// Store (a leaf value, added or set), scalar Let/Set/Add, If, Clear and
// Fail. Expressions are constants, variables, loads, arithmetic, calls of
// the language's functions, Select and tensor leaf reads.
//
// # Lowering
//
// Lowering is a partial evaluation of the SDQL program with symbolic
// dictionaries: a let-bound dictionary that is only iterated or looked up
// is a view, lowered where it is used and never built; a sum over a view
// fuses with the view's own loop; a lookup of a view locates the key in
// the view's source (a range check, a binary search, a tensor lookup)
// instead of building anything. A dictionary that must exist (the result,
// or an intermediate read many times inside a loop) gets the cheapest
// storage its keys allow: dense when they are bounded by an extent known
// before the loop (a range's end, a format's mode extent), sparse for a
// workspace refilled in a loop, hashed only when nothing bounds them.
// Integer index arithmetic is put in a canonical form first, so i + 1 and
// 1 + i are one expression.
//
// # Primitives
//
// Primitives are named IR rules (rules.go; the markprimitives pass): an inner loop of a known shape
// (a dot product gathering from a dense vector, a scatter-add, a dense
// axpy, ...) is marked with the primitive's name, which the closure
// runtime runs as one Go loop over the slices and the printer shows. They
// match the IR, after canonicalization, never program text; the golden
// files in testdata pin which primitive each loop of the paper's kernels
// and the workloads gets.
package lower
