package paper

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// machine describes the machine for the CSV: CPU model, cores, memory,
// operating system and the load when the run started.
func machine() string {
	cpu := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	mem := ""
	if total, err := procMeminfo("MemTotal:"); err == nil {
		mem = ", " + gib(float64(total))
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = fmt.Sprintf(", load average %s %s %s", f[0], f[1], f[2])
		}
	}
	return fmt.Sprintf("%s, %d cores%s, %s/%s%s", cpu, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, load)
}

func procMeminfo(key string) (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s", key)
}

// goVersions names the Go toolchain and the commit this program was built
// from.
func goVersions() string {
	s := "go=" + runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				s += " commit=" + kv.Value[:min(len(kv.Value), 12)]
			case "vcs.modified":
				if kv.Value == "true" {
					s += " (modified)"
				}
			}
		}
	}
	return s
}
