package arch

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/nablasd/nablasd"

// imports returns each package of the module (tests excluded) with the
// module's packages it imports directly, by path relative to the module
// ("." for the root).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(p string) string {
		if p == module {
			return "."
		}
		return strings.TrimPrefix(p, module+"/")
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := rel(f[0])
		m[pkg] = nil
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") || strings.Contains(imp, "nablasd/beam") {
				m[pkg] = append(m[pkg], rel(imp))
			}
		}
	}
	return m
}

// A rule says what a package (or a family of them) may import of the
// module: only the packages of allow (when allow is set), and none of deny.
type rule struct {
	pkg   string // a package, or a prefix ending in "/" for a family
	allow []string
	deny  []string
	why   string
}

// rules are DESIGN.md's import rules.
var rules = []rule{
	{pkg: "sdql", allow: []string{}, why: "sdql imports nothing of the project"},
	{pkg: "formats", allow: []string{"sdql"}, why: "formats imports only sdql"},
	{pkg: "ad", allow: []string{"sdql"}, why: "ad imports only sdql"},
	{pkg: "fuse", deny: []string{"ad", "lower"}, why: "fuse never imports ad or lower"},
	{pkg: "lower", allow: []string{"sdql", "formats"}, why: "lower imports sdql and formats"},
	{pkg: "exec", deny: []string{"gogen"}, why: "exec and gogen never import each other"},
	{pkg: "gogen", deny: []string{"exec"}, why: "exec and gogen never import each other"},
	{pkg: ".", deny: []string{"batch", "cmd/", "beam/"}, why: "the root package never imports batch, cmd or beam"},
}

// matches says whether pkg is p or, for a family "x/", one of its packages.
func matches(p, pkg string) bool {
	if strings.HasSuffix(p, "/") {
		return strings.HasPrefix(pkg, p) || pkg == strings.TrimSuffix(p, "/")
	}
	return p == pkg
}

// check returns the broken rules of an import graph, one line each.
func check(m map[string][]string) []string {
	var bad []string
	for pkg, imps := range m {
		for _, imp := range imps {
			if strings.HasPrefix(imp, "beam") || strings.Contains(imp, "nablasd/beam") {
				bad = append(bad, pkg+" imports "+imp+": nothing in the root module imports beam")
			}
		}
		for _, r := range rules {
			if !matches(r.pkg, pkg) {
				continue
			}
			for _, imp := range imps {
				if r.allow != nil {
					ok := false
					for _, a := range r.allow {
						ok = ok || matches(a, imp)
					}
					if !ok {
						bad = append(bad, pkg+" imports "+imp+": "+r.why)
					}
				}
				for _, d := range r.deny {
					if matches(d, imp) {
						bad = append(bad, pkg+" imports "+imp+": "+r.why)
					}
				}
			}
		}
	}
	return bad
}

// TestImportRules: the module's packages keep DESIGN.md's import
// direction.
func TestImportRules(t *testing.T) {
	m := imports(t)
	for _, p := range []string{".", "sdql", "formats", "ad", "fuse", "lower", "exec", "gogen"} {
		if _, ok := m[p]; !ok {
			t.Fatalf("go list did not list package %s", p)
		}
	}
	for _, b := range check(m) {
		t.Error(b)
	}
}

// TestImportRulesCatch: a graph that breaks each rule is caught, so the
// test above can fail.
func TestImportRulesCatch(t *testing.T) {
	for _, tc := range []struct{ pkg, imp string }{
		{"sdql", "formats"}, {"formats", "lower"}, {"ad", "fuse"}, {"fuse", "ad"}, {"fuse", "lower"},
		{"lower", "exec"}, {"exec", "gogen"}, {"gogen", "exec"}, {".", "batch"}, {".", "cmd/nablasd"}, {"datasets", "beam/pipeline"},
	} {
		if bad := check(map[string][]string{tc.pkg: {tc.imp}}); len(bad) == 0 {
			t.Errorf("%s importing %s was not caught", tc.pkg, tc.imp)
		}
	}
	if bad := check(map[string][]string{"lower": {"sdql", "formats"}, "exec": {"lower", "sdql"}}); len(bad) != 0 {
		t.Errorf("allowed imports refused: %v", bad)
	}
}
