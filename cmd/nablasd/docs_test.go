package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The pages whose commands TestDocs runs: the README and doc/*.md.
var docPages = []string{"../../README.md", "../../doc/*.md"}

// A docBlock is one fenced block of a Markdown page.
type docBlock struct {
	page, lang, text string
	line             int    // the fence's line
	notRun           string // <!-- not run: REASON --> before the fence
	needs            string // <!-- needs: TOOL --> before the fence
}

var (
	fenceRE  = regexp.MustCompile("^```([a-z]*)\\s*$")
	notRunRE = regexp.MustCompile(`^<!-- not run: (.+) -->$`)
	needsRE  = regexp.MustCompile(`^<!-- needs: ([a-z]+) -->$`)
)

// docBlocks returns the fenced blocks of a Markdown page.
func docBlocks(t *testing.T, page string) []docBlock {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		blk := docBlock{page: page, lang: m[1], line: i + 1}
		for j := i - 1; j >= 0 && strings.HasPrefix(lines[j], "<!--"); j-- {
			if n := notRunRE.FindStringSubmatch(lines[j]); n != nil {
				blk.notRun = n[1]
			}
			if n := needsRE.FindStringSubmatch(lines[j]); n != nil {
				blk.needs = n[1]
			}
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: a fence that never closes", page, blk.line)
		}
		blk.text = strings.Join(body, "\n") + "\n"
		out = append(out, blk)
	}
	return out
}

// TestDocs runs every command of the README and doc/*.md, so that the
// documentation cannot rot:
//
//   - a ```sh block runs as one bash script (set -eo pipefail) in a folder
//     work/ beside a link shared -> ../shared, with the nablasd command as
//     ./nablasd (this test binary running main, see TestMain); the blocks of a page run in order in the same folder, so
//     a later block may read what an earlier one wrote;
//   - a line "# => TEXT" in a block says that the block's output (standard
//     output and error, whose interleaving is not fixed) contains TEXT;
//     "…" in TEXT matches anything;
//   - a ```go block that is a whole program (package main) is built and
//     run, its output checked against the "It prints `…`" sentence after
//     it when there is one;
//   - <!-- not run: REASON --> before a fence skips the block (the set-up
//     commands, which are this test's own); <!-- needs: duckdb --> runs it
//     only where a duckdb command can be provided (make test-long, with
//     node and npm: DuckDB's Node.js client behind a small shell).
//
// Without ../shared the test skips: the pages use its matrices.
func TestDocs(t *testing.T) {
	shared, err := filepath.Abs("../../../shared")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(shared, "datasets", "suitesparse")); err != nil {
		t.Skipf("../shared is absent (%v): the documentation's examples read it", err)
	}
	root := t.TempDir()
	if err := os.Symlink(shared, filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// the command is this test binary, run as main (TestMain): the same
	// run as the built command's, without linking it again
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nNABLASD_RUN_MAIN=1 exec '%s' \"$@\"\n", strings.ReplaceAll(self, "'", `'\''`))
	if err := os.WriteFile(filepath.Join(bin, "nablasd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	duckdb := duckdbShell(t, bin)
	var pages []string
	for _, g := range docPages {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("no page matches %s", g)
		}
		pages = append(pages, m...)
	}
	ran, skipped := 0, 0
	for _, page := range pages {
		name := strings.TrimPrefix(page, "../../")
		t.Run(name, func(t *testing.T) {
			work := filepath.Join(root, strings.NewReplacer("/", "_", ".", "_").Replace(name))
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			// ../shared from the work folder
			if err := os.Symlink(shared, filepath.Join(filepath.Dir(work), "shared")); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(bin, "nablasd"), filepath.Join(work, "nablasd")); err != nil {
				t.Fatal(err)
			}
			blocks := docBlocks(t, page)
			for i, blk := range blocks {
				where := fmt.Sprintf("%s:%d", name, blk.line)
				switch {
				case blk.notRun != "":
					t.Logf("%s: not run: %s", where, blk.notRun)
					skipped++
					continue
				case blk.needs == "duckdb" && duckdb == "":
					t.Logf("%s: not run here: it needs duckdb (make test-long with node and npm provides it)", where)
					skipped++
					continue
				case blk.needs != "" && blk.needs != "duckdb":
					t.Errorf("%s: unknown need %q", where, blk.needs)
					continue
				}
				switch blk.lang {
				case "sh":
					runShellBlock(t, where, work, bin, blk.text)
					ran++
				case "go":
					if strings.HasPrefix(strings.TrimSpace(blk.text), "package main") {
						runGoBlock(t, where, blk.text, printsAfter(t, page, blocks, i))
						ran++
					}
				}
			}
		})
	}
	t.Logf("%d blocks run, %d not run", ran, skipped)
}

// runShellBlock runs a ```sh block as a bash script in work and checks
// its "# =>" lines against its output.
func runShellBlock(t *testing.T, where, work, bin, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", "set -eo pipefail\n"+script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NABLASD_JIT=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s: ran in %v", where, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Errorf("%s: %v\n%s\n-- output:\n%s", where, err, script, out.String())
		return
	}
	checkExpected(t, where, script, out.String())
}

// checkExpected checks the "# => TEXT" lines of a block against its
// output.
func checkExpected(t *testing.T, where, script, out string) {
	t.Helper()
	for _, line := range strings.Split(script, "\n") {
		want, ok := strings.CutPrefix(strings.TrimSpace(line), "# => ")
		if !ok {
			continue
		}
		parts := strings.Split(want, "…")
		var quoted []string
		for _, p := range parts {
			quoted = append(quoted, regexp.QuoteMeta(p))
		}
		re := regexp.MustCompile(strings.Join(quoted, "(?s:.*?)"))
		if !re.MatchString(out) {
			t.Errorf("%s: the output lacks %q:\n%s", where, want, out)
		}
	}
}

// printsAfter returns what the page says block i prints: the text in
// backquotes of a sentence "It prints `…`" (and "then `…`") after the
// block, before the next block; "" when it says nothing.
func printsAfter(t *testing.T, page string, blocks []docBlock, i int) string {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	end := len(lines)
	if i+1 < len(blocks) {
		end = blocks[i+1].line - 1
	}
	// the fence closing block i: its line plus its text's lines
	start := blocks[i].line + strings.Count(blocks[i].text, "\n")
	after := strings.Join(lines[start:end], " ")
	m := regexp.MustCompile("It prints `([^`]*)`(?: then `([^`]*)`)?").FindStringSubmatch(after)
	if m == nil {
		return ""
	}
	if m[2] != "" {
		return m[1] + "\n" + m[2] + "\n"
	}
	return m[1] + "\n"
}

// runGoBlock builds and runs a whole Go program of a page, in a folder of
// the module so that it imports nablasd, and compares its output with
// want when the page says what it prints.
func runGoBlock(t *testing.T, where, src, want string) {
	t.Helper()
	dir, err := os.MkdirTemp("../..", ".doctest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./"+filepath.Base(dir))
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s: go run: %v\n%s", where, err, out)
		return
	}
	if want != "" && string(out) != want {
		t.Errorf("%s: the program printed\n%s\nthe page says\n%s", where, out, want)
	}
}

// duckdbShell puts a duckdb command on PATH (in bin) that runs SQL with
// DuckDB's Node.js client, and returns its path; "" where it cannot: with
// -short (the client is an npm install), or without node.
func duckdbShell(t *testing.T, bin string) string {
	if testing.Short() {
		return ""
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return ""
	}
	modules := duckdbModules(t)
	script, err := filepath.Abs("testdata/duckdb_shell.cjs")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(bin, "duckdb")
	sh := fmt.Sprintf("#!/bin/sh\nexec %q %q %q \"$@\"\n", node, script, modules)
	if err := os.WriteFile(path, []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMakeDemo runs the README's first set-up command, make demo.
func TestMakeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: make demo builds the command anew (TestDocs runs the same binary)")
	}
	cmd := exec.Command("make", "demo")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	// βAᵀAx over A = [[1, 0, 2], [0, 3, 0], [4, 0, 5]], x = (1, 2, 3),
	// β = 0.5: Ax = (7, 6, 19), Aᵀ(Ax) = (83, 18, 109), halved
	for _, want := range []string{"βAᵀAx", "= {0 -> 41.5, 1 -> 9, 2 -> 54.5}"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make demo did not print %q; it printed:\n%s", want, out)
		}
	}
}

// TestDocLinks: every relative link of the README, doc/*.md, bench's and
// beam's pages names a file of the repository.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	pages := []string{"../../README.md", "../../bench/README.md", "../../bench/results/report.md", "../../beam/README.md"}
	more, _ := filepath.Glob("../../doc/*.md")
	for _, page := range append(pages, more...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
					t.Errorf("%s:%d: the link %s names no file", strings.TrimPrefix(page, "../../"), i+1, target)
				}
			}
		}
	}
}
