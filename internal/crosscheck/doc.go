// Package crosscheck holds the cross-check of every executor and
// optimization level (its tests; the package itself is empty): random
// programs over random inputs stored in every format, through --opt
// none|rules|full × --exec compiled|interp and the generated Go, must give
// the same result as dictionaries (the same keys at every level, equal
// values) as the reference interpreter on the logical program over the
// inputs as stored.
//
// The inputs are the kinds that once broke a rule or an executor: dense
// vectors shorter than the keys that look them up, matrices with empty
// rows and columns, explicit stored zeros, Matrix Market files with
// duplicates or symmetric, skew-symmetric and pattern entries, and
// bodies that do not vanish on an empty row.
//
// The same programs check the identities of the derivative products
// (package internal/adtest): ⟨ȳ, J·v⟩ = ⟨ȳ·J, v⟩, J·v = ⟨grad, v⟩ for a
// real result and H·v against finite differences of the gradient, with
// tangents that have entries where their input stores nothing, over
// every storage format (the tangent's too) and both modes; the products
// also run through every optimization level and executor.
//
// make test runs 2,000 programs (300 with -short) and the identities of
// 400 (24 with -short); make fuzz runs FuzzCrossCheck, one program per
// seed, for longer.
package crosscheck
