package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// cmdPlan: nablasd plan (-f FILE | -e TEXT) [--wrt NAME[,NAME...]] [--mode
// MODE] [--in NAME=VALUE]... prints every stage of the pipeline, each after
// a line "-- stage: NAME"; the last is the program that runs; a derivative's
// plan ends with "-- mode: ...". Without --in, the inputs' types are
// inferred from their use. --passes lists the lowering passes with what
// each changed; --after PASS prints the loops after one of them.
func cmdPlan(args []string, stdout, stderr io.Writer) error {
	var c planArgs
	if err := planFlags(&c).parse(args); err != nil {
		return err
	}
	o, err := c.options("")
	if err != nil {
		return err
	}
	if c.opt == "none" {
		return usagef("--opt %q: plan shows the optimizer's stages for --opt full or rules", c.opt)
	}
	if c.after != "" {
		if _, err := passNames(c.after, "--after"); err != nil {
			return err
		}
		if c.passes {
			return usagef("give --passes or --after, not both")
		}
	}
	o.TracePasses = c.passes || c.after != ""
	q, err := c.prepare(o, stderr)
	if err != nil {
		return err
	}
	var p *nablasd.Plan
	if c.simple() {
		p, err = q.Plan(c.wrt.names...)
	} else {
		var d *nablasd.Derivative
		if d, err = c.derivative(stderr); err != nil {
			return err
		}
		p, err = q.PlanDerivative(d)
	}
	if err != nil {
		return err
	}
	switch {
	case c.passes:
		printPasses(stdout, p, o.DisablePasses)
	case c.after != "":
		for _, s := range p.Passes {
			if s.Pass == c.after {
				fmt.Fprintf(stdout, "-- after: %s\n%s", s.Pass, s.Loops)
				return nil
			}
		}
		return fmt.Errorf("--after %s: the pass did not run (%s)", c.after, whyNotRun(c.after, o.DisablePasses))
	default:
		fmt.Fprint(stdout, p)
		if c.rules && p.Fuse != nil {
			fmt.Fprint(stdout, p.Fuse.FiredNotes())
		}
	}
	return nil
}

// passNames splits a comma-separated list of lowering pass names (build
// included for --after), refusing unknown ones with the nearest name.
func passNames(list, flag string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	known := []string{}
	for _, p := range lower.Passes() {
		known = append(known, p.Name)
	}
	if flag == "--after" {
		known = append(known, lower.BuildStep)
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		ok := false
		for _, k := range known {
			ok = ok || k == n
		}
		if !ok {
			msg := fmt.Sprintf("%s: no lowering pass %q", flag, n)
			if s := sdql.Suggest(n, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, usagef("%s; nablasd plan --passes lists them", msg)
		}
		out = append(out, n)
	}
	return out, nil
}

// whyNotRun says why a pass of the table did not run.
func whyNotRun(pass string, disabled []string) string {
	for _, d := range disabled {
		if d == pass {
			return "--disable"
		}
	}
	for _, p := range lower.Passes() {
		if p.Name == pass && p.Dense {
			return "it chooses dense storage, which this program's kernel does not use"
		}
	}
	return "the program was not lowered"
}

// printPasses lists the lowering passes in the order they run, each with
// the lines of the loops it added and removed (or why it did not run),
// and its doc line:
//
//	pass                  change      what it does
//	build                 41 lines    the loops as lowering built them
//	canonicalize          +2 -2       rewrite every expression in canonical form ...
func printPasses(w io.Writer, p *nablasd.Plan, disabled []string) {
	ran := map[string]string{}
	prev := ""
	for _, s := range p.Passes {
		if s.Pass == lower.BuildStep {
			ran[s.Pass] = fmt.Sprintf("%d lines", strings.Count(s.Loops, "\n"))
		} else {
			add, del := lineDiff(prev, s.Loops)
			ran[s.Pass] = "-"
			if add+del > 0 {
				ran[s.Pass] = fmt.Sprintf("+%d -%d", add, del)
			}
		}
		prev = s.Loops
	}
	fmt.Fprintf(w, "%-22s %-10s %s\n", "pass", "change", "what it does")
	fmt.Fprintf(w, "%-22s %-10s %s\n", lower.BuildStep, ran[lower.BuildStep], "the loops as lowering built them from the program")
	for _, ps := range lower.Passes() {
		change, ok := ran[ps.Name]
		if !ok {
			change = "off"
			if ps.Dense {
				for _, d := range disabled {
					if d == ps.Name {
						ok = true
					}
				}
				if !ok {
					change = "skipped"
				}
			}
		}
		fmt.Fprintf(w, "%-22s %-10s %s\n", ps.Name, change, ps.Doc)
	}
	fmt.Fprintf(w, "-- change: lines of the loops a pass added and removed; -: none; off: --disable; skipped: a dense-storage pass the kernel does not use\n")
}

// lineDiff counts the lines b adds to a and the lines it removes (the
// complement of their longest common subsequence of lines).
func lineDiff(a, b string) (added, removed int) {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// trim the common prefix and suffix: most passes change a few lines
	for len(x) > 0 && len(y) > 0 && x[0] == y[0] {
		x, y = x[1:], y[1:]
	}
	for len(x) > 0 && len(y) > 0 && x[len(x)-1] == y[len(y)-1] {
		x, y = x[:len(x)-1], y[:len(y)-1]
	}
	if len(x)*len(y) > 4_000_000 {
		// too large to align: count every line as changed
		return len(y), len(x)
	}
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			if x[i-1] == y[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	common := prev[len(y)]
	return len(y) - common, len(x) - common
}
