// Command paper reproduces the experiments of section 7 of the ∇SD paper
// (Table 1, Figs. 11–16) and three more figures (two series beyond the
// paper's kernels, the workloads, peak memory): it runs every cell of the grid (package bench/paper), appends
// one CSV row per cell and draws the figures as SVG and PNG.
//
//	go run ./bench/cmd/paper            # make paper: the full run (≈45 min)
//	go run ./bench/cmd/paper -quick     # make paper QUICK=1 (≈3 min)
//
// The full run writes bench/results/paper.csv and doc/figures/*.{svg,png};
// the quick run bench/results/quick/quick.csv and its figures beside it.
// A run resumes: cells already in the CSV are not run again (-fresh starts
// over). PyTorch and SciPy come from `make paper-deps`; without them their
// cells are "not installed".
//
// Flags:
//
//	-quick            the quick settings
//	-csv FILE         the results CSV
//	-figures DIR      where the figures go ("" for none)
//	-work DIR         generated inputs, the Python peer, the generated Go's runner
//	-fresh            start over instead of resuming
//	-draw             only draw the figures from the CSV
//	-only LIST        figures to run (fig11,...,fig16,ours,workloads,memory)
//	-systems LIST     systems to run (arr,dict,gen,hand,hand-reuse,torch-dense,torch-sparse,scipy,...)
//	-budget D         a cell's time budget (default 10s, quick 2s)
//	-mem-limit BYTES  a cell's memory limit (default 8GiB, quick 4GiB)
//	-reps N           timed runs of a cell after its first
//	-scale X          Table 1 surrogates' size factor
//	-python PATH      the peers' interpreter
//	-download         download missing Table 1 matrices
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench/paper"
)

func main() {
	if paper.IsChild() {
		paper.ChildMain()
		return
	}
	quick := flag.Bool("quick", false, "the quick settings (make paper QUICK=1)")
	csvPath := flag.String("csv", "", "the results CSV (default bench/results/paper.csv, quick bench/results/quick/quick.csv)")
	figures := flag.String("figures", "-", "where the figures go (default doc/figures, quick bench/results/quick; \"\" for none)")
	work := flag.String("work", "bench/results/.work", "generated inputs, the Python peer and the generated Go's runner")
	fresh := flag.Bool("fresh", false, "start over instead of resuming the CSV")
	drawOnly := flag.Bool("draw", false, "only draw the figures from the CSV")
	only := flag.String("only", "", "figures to run, comma-separated ("+strings.Join(paper.Figures, ",")+")")
	systems := flag.String("systems", "", "systems to run, comma-separated (default all)")
	budget := flag.Duration("budget", 0, "a cell's time budget (default: the settings')")
	memLimit := flag.String("mem-limit", "", "a cell's memory limit, e.g. 8GiB (default: the settings')")
	reps := flag.Int("reps", 0, "timed runs of a cell after its first (default: the settings')")
	scale := flag.Float64("scale", 0, "Table 1 surrogates' size factor (default: the settings')")
	python := flag.String("python", "", "the Python peers' interpreter (default /usr/bin/python3, then python3)")
	download := flag.Bool("download", false, "download Table 1 matrices not found locally")
	flag.Parse()
	if flag.NArg() > 0 {
		usage(fmt.Sprintf("unexpected argument %q", flag.Arg(0)))
	}
	s := paper.FullSettings()
	csv, figDir := filepath.Join("bench", "results", "paper.csv"), filepath.Join("doc", "figures")
	if *quick {
		s = paper.QuickSettings()
		csv, figDir = filepath.Join("bench", "results", "quick", "quick.csv"), filepath.Join("bench", "results", "quick")
	}
	if *csvPath != "" {
		csv = *csvPath
	}
	if *figures != "-" {
		figDir = *figures
	}
	if *only != "" {
		for _, f := range strings.Split(*only, ",") {
			if !contains(paper.Figures, f) {
				usage(fmt.Sprintf("-only: unknown figure %q (want %s)", f, strings.Join(paper.Figures, ", ")))
			}
			s.Figures = append(s.Figures, f)
		}
	}
	if *systems != "" {
		for _, id := range strings.Split(*systems, ",") {
			if _, ok := paper.SystemByID(id); !ok {
				usage(fmt.Sprintf("-systems: unknown system %q", id))
			}
			s.Systems = append(s.Systems, id)
		}
	}
	if *budget < 0 || *reps < 0 || *scale < 0 {
		usage("-budget, -reps and -scale must not be negative")
	}
	if *budget > 0 {
		s.Budget = *budget
	}
	if *memLimit != "" {
		b, err := nablasd.ParseBytes(*memLimit)
		if err != nil || b <= 0 {
			usage(fmt.Sprintf("-mem-limit: %q is not a size (like 8GiB)", *memLimit))
		}
		s.MemLimit = b
	}
	if *reps > 0 {
		s.Reps = *reps
	}
	if *scale > 0 {
		s.Table1Scale = *scale
	}
	s.Download = *download
	if *drawOnly {
		res, err := paper.ReadResultsFile(csv)
		if err != nil {
			fail(err)
		}
		files, err := paper.DrawAll(res, figDir)
		for _, f := range files {
			fmt.Fprintln(os.Stderr, "paper: wrote", f)
		}
		if err != nil {
			fail(err)
		}
		return
	}
	err := paper.Run(s, paper.RunOptions{CSV: csv, Fresh: *fresh, FigDir: figDir, WorkDir: *work, Python: *python,
		Log: os.Stderr, Progress: os.Stderr})
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "paper: results in %s\n", csv)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func usage(msg string) {
	fmt.Fprintf(os.Stderr, "paper: %s\nusage: paper [-quick] [-csv FILE] [-figures DIR] [-fresh] [-draw] [flags] (paper -h lists them)\n", msg)
	os.Exit(2)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "paper: %v\n", err)
	os.Exit(1)
}
