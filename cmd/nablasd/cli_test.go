package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// TestCLIDataDriven runs testdata/cli/*.txt, command lines of nablasd with
// their expected outputs, in a temporary directory per file:
//
//	file NAME            the input is written to NAME
//	run                  the input is one command line (single quotes
//	                     group words); prints stdout, then "exit N" and
//	                     stderr when it fails (with arg stderr, stderr
//	                     also when it succeeds: warnings; with arg mask,
//	                     times such as 0.012s print as #s)
//	run-all              the command line under every --opt (none, rules,
//	                     full) and --exec (compiled, interp): prints the
//	                     output once when all six agree textually, else
//	                     each variant's
//	cat NAME             prints a file the commands wrote
//
// The memory available on the machine (nablasd.AvailableMemory) prints as
// AVAILABLE, so that the expected output does not depend on the machine.
//
// Regenerate with go test ./cmd/nablasd -rewrite and review the diff.
func TestCLIDataDriven(t *testing.T) {
	paths, _ := filepath.Glob("testdata/cli/*.txt")
	if len(paths) == 0 {
		t.Fatal("no testdata/cli files")
	}
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Chdir(t.TempDir())
			datadriven.RunTest(t, abs, func(t *testing.T, d *datadriven.TestData) string {
				switch d.Cmd {
				case "file":
					if len(d.CmdArgs) != 1 {
						t.Fatalf("%s: file NAME", d.Pos)
					}
					if err := os.WriteFile(d.CmdArgs[0].Key, []byte(d.Input+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					return ""
				case "cat":
					b, err := os.ReadFile(d.CmdArgs[0].Key)
					if err != nil {
						return "error: " + err.Error() + "\n"
					}
					return string(b)
				case "run":
					return runLine(t, d, splitWords(t, d))
				case "run-all":
					return runAll(t, d, splitWords(t, d))
				}
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
				return ""
			})
		})
	}
}

// timesPrinted matches the times fit prints (0.012s).
var timesPrinted = regexp.MustCompile(`\b[0-9]+\.[0-9]{3}s\b`)

func runLine(t *testing.T, d *datadriven.TestData, args []string) string {
	code, stdout, stderr := runCLI(args...)
	if d.HasArg("mask") {
		stderr = timesPrinted.ReplaceAllString(stderr, "#s")
	}
	avail := "(" + sdql.FormatBytes(float64(nablasd.AvailableMemory())) + ")"
	stdout = strings.ReplaceAll(stdout, avail, "(AVAILABLE)")
	stderr = strings.ReplaceAll(stderr, avail, "(AVAILABLE)")
	if code == 0 {
		if d.HasArg("stderr") && stderr != "" {
			return stdout + "stderr:\n" + stderr
		}
		return stdout
	}
	return fmt.Sprintf("%sexit %d\n%s", stdout, code, stderr)
}

func runAll(t *testing.T, d *datadriven.TestData, args []string) string {
	outs := map[string][]string{}
	for _, opt := range []string{"none", "rules", "full"} {
		for _, ex := range []string{"compiled", "interp"} {
			a := append(append([]string(nil), args...), "--opt", opt, "--exec", ex)
			out := runLine(t, d, a)
			outs[out] = append(outs[out], "--opt "+opt+" --exec "+ex)
		}
	}
	if len(outs) == 1 {
		for out := range outs {
			return out
		}
	}
	var keys []string
	for out := range outs {
		keys = append(keys, out)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, out := range keys {
		fmt.Fprintf(&b, "-- %s:\n%s", strings.Join(outs[out], ", "), out)
	}
	return b.String()
}

// splitWords splits a command line into words; single quotes group.
func splitWords(t *testing.T, d *datadriven.TestData) []string {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range strings.TrimSpace(d.Input) {
		switch {
		case r == '\'':
			quoted = !quoted
			in = true
		case !quoted && (r == ' ' || r == '\n' || r == '\t'):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quoted {
		t.Fatalf("%s: unterminated quote", d.Pos)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
