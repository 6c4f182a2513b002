package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"sort"

	"github.com/nablasd/nablasd/bench"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette colors the families, in bench.Families' order.
var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
}

// plotPoints draws compile time (CPU ms) against program size (nodes), both
// logarithmic, a line with points for each family (points alone for the
// random programs), into dir/compile-time.svg and .png.
func plotPoints(points []point, fits map[string]fit, dir string) ([]string, error) {
	p := plot.New()
	p.Title.Text = "Compile time against program size (gradient, one core)"
	p.X.Label.Text = "nodes of the logical program"
	p.Y.Label.Text = "CPU ms: Prepare + Compile"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	for i, f := range bench.Families {
		ft, ok := fits[f.Name]
		if !ok {
			continue
		}
		var xys plotter.XYs
		for _, pt := range points {
			if pt.family == f.Name && pt.err == "" && pt.nodes > 0 && pt.cpu > 0 {
				xys = append(xys, plotter.XY{X: float64(pt.nodes), Y: pt.cpu})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sort.Slice(xys, func(a, b int) bool { return xys[a].X < xys[b].X })
		c := palette[i%len(palette)]
		label := fmt.Sprintf("%s (exponent %.2f)", f.Name, ft.exponent)
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = c
		s.GlyphStyle.Radius = vg.Points(2.5)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		if f.Program != nil {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.LineStyle.Color = c
			l.LineStyle.Width = vg.Points(1.2)
			p.Add(l, s)
			p.Legend.Add(label, l, s)
		} else {
			p.Add(s)
			p.Legend.Add(label, s)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{".svg", ".png"} {
		path := filepath.Join(dir, "compile-time"+ext)
		if err := p.Save(8*vg.Inch, 5.5*vg.Inch, path); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}
