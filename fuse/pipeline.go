package fuse

import (
	"fmt"
	"strings"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// Config configures Optimize.
type Config struct {
	// Inputs gives the types of the logical program's inputs.
	Inputs map[string]sdql.Type
	// InputStage names the program Optimize is given in Result.Stages:
	// StageLogical (the default) or StageDifferentiated for a derivative
	// (the root package differentiates, then optimizes).
	InputStage string
	// Dense names the inputs that store every index of their dimension.
	Dense map[string]bool
	// Dims gives the extents of the logical inputs' modes (a 2×3 matrix
	// A: Dims["A"] = [2, 3]), where known. With them the optimizer proves
	// that a lookup of a dense input reads inside its extent (the
	// inextent condition); without them it only knows a dense input's
	// own keys are.
	Dims map[string][]int
	// Stats gives the sizes of the logical inputs (cost model).
	Stats Stats
	// Defs gives the Physical SDQLite definition of each input bound to a
	// storage format; PhysInputs and PhysStats give the types and sizes of
	// the definitions' own inputs (A_len, A_pos, ...).
	Defs       map[string]sdql.Expr
	PhysInputs map[string]sdql.Type
	PhysStats  Stats
	// Opt selects the optimizations: "none" (only storage composition),
	// "rules" (the strategies, no saturation) or "" / "full".
	Opt string
	// Runner bounds equality saturation.
	Runner RunnerConfig
	// NoHoist and NoShare leave the program's loop-invariant terms in
	// their loops and its repeated terms repeated (Structure).
	NoHoist, NoShare bool
	// Disabled rules never fire (strategies and saturation).
	Disabled map[string]bool
	// Rules, when set, is the rule set the schedule draws its groups from
	// instead of the built-in one (Rules()): for experiments with variants
	// of rules, and for the tests that show an unsound variant is caught.
	Rules []*Rule
	// Trace, when set, is called for every firing.
	Trace func(rule string, before, after sdql.Expr)
}

func (cfg *Config) rules() []*Rule {
	if cfg.Rules != nil {
		return cfg.Rules
	}
	return builtinRules
}

// Stage is one program of the pipeline.
type Stage struct {
	Name    string
	Program sdql.Expr
}

// Result is what Optimize returns.
type Result struct {
	Program sdql.Expr // the program that runs (the last stage)
	Stages  []Stage
	Reports []*Report      // one per saturation run
	Fired   map[string]int // rule (and pass) firings
	Elapsed time.Duration
	// Warnings says where a limit cut a pass short (a strategy's step
	// budget); the program is still equivalent, only less optimized.
	Warnings []string
}

// The stage names, in order.
const (
	StageLogical        = "logical"
	StageStructured     = "structured" // the root package's: Structure of the logical program
	StageDifferentiated = "differentiated"
	StageSparsity       = "sparsity"
	StageSaturated      = "saturated"
	StageSimplified     = "simplified" // instead of saturated with Opt "rules"
	StageComposed       = "composed"
	StageNormalized     = "normalized"
)

// The pipeline, in one place. Each pass is a strategy over named rules
// (the .rules groups) or a named Go pass:
//
//	sparsity   = normalize(sparsity rules <+ InlineLet)                       (Fig. 9, first group)
//	simplify   = normalize(sparsity <+ algebra <+ fusion rules <+ InlineLet)  (after ResolveMembership; GroupByKey; then InlineIfCheaper)
//	saturate   = equality saturation with SaturationRules, cost-based extraction
//	compose    = Compose(defs) ; simplify ; ResolveMembership ; simplify ; saturate over the physical inputs
//	mulnorm    = normalizeInnermost(sparsity <+ mulnorm <+ algebra minus hoisting <+ InlineLet)   (Fig. 9, second group)
//	cleanup    = normalize(cleanup rules) ; normalize(ANF)
func strategies(rules []*Rule) (sparsity, simplify, mulnorm, cleanup Strategy) {
	if rules == nil {
		rules = builtinRules
	}
	of := func(group string) []*Rule { return rulesOf(rules, group, TagNormalize) }
	sp := ApplyAny(of("sparsity"))
	alg := ApplyAny(of("algebra"))
	fus := ApplyAny(of("fusion"))
	mn := ApplyAny(of("mulnorm"))
	sparsity = Normalize(Choice(sp, InlineLet))
	simplify = Normalize(Choice(sp, alg, fus, InlineLet))
	mulnorm = NormalizeInnermost(Choice(sp, mn, ApplyAny(without(of("algebra"), undoMulnorm)), InlineLet))
	cleanup = Seq(Normalize(ApplyAny(of("cleanup"))), Normalize(ANF))
	return
}

// simplifyRules are the rules of simplify's strategy.
func simplifyRules(rules []*Rule) []*Rule {
	if rules == nil {
		rules = builtinRules
	}
	var out []*Rule
	for _, g := range []string{"sparsity", "algebra", "fusion"} {
		out = append(out, rulesOf(rules, g, TagNormalize)...)
	}
	return out
}

// undoMulnorm are the algebra rules that move factors and lets out of the
// loops multiplication normalization moves them into.
var undoMulnorm = map[string]bool{"HoistLeftFactor": true, "HoistRightFactor": true, "LetFloatMulLeft": true, "LetFloatMulRight": true}

func without(rs []*Rule, names map[string]bool) []*Rule {
	var out []*Rule
	for _, r := range rs {
		if !names[r.Name] {
			out = append(out, r)
		}
	}
	return out
}

// Optimize runs the optimizing part of the ∇SD pipeline on a logical
// program (a derivative is differentiated before: fuse does not call ad)
// and returns every stage: the program given (named cfg.InputStage), after
// sparsity propagation, after saturation, after storage composition, and
// normalized — the last is the program that runs.
func Optimize(prog sdql.Expr, cfg *Config) (*Result, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	start := time.Now()
	if _, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: cfg.Inputs}); err != nil {
		return nil, err
	}
	res := &Result{Fired: map[string]int{}}
	stage := func(name string, e sdql.Expr) { res.Stages = append(res.Stages, Stage{name, e}) }
	input := cfg.InputStage
	if input == "" {
		input = StageLogical
	}
	stage(input, prog)
	run := func(e sdql.Expr, inputs map[string]sdql.Type, dense map[string]bool, s Strategy) sdql.Expr {
		c := NewCtx(e, inputs)
		c.Dense = dense
		c.Dims = cfg.Dims
		if cfg.Disabled != nil {
			c.Disabled = cfg.Disabled
		}
		c.Trace = cfg.Trace
		out, _ := s(c, e)
		for k, v := range c.Fired {
			res.Fired[k] += v
		}
		if c.Exhausted {
			res.Warnings = append(res.Warnings, fmt.Sprintf("a rewrite strategy reached its step limit after stage %s", res.Stages[len(res.Stages)-1].Name))
		}
		return out
	}
	opt := cfg.Opt
	if opt != "none" {
		prog = structureGiven(prog, cfg.NoHoist, cfg.NoShare)
	}
	prog = Uniquify(SplitLets(prog))
	if dense := cfg.Dense; opt != "none" {
		sparsity, simplify, _, _ := strategies(cfg.Rules)
		prog = run(prog, cfg.Inputs, dense, sparsity)
		stage(StageSparsity, prog)
		prog = run(prog, cfg.Inputs, dense, Seq(Try(ResolveMembership), simplify, Try(GroupByKey), simplify,
			Repeat(inlineIfCheaper(simplify, cfg.Stats, simplifyRules(cfg.Rules))), simplify))
		if opt != "rules" {
			rc := cfg.Runner
			rc.Disabled = cfg.Disabled
			rc.Dims = cfg.Dims
			rc.NoShare = rc.NoShare || cfg.NoShare
			out, rep := Saturate(prog, saturationRules(cfg.rules()), cfg.Inputs, dense, cfg.Stats, rc)
			rep.Stage = StageSaturated
			res.Reports = append(res.Reports, rep)
			res.noteTimeLimit(rep)
			for k, v := range rep.Fired {
				res.Fired[k] += v
			}
			prog = run(out, cfg.Inputs, dense, simplify)
			stage(StageSaturated, prog)
		} else {
			stage(StageSimplified, prog)
		}
	}
	phys := cfg.Inputs
	if len(cfg.Defs) > 0 {
		phys = map[string]sdql.Type{}
		for n, t := range cfg.Inputs {
			if _, bound := cfg.Defs[n]; !bound {
				phys[n] = t
			}
		}
		for n, t := range cfg.PhysInputs {
			phys[n] = t
		}
		prog = Uniquify(SplitLets(Compose(prog, cfg.Defs)))
		if opt != "none" {
			_, simplify, _, _ := strategies(cfg.Rules)
			prog = run(prog, phys, nil, Seq(simplify, Try(ResolveMembership), simplify))
			if opt != "rules" {
				rc := cfg.Runner
				rc.Disabled = cfg.Disabled
				rc.NoShare = rc.NoShare || cfg.NoShare
				out, rep := Saturate(prog, saturationRules(cfg.rules()), phys, nil, cfg.PhysStats, rc)
				rep.Stage = StageComposed
				res.Reports = append(res.Reports, rep)
				res.noteTimeLimit(rep)
				for k, v := range rep.Fired {
					res.Fired[k] += v
				}
				prog = run(out, phys, nil, simplify)
			}
		}
		stage(StageComposed, prog)
	}
	if opt != "none" {
		_, _, mulnorm, cleanup := strategies(cfg.Rules)
		prog = run(prog, phys, nil, Seq(mulnorm, cleanup))
	}
	prog = IntegralKeys(prog) // a key folded to a real literal (IntegralKeys)
	stage(StageNormalized, prog)
	res.Program = prog
	res.Elapsed = time.Since(start)
	return res, nil
}

// Structure returns prog with every term that does not depend on a loop
// moved out of it (sdql.Hoist, unless noHoist) and every repeated term
// computed once (sdql.Share, unless noShare): what the root package does
// to a logical program before differentiating it.
func Structure(prog sdql.Expr, noHoist, noShare bool) sdql.Expr {
	if !noHoist {
		prog = sdql.Hoist(prog)
	}
	if !noShare {
		prog = sdql.Share(prog)
	}
	return prog
}

// structureGiven is what Optimize does first to the program it is given
// (a derivative, say): Structure, but that a repeated lookup, or
// arithmetic on lookups, stays repeated (sdql.ShareWork) for the algebra
// rules, which see through a product and not through a let (the
// derivative of d * d is d * c + d * c, which they make 2 * d * c), and
// for lowering's CommonSubexprs.
func structureGiven(prog sdql.Expr, noHoist, noShare bool) sdql.Expr {
	if !noHoist {
		prog = sdql.Hoist(prog)
	}
	if !noShare {
		prog = sdql.ShareWork(prog)
	}
	return prog
}

// noteTimeLimit warns when a saturation stopped on its time limit (the
// plan then depends on the machine and its load).
func (r *Result) noteTimeLimit(rep *Report) {
	if rep.Stop == StopTimeLimit {
		r.Warnings = append(r.Warnings, fmt.Sprintf("equality saturation stopped on its time limit after %d iterations (%d e-nodes): the plan may differ from run to run; raise RunnerConfig.TimeLimit or lower IterLimit or NodeLimit", rep.Iterations, rep.Nodes))
	}
}

// Plan prints every stage, each introduced by "-- stage: NAME", followed by
// the saturation reports as "--" comment lines (Notes).
func (r *Result) Plan() string {
	var b strings.Builder
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "-- stage: %s\n%s\n", s.Name, sdql.Print(s.Program))
	}
	b.WriteString(r.Notes())
	return b.String()
}

// Notes prints the saturation reports and the warnings as "--" comment
// lines.
func (r *Result) Notes() string {
	var b strings.Builder
	for _, rep := range r.Reports {
		b.WriteString(rep.Lines())
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "-- warning: %s\n", w)
	}
	return b.String()
}

// FiredNotes prints, for each saturation, the rules it applied and how
// many times (`nablasd plan --rules`).
func (r *Result) FiredNotes() string {
	var b strings.Builder
	for _, rep := range r.Reports {
		b.WriteString(rep.FiredLines())
	}
	return b.String()
}
