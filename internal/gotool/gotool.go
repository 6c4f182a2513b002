// Package gotool runs the Go toolchain the calling program was built
// with: its go command, and a build environment that the caller's own
// settings (GOFLAGS, a workspace, another toolchain) cannot redirect. The
// JIT (internal/jit), the tests' kernel runner (internal/gorun) and the
// paper's generated-Go runner (bench/paper) build with it.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Command finds the go command of the toolchain running the caller
// (GOROOT's), else the one on PATH.
func Command() (string, error) {
	name := "go"
	if runtime.GOOS == "windows" {
		name = "go.exe"
	}
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command: %v", err)
	}
	return p, nil
}

// Env is the process's environment with module mode on, no workspace,
// the local toolchain only and no GOFLAGS, then override's variables set
// (replacing the process's).
func Env(override map[string]string) []string {
	set := map[string]string{"GOFLAGS": "", "GOWORK": "off", "GOTOOLCHAIN": "local", "GO111MODULE": "on"}
	for k, v := range override {
		set[k] = v
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}
