// Package sdql is the SDQLite language: tokens, AST with positions, parser,
// printer, types and checker, values and the reference interpreter.
// The grammar and semantics are specified in doc/spec.md.
package sdql
