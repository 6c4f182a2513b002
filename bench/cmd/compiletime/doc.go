package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nablasd/nablasd/bench"
)

// writeDoc writes the results page: how it was measured, the fitted
// exponents, the plot, and every family's table by stage.
func writeDoc(path string, points []point, fits map[string]fit, issue point, figs []string, reps int) error {
	var b strings.Builder
	b.WriteString(`# Compile time against program size

<!-- Written by go run ./bench/cmd/compiletime; do not edit. -->

How long nablasd takes to prepare a program and compile its gradient, as
the program grows, over generated families (bench.Families): tanh stacks
of 1–32 layers, let-bound and written inline; sums of n different terms; a
subterm repeated n times; random programs of n terms.

`)
	fmt.Fprintf(&b, "A program's time is the least of %d repetitions on one core\n", reps)
	b.WriteString(`(GOMAXPROCS=1) of the process's CPU time, which other work on a shared
machine does not inflate: for Prepare and Compile in all (the whole
pipeline, with the Go source the JIT's cache is asked for), and for each
stage (Kernel.Times). A family's growth exponent is the slope of log time
against log size (nodes of the logical program) over its three largest
programs (the random programs: those of the three largest n).

`)
	fmt.Fprintf(&b, "Measured %s on %s/%s, %d CPUs shared with other work. Times are in ms.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	b.WriteString("| family | sizes fitted (nodes) | growth exponent |\n| --- | --- | --- |\n")
	for _, f := range bench.Families {
		ft, ok := fits[f.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d–%d (%d programs) | %.2f |\n", f.Name, ft.from, ft.to, ft.points, ft.exponent)
	}
	if issue.err != "" {
		fmt.Fprintf(&b, "\nThe program of issue 33 (its gradient with respect to A): %s.\n", issue.err)
	} else {
		fmt.Fprintf(&b, "\nThe program of issue 33 (%d nodes; its gradient with respect to A, which once never finished compiling): %.0f ms of CPU.\n",
			issue.nodes, issue.cpu)
	}
	if len(figs) > 0 {
		rel, err := filepath.Rel(filepath.Dir(path), strings.TrimSuffix(figs[0], ".svg")+".svg")
		if err != nil {
			rel = figs[0]
		}
		fmt.Fprintf(&b, "\n![compile time against program size](%s)\n", filepath.ToSlash(rel))
	}
	for _, f := range bench.Families {
		if _, ok := fits[f.Name]; !ok {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n", f.Name, f.Doc)
		b.WriteString("| n | nodes |")
		for _, s := range stages {
			b.WriteString(" " + s + " |")
		}
		b.WriteString(" CPU ms |\n| ---: | ---: |")
		for range stages {
			b.WriteString(" ---: |")
		}
		b.WriteString(" ---: |\n")
		for _, p := range points {
			if p.family != f.Name {
				continue
			}
			n := fmt.Sprint(p.n)
			if f.Program == nil {
				n = fmt.Sprintf("%d (seed %d)", p.n, p.seed)
			}
			if p.err != "" {
				fmt.Fprintf(&b, "| %s | %d | %s |\n", n, p.nodes, p.err)
				continue
			}
			fmt.Fprintf(&b, "| %s | %d |", n, p.nodes)
			for _, s := range stages {
				fmt.Fprintf(&b, " %.1f |", p.stage[s])
			}
			fmt.Fprintf(&b, " %.1f |\n", p.cpu)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
