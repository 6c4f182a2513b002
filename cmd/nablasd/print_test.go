package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestPrintPipe: a result of a million entries printed to a pipe comes
// whole, every entry in key order with its value, and the command's peak
// resident memory stays under twice the result's bytes plus 100 MB (it
// was the result's literal built whole, and before it the result as sdql
// values: a 16K × 16K result ran to 20 GB). TestPrintPipeLong is the same
// at 10^8 entries.
func TestPrintPipe(t *testing.T) { printPipe(t, 1_000_000) }

// TestPrintPipeLong: TestPrintPipe at 10^8 entries (about 3.5 GB of text,
// half a minute).
func TestPrintPipeLong(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10^8 entries take half a minute")
	}
	printPipe(t, 100_000_000)
}

func printPipe(t *testing.T, n int) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hwm := filepath.Join(t.TempDir(), "hwm")
	// i * 0.5 is exact: the oracle is the same product here
	cmd := osexec.Command(exe, "eval", "-e", "sum(<i, _> in (0:n)) { i -> i * 0.5 }", "--in", fmt.Sprintf("n=%d", n), "--stats", "--exec", "compiled")
	cmd.Env = append(os.Environ(), "NABLASD_RUN_MAIN=1", "NABLASD_HWM_FILE="+hwm)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	entries, bytesRead, bad := readVector(bufio.NewReaderSize(out, 1<<20))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	if bad != "" || entries != n {
		t.Errorf("read %d entries of %d: %s", entries, n, bad)
	}
	var mb float64
	if _, rest, ok := strings.Cut(stderr.String(), "result_mb="); ok {
		fmt.Sscanf(rest, "%g", &mb)
	}
	b, err := os.ReadFile(hwm)
	if err != nil {
		t.Fatal(err)
	}
	kib, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	peak, result := float64(kib)/1024, mb
	bound := 2*result + 100
	t.Logf("%d entries, %.1f MB of text in %v: peak resident %.1f MiB, the result %.1f MiB, bound 2 × result + 100 = %.1f MiB",
		n, float64(bytesRead)/1e6, time.Since(start).Round(time.Millisecond), peak, result, bound)
	if mb <= 0 || (peak > bound && !raceEnabled) { // the race detector's shadow memory is not the printer's
		t.Errorf("peak resident %.1f MiB over the bound %.1f MiB (the result %.1f MiB; stderr %q)", peak, bound, result, stderr.String())
	}
}

// readVector reads a vector literal {0 -> 0, 1 -> 0.5, ...} of values
// k * 0.5 and returns its entries, bytes, and what was wrong ("" when
// nothing), without holding it.
func readVector(r *bufio.Reader) (entries int, n int64, bad string) {
	c, err := r.ReadByte()
	if err != nil || c != '{' {
		return 0, 1, "no opening brace"
	}
	n = 1
	for {
		entry, err := r.ReadSlice(',')
		n += int64(len(entry))
		end := false
		switch {
		case err == io.EOF:
			if !bytes.HasSuffix(entry, []byte("}\n")) {
				return entries, n, fmt.Sprintf("the end %q", entry)
			}
			entry, end = entry[:len(entry)-2], true
		case err != nil:
			return entries, n, err.Error()
		default:
			entry = entry[:len(entry)-1]
		}
		k, v, ok := bytes.Cut(bytes.TrimPrefix(entry, []byte(" ")), []byte(" -> "))
		ki, kerr := strconv.Atoi(string(k))
		vf, verr := strconv.ParseFloat(string(v), 64)
		if !ok || kerr != nil || verr != nil || ki != entries || vf != float64(ki)*0.5 {
			return entries, n, fmt.Sprintf("entry %d: %q", entries, entry)
		}
		entries++
		if end {
			return entries, n, ""
		}
	}
}

// TestPrintTerminal: on a terminal (a pseudo-terminal here) a result of
// more than a thousand entries prints as a summary, the first and last
// three keys of each dictionary with the shape and the number of entries,
// and a note on standard error; --print all prints it whole there, and a
// small result prints whole.
func TestPrintTerminal(t *testing.T) {
	const prog = "sum(<i, _> in (0:n)) { i -> sum(<j, _> in (0:m)) { j -> i * 10 + j } }"
	for _, c := range []struct {
		args   []string
		want   string
		stderr string
	}{
		{[]string{"--in", "n=40", "--in", "m=30"},
			"{0 -> {0 -> 0, 1 -> 1, 2 -> 2, ..., 27 -> 27, 28 -> 28, 29 -> 29},\n" +
				" 1 -> {0 -> 10, 1 -> 11, 2 -> 12, ..., 27 -> 37, 28 -> 38, 29 -> 39},\n" +
				" 2 -> {0 -> 20, 1 -> 21, 2 -> 22, ..., 27 -> 47, 28 -> 48, 29 -> 49},\n" +
				" ...,\n" +
				" 37 -> {0 -> 370, 1 -> 371, 2 -> 372, ..., 27 -> 397, 28 -> 398, 29 -> 399},\n" +
				" 38 -> {0 -> 380, 1 -> 381, 2 -> 382, ..., 27 -> 407, 28 -> 408, 29 -> 409},\n" +
				" 39 -> {0 -> 390, 1 -> 391, 2 -> 392, ..., 27 -> 417, 28 -> 418, 29 -> 419}}\n" +
				"// shape 40×30, 1200 entries\n",
			"nablasd: a summary of a large result on a terminal: --print all prints every entry\n"},
		{[]string{"--in", "n=2", "--in", "m=3"}, "{0 -> {0 -> 0, 1 -> 1, 2 -> 2}, 1 -> {0 -> 10, 1 -> 11, 2 -> 12}}\n", ""},
		{[]string{"--in", "n=40", "--in", "m=30", "--print", "all"}, "", ""},
	} {
		got, stderr, code := runOnTerminal(t, append([]string{"eval", "-e", prog}, c.args...))
		if c.want == "" {
			// the whole literal, as a pipe gets it
			_, want, _ := runCLI(append([]string{"eval", "-e", prog}, c.args...)...)
			c.want = want
		}
		if code != 0 || got != c.want || stderr != c.stderr {
			t.Errorf("%q on a terminal: exit %d, stdout\n%s\nstderr %q\nwant\n%s\nstderr %q", c.args, code, got, stderr, c.want, c.stderr)
		}
	}
	// a pipe gets everything, and --print summary a summary anywhere
	_, whole, _ := runCLI("eval", "-e", prog, "--in", "n=40", "--in", "m=30")
	if strings.Contains(whole, "...") || strings.Count(whole, " -> ") != 40*30+40 {
		t.Errorf("a pipe: %d entries, want every one", strings.Count(whole, " -> "))
	}
	_, summary, stderr := runCLI("eval", "-e", prog, "--in", "n=40", "--in", "m=30", "--print", "summary")
	if !strings.HasSuffix(summary, "// shape 40×30, 1200 entries\n") || stderr != "" {
		t.Errorf("--print summary: %q, stderr %q", summary, stderr)
	}
	if code, _, stderr := runCLI("eval", "-e", "1", "--print", "some"); code != 2 || !strings.Contains(stderr, `--print "some": want auto, all or summary`) {
		t.Errorf("--print some: exit %d, %q", code, stderr)
	}
}

// runOnTerminal runs the command with its standard output on a new
// pseudo-terminal and returns what it printed there (newlines as the
// command wrote them) and on standard error.
func runOnTerminal(t *testing.T, args []string) (stdout, stderr string, code int) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer master.Close()
	unlock := int32(0)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("the pseudo-terminal: %v", err)
	}
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the slave is closed
		done <- b
	}()
	var errb bytes.Buffer
	code = run(args, slave, &errb)
	slave.Close()
	out := <-done
	// the terminal turns each \n into \r\n
	return strings.ReplaceAll(string(out), "\r\n", "\n"), errb.String(), code
}
