// Package fuse optimizes SDQLite programs after differentiation: sparsity
// propagation, algebraic rewriting by equality saturation, storage
// composition and fusion, multiplication normalization and ANF (the ∇SD
// paper's sections 5.1–5.4).
//
// Rules are data: rules/*.rules, embedded and parsed at init, each with a
// doc line, an UpperCamel name, a tag (Normalize: applied by strategies;
// Explore: only added to the e-graph) and a pattern in the language's own
// syntax with $variables and named side conditions from a fixed registry
// (notfree, scalar, isdict, type, tensor, const, nonzero, isvar, trivial,
// scaled, dense, inextent, distinct, nounique). A rule file's group is its
// base name.
//
// Dictionaries keep every key they are built with, also where the value is
// zero, and sums iterate them; so a rule must preserve stored keys, not
// only values (0.0 * V is not {}), and a unique(...) claim is relative to
// the sum that builds the dictionary. Every rule is checked on generated
// instances of its left-hand side against the reference interpreter.
//
// The API:
//
//	Optimize(prog, cfg) (*Result, error)   the optimizing passes (pipeline.go) over a program already
//	                                       differentiated (the root package calls ad; fuse does not);
//	                                       Result.Plan() prints every stage
//	Compose(prog, defs) sdql.Expr          binds inputs to their Physical SDQLite definitions (section 5.3)
//	Definitions(map[string]Storage)        definitions and input types from the formats package
//	StatsOf(values) Stats                  input sizes for the cost model
//	Saturate(prog, rules, inputs, dense, stats, cfg) (sdql.Expr, *Report)
//	Cost(prog, inputs, stats) float64      the cost model
//	Rules(), RuleByName, RulesOf, ParseRules
//	Strategy, Ctx, NewCtx, Apply, ApplyAny, Id, Fail, Seq, Choice, Try, Repeat,
//	One, All, TopDown, BottomUp, Everywhere, Innermost, Normalize, Named
//	ParseStrategy(text)                    "normalize(group:sparsity <+ InlineLet); repeat(topDown(MulOneRight))"
//	SplitLets, Uniquify, InlineLet, InlineIfCheaper, ANF
//
// The e-graph follows egg: hash-consed e-nodes over a union-find, a
// deferred rebuild that restores congruence, e-matching, and an analysis
// of free variables, types, constants and shapes. Binders keep their names
// (Uniquify first makes every bound name unique, so each name has one
// type); an e-class stands for a function of the whole environment, and
// its free variables are those of a witness term, so a name missing from
// them is certainly not used by the class's value. Extraction only picks,
// in each class, nodes whose free variables are the class's, so a term
// hoisted out of a binder never mentions it. The runner has iteration,
// node, time and per-rule match limits (backoff) and reports why it
// stopped.
package fuse
