package paper

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestFigureDataDriven runs testdata/figures.txt (regenerate with go test
// ./bench/paper -run TestFigureDataDriven -rewrite):
//
//	figure csv=FILE id=ID    the figure's model, built from testdata/FILE
func TestFigureDataDriven(t *testing.T) {
	datadriven.RunTest(t, "testdata/figures.txt", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "figure":
			var file, id string
			d.ScanArgs(t, "csv", &file)
			d.ScanArgs(t, "id", &id)
			res, err := ReadResultsFile(filepath.Join("testdata", file))
			if err != nil {
				return "error: " + err.Error()
			}
			fig, err := BuildFigure(res, id)
			if err != nil {
				return "error: " + err.Error()
			}
			return dumpFigure(fig)
		}
		d.Fatalf(t, "unknown command %s", d.Cmd)
		return ""
	})
}

func dumpFigure(fig *Figure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", fig.ID, fig.Title)
	var legend []string
	for _, s := range fig.Legend {
		legend = append(legend, s.Label)
	}
	fmt.Fprintf(&b, "legend: %s\n", strings.Join(legend, "; "))
	for _, n := range fig.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, p := range fig.Panels {
		kind := "lines"
		if p.Bars {
			kind = "bars"
		}
		scale := "linear"
		if p.LogY {
			scale = "log"
		}
		fmt.Fprintf(&b, "panel %q: x %q, y %q (%s), %s\n", p.Title, p.XLabel, p.YLabel, scale, kind)
		if !math.IsNaN(p.Limit) {
			fmt.Fprintf(&b, "  line at %g: %s\n", p.Limit, p.LimitLabel)
		}
		fmt.Fprintf(&b, "  groups: %s\n", strings.Join(p.Groups, " "))
		for _, s := range p.Series {
			var vals []string
			for i, v := range s.Values {
				if math.IsNaN(v) {
					vals = append(vals, "["+s.Missing[i]+"]")
				} else {
					vals = append(vals, fmt.Sprintf("%.3g", v))
				}
			}
			fmt.Fprintf(&b, "  %s: %s\n", s.System, strings.Join(vals, " "))
		}
	}
	return b.String()
}

// The rendered figures have their labels and a logarithmic y axis, and a
// missing cell is drawn as its code, never as a bar.
func TestRenderSmall(t *testing.T) {
	res, err := ReadResultsFile("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"fig11", "fig12", "memory"} {
		fig, err := BuildFigure(res, id)
		if err != nil {
			t.Fatal(err)
		}
		svg, png, err := Render(fig)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		checkSVG(t, id, svg)
		if len(png) < 1000 || string(png[1:4]) != "PNG" {
			t.Errorf("%s: not a PNG", id)
		}
		text := string(svg)
		want := []string{fig.Title, fig.Panels[0].XLabel, fig.Panels[0].YLabel, fig.Panels[0].Title}
		switch id {
		case "fig11":
			want = append(want, "OOM", "skip", "bad", "n/i", "bcspwr10", "pdb1HYS*", "PyTorch dense (jacobian)", "1e-3")
		case "memory":
			want = append(want, "memory limit", "peak memory (MB)")
		case "fig12":
			want = append(want, "t/o", "2^-8", "density")
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s.svg has no %q", id, w)
			}
		}
		for _, p := range fig.Panels {
			pl := panelPlot(p)
			if _, ok := pl.Y.Scale.(plot.LogScale); !ok {
				t.Errorf("%s %s: y scale %T, want plot.LogScale", id, p.Title, pl.Y.Scale)
			}
			if pl.Y.Min <= 0 {
				t.Errorf("%s %s: y axis from %g", id, p.Title, pl.Y.Min)
			}
		}
	}
}

// A missing cell is NaN with its code in the model, and the drawing puts
// no bar for it: the bars drawn are exactly the values present.
func TestMissingNotZero(t *testing.T) {
	res, err := ReadResultsFile("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	fig, err := BuildFigure(res, "fig11")
	if err != nil {
		t.Fatal(err)
	}
	p := fig.Panels[0]
	present, missing := 0, 0
	for _, s := range p.Series {
		for i, v := range s.Values {
			switch {
			case math.IsNaN(v):
				missing++
				if s.Missing[i] == "" {
					t.Errorf("%s %s: missing without a code", s.System, p.Groups[i])
				}
			case v <= 0:
				t.Errorf("%s %s: value %g", s.System, p.Groups[i], v)
			default:
				present++
			}
		}
	}
	if missing == 0 {
		t.Fatal("the test CSV has no missing BATAx cell")
	}
	// count the filled rectangles the bars draw: one per value present
	rects := countBars(t, p)
	if rects != present {
		t.Errorf("%d bars drawn, want %d (values present; %d missing)", rects, present, missing)
	}
}

// countBars draws the panel on a recording canvas and counts the filled
// shapes in a series' color: the bars.
func countBars(t *testing.T, p *Panel) int {
	t.Helper()
	rec := &recorder.Canvas{}
	pl := panelPlot(p)
	pl.Draw(draw.NewCanvas(rec, 5*vg.Inch, 4*vg.Inch))
	colors := map[color.RGBA]bool{}
	for _, s := range p.Series {
		colors[s.Color] = true
	}
	n := 0
	var cur color.Color
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Fill:
			if c, ok := cur.(color.RGBA); ok && colors[c] {
				n++
			}
		}
	}
	return n
}
