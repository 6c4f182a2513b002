package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// teePage makes everything the report prints to standard output also go
// to a Markdown page at path (-page), written when the returned function
// is called: a header naming the date, the commit, the machine and the
// flags, then the report's text. The page is written to a temporary file
// and renamed, so an interrupted run leaves the old page.
func teePage(path string, args []string) (finish func() error, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	real := os.Stdout
	os.Stdout = w
	var body strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(io.MultiWriter(real, &body), r)
	}()
	start := time.Now()
	return func() error {
		os.Stdout = real
		w.Close()
		wg.Wait()
		var b strings.Builder
		fmt.Fprintf(&b, "# Measurements\n\n")
		fmt.Fprintf(&b, "Written by `go run ./bench/cmd/report -page %s` (what `make bench` runs); how each column is measured is in [bench/README.md](../README.md) and `go doc ./bench/cmd/report`.\n\n", path)
		fmt.Fprintf(&b, "- date: %s (%s)\n", start.UTC().Format("2006-01-02 15:04 MST"), time.Since(start).Round(time.Second))
		fmt.Fprintf(&b, "- commit: %s\n", commit())
		fmt.Fprintf(&b, "- machine: %s, %d cores (GOMAXPROCS %d), %s, load average %s\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), memTotal(), loadAvg())
		fmt.Fprintf(&b, "- Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
		fmt.Fprintf(&b, "- flags: `%s`\n\n", strings.Join(args, " "))
		b.WriteString("```\n")
		b.WriteString(body.String())
		b.WriteString("```\n")
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}, nil
}

// commit is the working tree's commit, marked when it has changes.
func commit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

// cpuModel is /proc/cpuinfo's model name, or GOARCH.
func cpuModel() string {
	return procField("/proc/cpuinfo", "model name", runtime.GOARCH)
}

// memTotal is /proc/meminfo's MemTotal.
func memTotal() string {
	return procField("/proc/meminfo", "MemTotal", "memory unknown")
}

// loadAvg is /proc/loadavg's first three fields.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// procField returns the value of the first "key: value" line of a /proc
// file whose key is key, or def.
func procField(path, key, def string) string {
	f, err := os.Open(path)
	if err != nil {
		return def
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return def
}
