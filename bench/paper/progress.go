package paper

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a progress bar of a run on a terminal: cells done, the
// time left (the remaining cells' estimates, scaled by how the estimates
// of the done ones compared with their real times) and the cell running.
type progress struct {
	w           io.Writer
	total, done int
	began       time.Time
	left        float64 // the remaining cells' estimated seconds
	spentEst    float64 // the done cells' estimates
	cellStart   time.Time
	cellEst     float64
	st          *runState
	lastLen     int
	lastDraw    time.Time
	current     string
	estimates   map[*Cell]float64
	log         io.Writer
	lastLog     time.Time
}

// newProgress returns the progress of the cells: a bar on w when it is a
// terminal, else a line on log every two minutes.
func newProgress(w io.Writer, cells []*Cell, st *runState) *progress {
	p := &progress{total: len(cells), began: time.Now(), st: st, estimates: map[*Cell]float64{}, log: st.log, lastLog: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.w = w
		}
	}
	for _, c := range cells {
		_, wall := st.rates.estimate(c, st.s)
		if wall > st.s.budgetOf(c).Seconds() || memoryNeed(c.System, c.Kernel, c.Input) > float64(st.s.MemLimit) {
			wall = 0 // skipped, or out of memory, when its turn comes
		}
		p.estimates[c] = wall
		p.left += wall
	}
	return p
}

func (p *progress) start(c *Cell) {
	p.cellStart, p.cellEst = time.Now(), p.estimates[c]
	p.current = fmt.Sprintf("%s %s %s %s", c.Figure, c.Panel, c.X, c.System)
	p.draw()
}

func (p *progress) finish(c *Cell, r *Row) {
	p.done++
	p.left -= p.estimates[c]
	if r.OK() {
		p.spentEst += p.estimates[c]
	}
	p.draw()
}

// remaining is the estimated time left.
func (p *progress) remaining() time.Duration {
	elapsed := time.Since(p.began).Seconds()
	scale := 1.0
	if p.spentEst > 1 {
		scale = min(max(elapsed/p.spentEst, 0.2), 5)
	}
	return time.Duration(p.left * scale * float64(time.Second)).Round(time.Second)
}

func (p *progress) draw() {
	if p.w == nil && time.Since(p.lastLog) > 2*time.Minute {
		p.lastLog = time.Now()
		fmt.Fprintf(p.log, "paper: %d/%d cells, %s left (%s)\n", p.done, p.total, p.remaining(), time.Since(p.began).Round(time.Second))
	}
	if p.w == nil || time.Since(p.lastDraw) < 200*time.Millisecond && p.done < p.total {
		return
	}
	p.lastDraw = time.Now()
	const width = 30
	fill := width * p.done / max(p.total, 1)
	line := fmt.Sprintf("[%s%s] %d/%d cells, %s left: %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		p.done, p.total, p.remaining(), p.current)
	if len(line) > 110 {
		line = line[:110]
	}
	fmt.Fprintf(p.w, "\r%-*s", p.lastLen, line)
	p.lastLen = len(line)
}

func (p *progress) stop() {
	if p.w != nil {
		p.current = "done"
		p.lastDraw = time.Time{}
		p.draw()
		fmt.Fprintln(p.w)
	}
}
