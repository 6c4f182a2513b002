// Package sdqlgen generates SDQL programs for property tests and
// benchmarks: random well-typed programs over fixed inputs (Gen,
// GenInputs), families of growing size (TanhStack) and structural
// variants of a program, the same function written another way
// (InlineLets, SinkLets).
//
// It is apart from sdqltest, the data-driven test vocabulary, so that
// commands (bench's families) can use it without linking the test
// framework, whose flags (-rewrite, -datadriven-quiet) would otherwise
// appear in their usage.
package sdqlgen
