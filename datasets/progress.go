package datasets

import (
	"fmt"
	"io"
	"time"
)

// progressInterval is the least time between two progress updates.
var progressInterval = 250 * time.Millisecond

// progressReader passes reads through and draws a progress bar on w:
// bytes read out of the total (when known), percentage and rate.
type progressReader struct {
	r           io.Reader
	w           io.Writer
	name        string
	total, n    int64
	start, last time.Time
}

func newProgressReader(r io.Reader, w io.Writer, name string, total int64) *progressReader {
	now := time.Now()
	return &progressReader{r: r, w: w, name: name, total: total, start: now, last: now}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if now := time.Now(); now.Sub(p.last) >= progressInterval {
		p.last = now
		p.draw(false)
	}
	return n, err
}

// draw writes the current state, ending the line when final.
func (p *progressReader) draw(final bool) {
	if p.w == nil {
		return
	}
	secs := time.Since(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(p.n) / secs
	}
	end := ""
	if final {
		end = "\n"
	}
	if p.total > 0 {
		pct := 100 * float64(p.n) / float64(p.total)
		fmt.Fprintf(p.w, "\r%s: %s / %s %3.0f%% %s/s%s", p.name, byteSize(float64(p.n)), byteSize(float64(p.total)), pct, byteSize(rate), end)
	} else {
		fmt.Fprintf(p.w, "\r%s: %s %s/s%s", p.name, byteSize(float64(p.n)), byteSize(rate), end)
	}
}

// byteSize formats a byte count with a binary unit.
func byteSize(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	u := 0
	for b >= 1024 && u < len(units)-1 {
		b /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%.0f %s", b, units[u])
	}
	return fmt.Sprintf("%.1f %s", b, units[u])
}
