package datasets

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a batch job's progress line on a terminal: groups done,
// rows (table entries) read per second, and the time left when the total
// number of rows is known.
type progress struct {
	w     io.Writer
	total int64 // rows of the grouped inputs, -1 when unknown
	start time.Time

	mu      sync.Mutex
	groups  int
	rows    int64 // rows of the groups run
	skipped int64 // rows of the groups kept from an earlier run
	ticker  *time.Ticker
	quit    chan struct{}
	stopped bool
	drawn   bool
}

func newProgress(w io.Writer, total int64, start time.Time) *progress {
	p := &progress{w: w, total: total, start: start}
	if w == nil {
		return p
	}
	p.ticker = time.NewTicker(progressInterval)
	p.quit = make(chan struct{})
	go func() {
		for {
			select {
			case <-p.ticker.C:
				p.draw(false)
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

func (p *progress) done(rows int64) {
	p.mu.Lock()
	p.groups++
	p.rows += rows
	p.mu.Unlock()
}

func (p *progress) skip(rows int64) {
	p.mu.Lock()
	p.skipped += rows
	p.mu.Unlock()
}

// stop draws the last line and ends it.
func (p *progress) stop() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	p.ticker.Stop()
	close(p.quit)
	p.draw(true)
}

func (p *progress) draw(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || (p.stopped && !final) {
		return
	}
	secs := time.Since(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(p.rows) / secs
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\r%d groups", p.groups)
	if p.total > 0 {
		frac := float64(p.rows+p.skipped) / float64(p.total)
		fmt.Fprintf(&b, ", %3.0f%% of %s entries", 100*min(frac, 1), countString(float64(p.total)))
	}
	fmt.Fprintf(&b, ", %s entries/s", countString(rate))
	if p.total > 0 && rate > 0 && !final {
		left := float64(p.total-p.rows-p.skipped) / rate
		fmt.Fprintf(&b, ", %s left", (time.Duration(max(left, 0)) * time.Second).Round(time.Second))
	}
	if final {
		fmt.Fprintf(&b, ", %s\n", time.Since(p.start).Round(time.Millisecond))
	} else {
		b.WriteString("   ")
	}
	p.drawn = true
	io.WriteString(p.w, b.String())
}

// countString formats a count with a metric suffix (12.3k, 4.56M).
func countString(x float64) string {
	switch {
	case x >= 1e9:
		return fmt.Sprintf("%.3gG", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("%.3gM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.3gk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}
