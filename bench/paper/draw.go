package paper

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawing a Figure with gonum/plot: a header (title, legend, notes) above
// a grid of panels, each a plot with a categorical x axis (the groups) and
// a logarithmic y axis, its series drawn as grouped bars or as lines with
// points (groupPlotter). A cell without a value draws nothing at its place
// but its MissingCodes code, small and turned, at the bottom of the panel:
// never a bar or point at zero.

// DrawAll draws every figure the results have rows for into dir, as
// ID.svg and ID.png, and returns the files written.
func DrawAll(res *Results, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, id := range Figures {
		fig, err := BuildFigure(res, id)
		if err != nil {
			return files, err
		}
		if len(fig.Panels) == 0 {
			continue
		}
		svg, png, err := Render(fig)
		if err != nil {
			return files, fmt.Errorf("%s: %v", id, err)
		}
		for ext, b := range map[string][]byte{".svg": svg, ".png": png} {
			path := filepath.Join(dir, id+ext)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// Render draws the figure as SVG and PNG.
func Render(fig *Figure) (svg, png []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gonum/plot: %v", r)
		}
	}()
	cols := 3
	if len(fig.Panels) < cols {
		cols = len(fig.Panels)
	}
	if fig.ID == "fig16" || fig.ID == "workloads" {
		cols = min(len(fig.Panels), 2)
	}
	rows := (len(fig.Panels) + cols - 1) / cols
	width := vg.Length(cols) * 5 * vg.Inch
	if cols == 1 {
		width = 9 * vg.Inch
	}
	header := headerHeight(fig, width)
	height := header + vg.Length(rows)*3.6*vg.Inch
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
		for c := range plots[r] {
			i := r*cols + c
			if i < len(fig.Panels) {
				plots[r][c] = panelPlot(fig.Panels[i])
			}
		}
	}
	draw1 := func(dc draw.Canvas) {
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		drawHeader(fig, draw.Crop(dc, 0, 0, height-header, 0))
		body := draw.Crop(dc, 0, 0, 0, -header)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 0.3 * vg.Inch, PadY: 0.25 * vg.Inch,
			PadLeft: 0.1 * vg.Inch, PadRight: 0.2 * vg.Inch, PadBottom: 0.1 * vg.Inch}
		cans := plot.Align(plots, tiles, body)
		for r := range plots {
			for c := range plots[r] {
				if plots[r][c] != nil {
					plots[r][c].Draw(cans[r][c])
				}
			}
		}
	}
	sc := vgsvg.New(width, height)
	draw1(draw.New(sc))
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	ic := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(110))
	draw1(draw.New(ic))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return nil, nil, err
	}
	return sb.Bytes(), pb.Bytes(), nil
}

func textStyle(size vg.Length) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler}
}

// headerLines lays out the header's text: the title, legend rows and the
// notes, wrapped to the width.
func headerLines(fig *Figure, width vg.Length) (legendRows [][]*Series, notes []string) {
	const perRow = 4
	for i := 0; i < len(fig.Legend); i += perRow {
		legendRows = append(legendRows, fig.Legend[i:min(i+perRow, len(fig.Legend))])
	}
	chars := int(width / (4.6 * vg.Millimeter * 0.62)) // characters per line at 9 pt
	for _, n := range fig.Notes {
		for len(n) > chars {
			cut := strings.LastIndex(n[:chars], " ")
			if cut <= 0 {
				cut = chars
			}
			notes = append(notes, n[:cut])
			n = "  " + strings.TrimSpace(n[cut:])
		}
		notes = append(notes, n)
	}
	return legendRows, notes
}

const lineHeight = 0.19 * vg.Inch

func headerHeight(fig *Figure, width vg.Length) vg.Length {
	legend, notes := headerLines(fig, width)
	return 0.45*vg.Inch + vg.Length(len(legend)+len(notes))*lineHeight + 0.1*vg.Inch
}

func drawHeader(fig *Figure, c draw.Canvas) {
	title := textStyle(13)
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	y := c.Max.Y - 0.12*vg.Inch
	c.FillText(title, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: y}, fig.Title)
	y -= 0.33 * vg.Inch
	legend, notes := headerLines(fig, c.Max.X-c.Min.X)
	label := textStyle(10)
	label.YAlign = draw.YCenter
	colW := (c.Max.X - c.Min.X - 0.4*vg.Inch) / 4
	for _, row := range legend {
		for i, s := range row {
			x := c.Min.X + 0.3*vg.Inch + vg.Length(i)*colW
			c.SetColor(s.Color)
			sw := vg.Length(9)
			c.Fill(vg.Rectangle{Min: vg.Point{X: x, Y: y - sw/2}, Max: vg.Point{X: x + 2*sw, Y: y + sw/2}}.Path())
			c.FillText(label, vg.Point{X: x + 2*sw + 4, Y: y}, s.Label)
		}
		y -= lineHeight
	}
	note := textStyle(9)
	note.YAlign = draw.YCenter
	for _, n := range notes {
		c.FillText(note, vg.Point{X: c.Min.X + 0.3*vg.Inch, Y: y}, n)
		y -= lineHeight
	}
}

// panelPlot is the gonum plot of one panel.
func panelPlot(p *Panel) *plot.Plot {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Title.TextStyle.Font.Size = 11
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	pl.X.Tick.Label.Font.Size = 8
	pl.Y.Tick.Label.Font.Size = 8
	var ticks []plot.Tick
	for i, g := range p.Groups {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: g})
	}
	pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	if len(p.Groups) > 5 && p.Bars {
		pl.X.Tick.Label.Rotation = math.Pi / 6
		pl.X.Tick.Label.XAlign, pl.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	lo, hi := valueRange(p)
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = decades{}
		// a decade of room below the smallest value for the bars and the
		// missing cells' codes, half a decade above
		lo, hi = math.Pow(10, math.Floor(math.Log10(lo))-0.6), math.Pow(10, math.Log10(hi)+0.5)
	}
	gp := &groupPlotter{p: p, lo: lo, hi: hi}
	pl.Add(gp)
	pl.X.Min, pl.X.Max = -0.6, float64(len(p.Groups))-0.4
	pl.Y.Min, pl.Y.Max = lo, hi
	return pl
}

// valueRange is the smallest and largest value of the panel (and its
// limit line), or a default range when it has none.
func valueRange(p *Panel) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !math.IsNaN(p.Limit) && p.Limit > 0 {
		lo, hi = math.Min(lo, p.Limit), math.Max(hi, p.Limit)
	}
	if math.IsInf(lo, 1) {
		return 1e-6, 1
	}
	return lo, hi
}

// groupPlotter draws a panel's series over its groups.
type groupPlotter struct {
	p      *Panel
	lo, hi float64
}

func (g *groupPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.6, float64(len(g.p.Groups)) - 0.4, g.lo, g.hi
}

func (g *groupPlotter) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	p := g.p
	n := len(p.Series)
	width := 0.8 / float64(max(n, 1)) // of a group's slot, per bar
	code := textStyle(6)
	code.Rotation = math.Pi / 2
	code.XAlign, code.YAlign = draw.XLeft, draw.YCenter
	code.Color = color.RGBA{0x40, 0x40, 0x40, 0xff}
	base := trY(g.lo)
	for si, s := range p.Series {
		off := -0.4 + width*(float64(si)+0.5)
		if !p.Bars {
			off = 0.5 * width * (float64(si) - float64(n-1)/2) // spread the missing codes
		}
		var line []vg.Point
		flush := func() {
			if len(line) > 1 {
				c.StrokeLines(draw.LineStyle{Color: s.Color, Width: vg.Points(1.5)}, line)
			}
			line = nil
		}
		for i, v := range s.Values {
			if math.IsNaN(v) {
				flush()
				if s.Missing[i] != "" {
					c.FillText(code, vg.Point{X: trX(float64(i) + off), Y: base + 2}, s.Missing[i])
				}
				continue
			}
			if p.Bars {
				x0, x1 := trX(float64(i)+off-width/2), trX(float64(i)+off+width/2)
				c.SetColor(s.Color)
				c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: base}, Max: vg.Point{X: x1, Y: trY(v)}}.Path())
				continue
			}
			pt := vg.Point{X: trX(float64(i)), Y: trY(v)}
			line = append(line, pt)
		}
		flush()
		if !p.Bars {
			for i, v := range s.Values {
				if !math.IsNaN(v) {
					c.DrawGlyph(draw.GlyphStyle{Color: s.Color, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}},
						vg.Point{X: trX(float64(i)), Y: trY(v)})
				}
			}
		}
	}
	if !math.IsNaN(p.Limit) && p.Limit > 0 {
		y := trY(p.Limit)
		c.StrokeLine2(draw.LineStyle{Color: color.RGBA{0xb0, 0, 0, 0xff}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
			c.Min.X, y, c.Max.X, y)
		lbl := textStyle(8)
		lbl.XAlign, lbl.YAlign = draw.XRight, draw.YBottom
		lbl.Color = color.RGBA{0xb0, 0, 0, 0xff}
		c.FillText(lbl, vg.Point{X: c.Max.X - 2, Y: y + 1}, p.LimitLabel)
	}
}

// decades ticks a logarithmic axis at its powers of ten, labelled 1e-3,
// 0.01, 0.1, 1, 10, 100, 1000, 1e4.
type decades struct{}

func (decades) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		v := math.Pow(10, e)
		if v < lo*0.999 || v > hi*1.001 {
			continue
		}
		label := fmt.Sprintf("1e%d", int(e))
		if e >= -2 && e <= 3 {
			label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
		for k := 2.0; k < 10; k++ {
			if m := k * v; m > lo && m < hi {
				ticks = append(ticks, plot.Tick{Value: m})
			}
		}
	}
	return ticks
}
