package paper

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"
)

// A Figure is what one figure draws, built from the CSV (BuildFigure)
// before anything is drawn, so that tests can check it: panels of groups
// (the x axis: matrices, densities, dimensions), one series per system
// with a value per group, or why it has none.
type Figure struct {
	ID, Title string
	Panels    []*Panel
	// Legend lists the systems drawn, in the order of Systems.
	Legend []*Series
	// Notes are printed under the legend: surrogate inputs, systems not
	// installed, what the missing-cell codes mean.
	Notes []string
}

// A Panel is one plot of a figure.
type Panel struct {
	Title          string
	XLabel, YLabel string
	// LogY: the y axis is logarithmic (every figure's is).
	LogY bool
	// Bars draws grouped bars; otherwise lines through the groups.
	Bars bool
	// Groups label the x axis, in order.
	Groups []string
	Series []*Series
	// Limit draws a horizontal line at that value (the memory limit), NaN
	// for none; LimitLabel names it.
	Limit      float64
	LimitLabel string
}

// A Series is one system's values in a panel.
type Series struct {
	System, Label string
	Color         color.RGBA
	// Values has one value per group; NaN where the cell has none, and
	// Missing[i] then says why in a few letters (MissingCodes).
	Values  []float64
	Missing []string
}

// MissingCodes are the codes drawn where a cell has no value, by the
// beginning of its status; a cell with no row at all is "-".
var MissingCodes = []struct{ Status, Code, Meaning string }{
	{"out of memory", "OOM", "out of memory (estimated or measured over the memory limit)"},
	{"skipped", "skip", "estimated over the time budget of a cell"},
	{"timeout", "t/o", "killed at twice the time budget"},
	{"not installed", "n/i", "not installed"},
	{"unsupported", "uns", "not supported by the system"},
	{"wrong result", "bad", "result differs from the hand-written Go's"},
	{"error", "err", "failed"},
	{"ok", "n/m", "not measured"},
}

func missingCode(status string) string {
	for _, m := range MissingCodes {
		if strings.HasPrefix(status, m.Status) {
			return m.Code
		}
	}
	return "?"
}

// figureTitles are the figures' titles, after the paper's captions.
var figureTitles = map[string]string{
	"fig11":     "Fig. 11: gradients of the matrix kernels over the Table 1 matrices",
	"fig12":     "Fig. 12: matrix kernels by density",
	"fig13":     "Fig. 13: matrix kernels by dimension",
	"fig14":     "Fig. 14: vector kernels by density",
	"fig15":     "Fig. 15: vector kernels by dimension",
	"fig16":     "Fig. 16: BATAx: impact of normalization and DPS",
	"ours":      "Not in the paper (ours): SMMM w.r.t. a sparse B, and BATAx with pdb1HYS banded, over the Table 1 matrices",
	"workloads": "Workloads (../shared/workloads): gradients against hand-written Go, PyTorch and SciPy",
	"memory":    "Peak memory of the gradients over the Table 1 matrices",
}

// BuildFigure builds figure id (one of Figures) from the results.
func BuildFigure(res *Results, id string) (*Figure, error) {
	title, ok := figureTitles[id]
	if !ok {
		return nil, fmt.Errorf("unknown figure %q (want one of %s)", id, strings.Join(Figures, ", "))
	}
	fig := &Figure{ID: id, Title: title}
	src := id
	if id == "memory" {
		src = "fig11"
	}
	var rows []*Row
	for _, r := range res.Rows {
		if r.Figure == src {
			rows = append(rows, r)
		}
	}
	// panels in order of first appearance, groups by XOrder
	var panelOrder []string
	panels := map[string][]*Row{}
	for _, r := range rows {
		if _, ok := panels[r.Panel]; !ok {
			panelOrder = append(panelOrder, r.Panel)
		}
		panels[r.Panel] = append(panels[r.Panel], r)
	}
	memLimit := math.NaN()
	if id == "memory" {
		memLimit = settingNumber(res.Setting("settings"), "mem_limit")
	}
	used := map[string]bool{}
	surrogates := map[string]string{}
	missing := map[string]bool{}
	notInstalled := map[string]string{}
	for _, pname := range panelOrder {
		prs := panels[pname]
		p := &Panel{Title: pname, LogY: true, Limit: math.NaN(), YLabel: "time (s)"}
		switch id {
		case "fig11", "fig16", "ours", "workloads":
			p.Bars = true
		case "memory":
			p.Bars, p.YLabel, p.Limit, p.LimitLabel = true, "peak memory (MB)", memLimit/1e6, "memory limit"
		}
		p.XLabel = map[string]string{"fig11": "matrix", "ours": "matrix", "memory": "matrix", "fig12": "density", "fig14": "density",
			"fig16": "density", "fig13": "dimension", "fig15": "dimension", "workloads": "workload"}[id]
		type group struct {
			label string
			order float64
		}
		var groups []group
		seen := map[string]bool{}
		for _, r := range prs {
			if !seen[r.X] {
				seen[r.X] = true
				label := r.X
				if strings.HasPrefix(r.Source, "surrogate") {
					label += "*"
					surrogates[r.X] = r.Source
				}
				groups = append(groups, group{label, r.XOrder})
			}
		}
		sort.SliceStable(groups, func(i, j int) bool { return groups[i].order < groups[j].order })
		index := map[string]int{}
		for i, g := range groups {
			p.Groups = append(p.Groups, g.label)
			index[strings.TrimSuffix(g.label, "*")] = i
		}
		bySystem := map[string]*Series{}
		for _, r := range prs {
			s := bySystem[r.System]
			if s == nil {
				sys, ok := SystemByID(r.System)
				if !ok {
					sys = System{ID: r.System, Label: r.System, Color: color.RGBA{0, 0, 0, 0xff}}
				}
				s = &Series{System: sys.ID, Label: sys.Label, Color: sys.Color,
					Values: make([]float64, len(groups)), Missing: make([]string, len(groups))}
				for i := range s.Values {
					s.Values[i], s.Missing[i] = math.NaN(), "-"
				}
				bySystem[r.System] = s
			}
			i := index[r.X]
			v := r.Time
			if id == "memory" {
				v = math.NaN()
				if r.OK() && r.PeakBytes >= 0 {
					v = math.Max(float64(r.PeakBytes), 4096) / 1e6
				}
			}
			if r.OK() && !math.IsNaN(v) && v > 0 {
				s.Values[i], s.Missing[i] = v, ""
			} else {
				s.Missing[i] = missingCode(r.Status)
				missing[s.Missing[i]] = true
				if r.Status == "not installed" {
					notInstalled[s.Label] = r.Detail
				}
			}
		}
		for _, sys := range Systems {
			if s := bySystem[sys.ID]; s != nil {
				p.Series = append(p.Series, s)
				if !used[sys.ID] {
					used[sys.ID] = true
					fig.Legend = append(fig.Legend, s)
				}
			}
		}
		for id, s := range bySystem {
			if _, known := SystemByID(id); !known {
				p.Series = append(p.Series, s)
			}
		}
		fig.Panels = append(fig.Panels, p)
	}
	if len(surrogates) > 0 {
		var names []string
		for n, s := range surrogates {
			names = append(names, fmt.Sprintf("%s (%s)", n, s))
		}
		sort.Strings(names)
		fig.Notes = append(fig.Notes, "* surrogate with the real matrix's shape, entries, symmetry and kind of row lengths: "+strings.Join(names, ", "))
	}
	if len(notInstalled) > 0 {
		var names []string
		for n := range notInstalled {
			names = append(names, n)
		}
		sort.Strings(names)
		fig.Notes = append(fig.Notes, "not installed: "+strings.Join(names, ", ")+" (make paper-deps)")
	}
	if len(missing) > 0 {
		var codes []string
		for _, m := range MissingCodes {
			if missing[m.Code] {
				codes = append(codes, m.Code+" = "+m.Meaning)
			}
		}
		if missing["-"] {
			codes = append(codes, "- = not run")
		}
		fig.Notes = append(fig.Notes, "no bar or point, at the bottom: "+strings.Join(codes, "; "))
	}
	if id == "memory" {
		fig.Notes = append(fig.Notes, "peak resident memory of building the system's inputs, compiling and the first run, above the loaded matrix")
	}
	return fig, nil
}

// settingNumber reads key=NUMBER from a settings line (NaN when absent).
func settingNumber(line, key string) float64 {
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				return x
			}
		}
	}
	return math.NaN()
}
