// Command hotprofile writes the profile that makes the Go compiler align
// the loops of the named packages (internal/hotloops: every function
// marked hot) and prints its path, for
//
//	go test -gcflags="github.com/nablasd/nablasd/...=-pgoprofile=$(go run ./bench/cmd/hotprofile)" ...
//
// which is how `make bench` builds the benchmarks: the hand-written
// kernels, the generated ones (bench/gen) and the closures' primitives
// (exec) all get their loops aligned, as the JIT's plugins do, so that a
// ratio compares the code and not where the linker happened to put it.
//
//	go run ./bench/cmd/hotprofile [-o file] [packages]
//
// The packages default to ./... (this module), their test files
// included (go test compiles them into the package, and its benchmarks'
// own loops are in them). Without -o the profile is
// written under the user cache directory, named by its content's hash:
// go build's cache keys the flag and not the file's content, so a file
// whose name changes with its content keeps that cache right.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/nablasd/nablasd/internal/gotool"
	"github.com/nablasd/nablasd/internal/hotloops"
)

func main() {
	out := flag.String("o", "", "write the profile to this file (default: under the user cache directory, named by its hash)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hotprofile [-o file] [packages]")
		flag.PrintDefaults()
	}
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	names, err := packageNames(patterns)
	if err != nil {
		fail(err)
	}
	prof := hotloops.Profile(names)
	path := *out
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		sum := sha256.Sum256(prof)
		path = filepath.Join(dir, "nablasd", "hotloops", hex.EncodeToString(sum[:12])+".pgo")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fail(err)
		}
	}
	if err := os.WriteFile(path, prof, 0o644); err != nil {
		fail(err)
	}
	fmt.Println(path)
}

// listed is what packageNames reads of go list -json.
type listed struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
}

// packageNames lists the packages of patterns (go list) and returns the
// names of their functions.
func packageNames(patterns []string) ([]string, error) {
	gobin, err := gotool.Command()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(gobin, append([]string{"list", "-json"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	var names []string
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %v", err)
		}
		// a package's test files are compiled into it by go test; its
		// external test files are package p_test
		for _, set := range []struct {
			path  string
			files []string
		}{{p.ImportPath, append(p.GoFiles, p.TestGoFiles...)}, {p.ImportPath + "_test", p.XTestGoFiles}} {
			files := make([]string, len(set.files))
			for i, f := range set.files {
				files[i] = filepath.Join(p.Dir, f)
			}
			ns, err := hotloops.PackageNames(set.path, files)
			if err != nil {
				return nil, err
			}
			names = append(names, ns...)
		}
	}
	return names, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hotprofile:", err)
	os.Exit(1)
}
