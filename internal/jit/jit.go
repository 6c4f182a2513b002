// Package jit turns generated Go source into native code inside the
// running process: it builds the source as a Go plugin with the Go
// toolchain the process was built with (go build -buildmode=plugin),
// keeps the built plugin in a cache keyed by the source and the toolchain,
// and opens it (package plugin). This is how TACO runs its generated C;
// here the generated code is gogen's, and the toolchain Go's.
//
// Plugins need cgo (a C compiler when the host binary is built) and the
// same toolchain and build flags for the plugin as for the host (a binary
// built with -race gets plugins built with -race; one built with -cover or
// -trimpath cannot load them). Every such case is an error from Load, never a crash, so
// callers can fall back to another executor.
package jit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"plugin"
	"runtime"
	"strings"
	"sync"

	"github.com/nablasd/nablasd/internal/gotool"
	"github.com/nablasd/nablasd/internal/hotloops"
)

// CacheDir is where built plugins are kept: $NABLASD_JIT_CACHE, else
// nablasd/jit under the user's cache directory (os.UserCacheDir), else
// under the temporary directory.
func CacheDir() string {
	if d := os.Getenv("NABLASD_JIT_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "nablasd", "jit")
	}
	return filepath.Join(os.TempDir(), "nablasd-jit")
}

var (
	mu     sync.Mutex
	opened = map[string]*plugin.Plugin{}
)

// Load builds src, the source of a package main, into a plugin (or finds
// it built in the cache), opens it and returns the named symbols. The
// plugin's package path is unique to the source, so any number of
// different sources can be loaded into one process; loading the same
// source again returns the same plugin.
func Load(src []byte, symbols ...string) (map[string]plugin.Symbol, error) {
	key := Key(src)
	mu.Lock()
	p := opened[key]
	mu.Unlock()
	if p == nil {
		path, err := build(key, src)
		if err != nil {
			return nil, err
		}
		if p, err = plugin.Open(path); err != nil {
			return nil, fmt.Errorf("jit: %v", err)
		}
		mu.Lock()
		opened[key] = p
		mu.Unlock()
	}
	return lookup(p, symbols)
}

// recipe names how build builds a plugin beyond the toolchain and the
// source (the flags it adds), so that a plugin built another way is not
// taken from the cache.
const recipe = "hot-profile"

// Key is the cache key of a source: a hash of it, of the toolchain and of
// the recipe.
func Key(src []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s race=%v %s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, raceBuild, recipe)
	h.Write(src)
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// build returns the path of the plugin of src, building it into the cache
// if it is not there.
func build(key string, src []byte) (string, error) {
	dir := filepath.Join(CacheDir(), key)
	so := filepath.Join(dir, "kernel.so")
	if _, err := os.Stat(so); err == nil {
		return so, nil
	}
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return "", fmt.Errorf("jit: the cache: %v", err)
	}
	sweep()
	tmp, err := os.MkdirTemp(CacheDir(), "build-")
	if err != nil {
		return "", fmt.Errorf("jit: the cache: %v", err)
	}
	defer os.RemoveAll(tmp)
	pkg := "nablasd.jit/k" + key // the plugin's package path
	mod := fmt.Sprintf("module %s\n\ngo 1.21\n", pkg)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(mod), 0o644); err != nil {
		return "", fmt.Errorf("jit: %v", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "kernel.go"), src, 0o644); err != nil {
		return "", fmt.Errorf("jit: %v", err)
	}
	// every function hot, so that the compiler aligns the loops
	// (internal/hotloops). The profile is a function of the source and
	// the package path, so go build's own cache, which keys the flag and
	// not the file, stays right. A source that does not parse gets no
	// profile, and go build's message.
	args := []string{"build", "-buildmode=plugin"}
	if names, err := hotloops.Names(pkg, src); err == nil {
		if err := os.WriteFile(filepath.Join(tmp, "hot.pgo"), hotloops.Profile(names), 0o644); err != nil {
			return "", fmt.Errorf("jit: %v", err)
		}
		args = append(args, "-gcflags=-pgoprofile=hot.pgo") // relative: the compiler runs in tmp
	}
	if raceBuild {
		args = append(args, "-race")
	}
	gobin, err := gotool.Command()
	if err != nil {
		return "", fmt.Errorf("jit: %v", err)
	}
	cmd := exec.Command(gobin, append(args, "-o", "kernel.so", ".")...)
	cmd.Dir = tmp
	// cgo on (plugins need it); GOFLAGS such as -race dropped (the host
	// decides, raceBuild); go build's work directory in tmp, removed with
	// it (or swept, when the build was killed)
	cmd.Env = gotool.Env(map[string]string{"CGO_ENABLED": "1", "GOTMPDIR": tmp})
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := run(cmd); err != nil {
		msg := strings.TrimSpace(out.String())
		if lines := strings.Split(msg, "\n"); len(lines) > 8 {
			msg = strings.Join(lines[:8], "\n") + "\n..."
		}
		return "", fmt.Errorf("jit: go build -buildmode=plugin: %v\n%s", err, msg)
	}
	// publish the built plugin whole: a directory renamed into place
	final := filepath.Join(tmp, "final")
	if err := os.Mkdir(final, 0o755); err != nil {
		return "", fmt.Errorf("jit: %v", err)
	}
	if err := os.Rename(filepath.Join(tmp, "kernel.so"), filepath.Join(final, "kernel.so")); err != nil {
		return "", fmt.Errorf("jit: %v", err)
	}
	if err := os.Rename(final, dir); err != nil {
		// another process published it first
		if _, serr := os.Stat(so); serr == nil {
			return so, nil
		}
		return "", fmt.Errorf("jit: %v", err)
	}
	return so, nil
}
