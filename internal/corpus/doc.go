// Package corpus runs the test corpora of the other packages (the
// language's paper programs and semantics vectors, ad's finite-difference
// and kernel programs, fuse's rule, strategy and plan programs) through
// every execution path — the reference interpreter, the compiled kernel
// over logical inputs, the compiled kernel over each storage format of the
// inputs (every input in every format of its order, unfused and optimized
// by fuse), with and without differentiation — and checks that they agree.
// Its programs with an input to differentiate also check the identities
// of the derivative products (package internal/adtest), with tangents that
// have entries where the input stores nothing, over every storage format,
// and run the products through the executors.
// It has no code of its own besides its test.
package corpus
