package paper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// A proc is a runner process that answers each JSON line with one JSON
// line: a Go child of this program, the generated Go's runner or the
// Python peer, each serving every cell of its kind of a run.
type proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	done   chan struct{}
}

func startProc(name string, args []string, env []string) (*proc, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, in: in, lines: make(chan []byte, 1), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = &limitedBuffer{b: p.stderr, max: 1 << 16}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		br := bufio.NewReaderSize(out, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				break
			}
		}
		close(p.lines)
		// Wait closes the pipe: only once everything is read
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// A runner is a persistent runner process, started when first asked and
// again after a cell it had to be killed for (or died in).
type runner struct {
	path      string
	args, env []string
	p         *proc
	onStart   func(p *proc) error
}

// ask runs one cell (see proc.ask).
func (r *runner) ask(v any, ans any, timeout time.Duration, memLimit int64) (string, error) {
	if err := r.ensure(); err != nil {
		return "", err
	}
	killed, err := r.p.ask(v, ans, timeout, memLimit)
	if killed != "" || err != nil {
		r.p.kill()
		r.p = nil
	}
	return killed, err
}

// ensure starts the process if it is not running.
func (r *runner) ensure() error {
	if r.p != nil {
		return nil
	}
	p, err := startProc(r.path, r.args, r.env)
	if err != nil {
		return err
	}
	if r.onStart != nil {
		if err := r.onStart(p); err != nil {
			p.kill()
			return err
		}
	}
	r.p = p
	return nil
}

// stop ends the process.
func (r *runner) stop() {
	if r.p != nil {
		r.p.close()
		r.p = nil
	}
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// ask sends v and decodes the answer into ans. It kills the process when
// no answer comes within timeout, or its resident memory passes memLimit
// (0: no limit), and then returns the status to record ("timeout (…)",
// "out of memory (…)"); a process that dies gives an error with the end
// of its standard error.
func (p *proc) ask(v any, ans any, timeout time.Duration, memLimit int64) (killed string, err error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return "", p.died(err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return "", p.died(io.ErrUnexpectedEOF)
			}
			if err := json.Unmarshal(line, ans); err != nil {
				return "", fmt.Errorf("runner answered %q: %v", firstLine(string(line)), err)
			}
			return "", nil
		case <-deadline.C:
			p.kill()
			return fmt.Sprintf("timeout (killed after %.0f s)", timeout.Seconds()), nil
		case <-tick.C:
			if memLimit <= 0 {
				continue
			}
			if rss, err := procStatus(p.cmd.Process.Pid, "VmRSS:"); err == nil && rss > memLimit {
				p.kill()
				return fmt.Sprintf("out of memory (killed at %s, over the limit %s)", gib(float64(rss)), gib(float64(memLimit))), nil
			}
		}
	}
}

func (p *proc) died(err error) error {
	p.kill()
	msg := strings.TrimSpace(p.stderr.String())
	if i := strings.LastIndex(msg, "\n"); len(msg) > 400 && i >= 0 {
		msg = msg[max(0, len(msg)-400):]
	}
	if msg == "" {
		msg = err.Error()
	}
	if st := p.cmd.ProcessState; st != nil && !st.Success() {
		msg = st.String() + ": " + msg
	}
	return fmt.Errorf("runner died: %s", firstLine(strings.ReplaceAll(msg, "\n", " | ")))
}

// kill ends the process and waits for it.
func (p *proc) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
	<-p.done
}

// close ends the process's input and waits for it.
func (p *proc) close() {
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.kill()
	}
}
