// Package legacyexec is the executor nablasd had before the loop IR, kept
// only for its Go generation (GenerateGo, GenerateGoKernel) until package
// gogen generates Go from the loop IR; nothing else may use it, and it
// goes away with that change.
//
// The old executor compiled optimized physical SDQL to closures with
// whole-loop primitives recognized from the program's text; package exec
// replaces it, running the loop IR of package lower.
package legacyexec
