package jit

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"plugin"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/nablasd/nablasd/internal/gotool"
)

// LoadCached is Load without the toolchain: it returns the named symbols
// of src's plugin when this process has opened it or the cache holds it
// built (found true), and found false with no error when neither does. It
// costs a hash of the source and a file lookup on a miss, opening the
// plugin on a hit, and never runs go build. The error is a cached plugin
// that cannot be opened or lacks a symbol.
func LoadCached(src []byte, symbols ...string) (syms map[string]plugin.Symbol, found bool, err error) {
	key := Key(src)
	mu.Lock()
	p := opened[key]
	mu.Unlock()
	if p == nil {
		so := filepath.Join(CacheDir(), key, "kernel.so")
		if _, err := os.Stat(so); err != nil {
			return nil, false, nil
		}
		if p, err = plugin.Open(so); err != nil {
			return nil, true, fmt.Errorf("jit: %v", err)
		}
		mu.Lock()
		opened[key] = p
		mu.Unlock()
	}
	syms, err = lookup(p, symbols)
	return syms, true, err
}

// lookup returns the named symbols of an opened plugin.
func lookup(p *plugin.Plugin, symbols []string) (map[string]plugin.Symbol, error) {
	out := make(map[string]plugin.Symbol, len(symbols))
	for _, s := range symbols {
		v, err := p.Lookup(s)
		if err != nil {
			return nil, fmt.Errorf("jit: %v", err)
		}
		out[s] = v
	}
	return out, nil
}

var (
	availableOnce sync.Once
	availableErr  error
)

// Available reports why Load cannot work in this process (nil when, as far
// as cheap checks tell, it can): an operating system without plugins, a
// binary built without cgo or with -trimpath, no go command (the
// toolchain's, gotool.Command) or no C compiler on PATH ($CC, gcc, clang
// or cc; go build needs one for a plugin). The checks run once; they look
// at files and the binary's build settings, and run nothing.
func Available() error {
	availableOnce.Do(func() { availableErr = available() })
	return availableErr
}

func available() error {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd":
	default:
		return fmt.Errorf("Go plugins are not supported on %s", runtime.GOOS)
	}
	if err := hostSettings(); err != nil {
		return err
	}
	if _, err := gotool.Command(); err != nil {
		return fmt.Errorf("no Go toolchain: %v", err)
	}
	ccs := []string{"gcc", "clang", "cc"}
	if cc := strings.Fields(os.Getenv("CC")); len(cc) > 0 {
		ccs = []string{cc[0]}
	}
	for _, cc := range ccs {
		if _, err := exec.LookPath(cc); err == nil {
			return nil
		}
	}
	return fmt.Errorf("no C compiler (%s) on PATH: Go plugins need cgo", strings.Join(ccs, ", "))
}

// hostSettings rejects a host binary built so that it cannot open the
// plugins build makes: without cgo, or with -trimpath (the standard
// library's package hashes then differ from the plugin's).
func hostSettings() error {
	exe, err := os.Executable()
	if err != nil {
		return nil // unknown: Load will tell
	}
	info, err := buildinfo.ReadFile(exe)
	if err != nil {
		return nil
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "CGO_ENABLED" && s.Value == "0":
			return errors.New("this program was built without cgo (CGO_ENABLED=0): it cannot open Go plugins")
		case s.Key == "-trimpath" && s.Value == "true":
			return errors.New("this program was built with -trimpath: it cannot open the plugins go build makes")
		}
	}
	return nil
}

// staleBuild is the age after which a build directory in the cache is
// taken for the leftover of a build that was killed (its process ended
// during go build) and removed: far longer than any build takes.
const staleBuild = time.Hour

// sweep removes the build directories of killed builds from the cache.
// A build publishes its plugin by renaming a finished directory into
// place, so a killed one leaves only its build-* directory, never a
// partial entry.
func sweep() {
	dirs, _ := filepath.Glob(filepath.Join(CacheDir(), "build-*"))
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && time.Since(st.ModTime()) > staleBuild {
			os.RemoveAll(d)
		}
	}
}
