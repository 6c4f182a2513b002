package fuse

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// StopReason says why equality saturation stopped (egg's StopReason).
type StopReason string

// The stop reasons.
const (
	StopSaturated  StopReason = "saturated"
	StopIterLimit  StopReason = "iteration limit"
	StopNodeLimit  StopReason = "node limit"
	StopTimeLimit  StopReason = "time limit"
	StopNotStarted StopReason = "not run"
)

// RunnerConfig bounds equality saturation.
type RunnerConfig struct {
	// IterLimit and NodeLimit stop saturation deterministically: the
	// same program gives the same plan on any machine under any load. On
	// the paper's kernels and the workloads the cheapest program is found
	// within 5 iterations; later ones only add commuted variants.
	IterLimit int // iterations (0: 10)
	NodeLimit int // e-nodes (0: 4,000)
	// TimeLimit is a safety net against a run the limits above let grow
	// too long; stopping on it makes the plan depend on the machine, and
	// Optimize reports it as a warning.
	TimeLimit  time.Duration // wall time (0: 2s)
	MatchLimit int           // matches of one rule per iteration before it is banned (0: 250)
	BanLength  int           // iterations a banned rule sits out, doubled per ban (0: 2)
	Disabled   map[string]bool
	// Dims gives the extents of the inputs' modes, when known: with the
	// dense inputs, what the inextent condition proves keys within.
	Dims map[string][]int
	// Trace, when set, is called for every rule application.
	Trace func(rule string)
	// NoShare leaves a term the extraction writes at several places (one
	// e-class chosen at each) written there; by default one that does
	// work is bound once (sdql.ShareWork).
	NoShare bool
}

func (c RunnerConfig) withDefaults() RunnerConfig {
	if c.IterLimit == 0 {
		c.IterLimit = 10
	}
	if c.NodeLimit == 0 {
		c.NodeLimit = 4000
	}
	if c.TimeLimit == 0 {
		c.TimeLimit = 2 * time.Second
	}
	if c.MatchLimit == 0 {
		c.MatchLimit = 250
	}
	if c.BanLength == 0 {
		c.BanLength = 2
	}
	return c
}

// Report describes one run of equality saturation.
type Report struct {
	Iterations int
	Nodes      int // e-nodes at the end
	Classes    int // e-classes at the end
	Stop       StopReason
	CostBefore float64
	CostAfter  float64
	Elapsed    time.Duration
	Fired      map[string]int // rule -> applications (matches whose conditions held)
	Banned     map[string]int // rule -> times banned (backoff)
	// Stage names the pipeline stage the saturation produced (Optimize
	// sets it: StageSaturated over the logical program, StageComposed
	// over the physical one); "" outside Optimize.
	Stage string
}

// Lines prints the report as a "--" comment line: what the saturation
// for its stage did and why it stopped.
func (r *Report) Lines() string {
	label := "saturation"
	if r.Stage != "" {
		label += " for stage " + r.Stage
	}
	return fmt.Sprintf("-- %s: %d iterations, %d e-nodes, %d e-classes, stopped: %s; cost %.4g -> %.4g\n",
		label, r.Iterations, r.Nodes, r.Classes, r.Stop, r.CostBefore, r.CostAfter)
}

// FiredLines prints the rules the saturation applied, with how many times
// each, as a "--" comment line ("" when none fired).
func (r *Report) FiredLines() string {
	var names []string
	for n := range r.Fired {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, r.Fired[n])
	}
	label := "fired"
	if r.Stage != "" {
		label += " for stage " + r.Stage
	}
	return fmt.Sprintf("-- %s: %s\n", label, strings.Join(parts, " "))
}

// SaturationRules returns the rules equality saturation uses: the Explore
// rules and the Normalize rules of the algebra, fusion and sparsity groups
// that neither substitute nor introduce fresh binders.
func SaturationRules() []*Rule { return saturationRules(builtinRules) }

func saturationRules(rules []*Rule) []*Rule {
	var out []*Rule
	for _, r := range rules {
		if r.subst || len(r.fresh) > 0 {
			continue
		}
		if r.Tag == TagExplore || r.Group == "algebra" || r.Group == "fusion" || r.Group == "sparsity" {
			out = append(out, r)
		}
	}
	return out
}

// Saturate runs equality saturation on prog with the given rules and
// extracts the cheapest equivalent program under the cost model. It first
// splits tupled lets and makes binder names unique (so that every name has
// one type).
func Saturate(prog sdql.Expr, rules []*Rule, inputs map[string]sdql.Type, dense map[string]bool, stats Stats, cfg RunnerConfig) (sdql.Expr, *Report) {
	cfg = cfg.withDefaults()
	prog = Uniquify(SplitLets(prog))
	start := time.Now()
	rep := &Report{Fired: map[string]int{}, Banned: map[string]int{}, Stop: StopNotStarted}
	info, _ := sdql.Check(prog, &sdql.CheckConfig{Inputs: inputs})
	nameTypes := map[string]sdql.Type{}
	for n, t := range inputs {
		nameTypes[n] = t
	}
	var types map[sdql.Expr]sdql.Type
	if info != nil {
		types = info.Types
		for n, t := range info.Free {
			nameTypes[n] = t
		}
		bindTypes(prog, types, nameTypes)
	}
	cm := newCostModel(stats, inputs)
	rep.CostBefore = cm.tree(prog, types).cost
	g := newEGraph(nameTypes, dense, cm)
	g.extents = analyzeExtents(prog, inputs, cfg.Dims, dense)
	root := g.addExpr(prog, types)
	g.rebuild()

	bannedUntil := map[string]int{}
	for iter := 0; ; iter++ {
		if iter >= cfg.IterLimit {
			rep.Stop = StopIterLimit
			break
		}
		if time.Since(start) > cfg.TimeLimit {
			rep.Stop = StopTimeLimit
			break
		}
		rep.Iterations++
		type match struct {
			r    *Rule
			root ClassID
			s    eSubst
		}
		var matches []match
		anyBanned := false
		byOp := map[opKind][]ClassID{}
		all := g.classIDs()
		for _, id := range all {
			seen := map[opKind]bool{}
			for _, n := range g.classes[id].Nodes {
				if !seen[n.Op] {
					seen[n.Op] = true
					byOp[n.Op] = append(byOp[n.Op], id)
				}
			}
		}
		for _, r := range rules {
			if cfg.Disabled[r.Name] {
				continue
			}
			if bannedUntil[r.Name] > iter {
				anyBanned = true
				continue
			}
			if time.Since(start) > cfg.TimeLimit {
				break
			}
			limit := cfg.MatchLimit << rep.Banned[r.Name]
			var found []match
			cands := all
			if op, ok := rootOp(r.LHS); ok {
				cands = byOp[op]
			}
			for _, id := range cands {
				g.ematch(r.LHS, id, eSubst{}, func(s eSubst) {
					found = append(found, match{r, id, s})
					if len(found) > limit {
						g.stopMatch = true
					}
				})
				if len(found) > limit {
					break
				}
			}
			g.stopMatch = false
			if len(found) > limit {
				bannedUntil[r.Name] = iter + cfg.BanLength<<rep.Banned[r.Name]
				rep.Banned[r.Name]++
				anyBanned = true
				continue
			}
			matches = append(matches, found...)
		}
		changed := false
		for _, m := range matches {
			em := &eMatch{g, m.s}
			if !checkConds(m.r, em) {
				continue
			}
			id, ok := g.instantiate(m.r, m.s, g.classes[g.Find(m.root)].typ)
			if !ok || !g.sameType(m.root, id) {
				continue
			}
			rep.Fired[m.r.Name]++
			if cfg.Trace != nil {
				cfg.Trace(m.r.Name)
			}
			if g.union(m.root, id) {
				changed = true
			}
			if g.nodes > cfg.NodeLimit || time.Since(start) > cfg.TimeLimit {
				break
			}
		}
		g.rebuild()
		if time.Since(start) > cfg.TimeLimit {
			rep.Stop = StopTimeLimit
			break
		}
		if g.nodes > cfg.NodeLimit {
			rep.Stop = StopNodeLimit
			break
		}
		if !changed && !anyBanned {
			rep.Stop = StopSaturated
			break
		}
	}
	out, cost := g.extract(root)
	if out != nil && !cfg.NoShare {
		// the extraction builds a class chosen at two places twice: a
		// loop, a dictionary or a call is bound once; a product or a
		// lookup stays for the rules that follow (x * y + x * y is 2 * x *
		// y to them, not c + c) and lowering's CommonSubexprs
		out = sdql.ShareWork(out)
	}
	rep.CostAfter = cost
	rep.Nodes, rep.Classes = g.nodes, len(g.classes)
	rep.Elapsed = time.Since(start)
	if out == nil || rep.CostAfter > rep.CostBefore {
		// never worse than the input
		out = prog
		rep.CostAfter = rep.CostBefore
	}
	return out, rep
}

// rootOp returns the e-node kind a pattern's root must have, when fixed.
func rootOp(p sdql.Expr) (opKind, bool) {
	switch p := p.(type) {
	case *sdql.Ident, *sdql.IntLit, *sdql.RealLit:
		return 0, false
	case *sdql.DictExpr:
		if len(p.Entries) == 0 {
			return 0, false
		}
	}
	return patNode(p).Op, true
}

// bindTypes records the types of the binders of prog.
func bindTypes(prog sdql.Expr, types map[sdql.Expr]sdql.Type, out map[string]sdql.Type) {
	sdql.Inspect(prog, func(e sdql.Expr) bool {
		switch x := e.(type) {
		case *sdql.SumExpr:
			if d, ok := types[x.Src].(*sdql.DictType); ok {
				k := d.Key
				if _, isR := x.Src.(*sdql.RangeExpr); isR || k == sdql.DenseIntType {
					k = sdql.IntType
				}
				out[x.Key.Name] = k
				out[x.Val.Name] = d.Val
			}
		case *sdql.LetExpr:
			for i, n := range x.Names {
				out[n.Name] = types[x.Values[i]]
			}
		}
		return true
	})
}
