package nablasd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// importRules are doc/architecture.md's import direction, as data: a
// package of the module (by its path below the module) may import only
// the project packages in allow (when allow is not nil) and none in deny.
var importRules = []struct {
	pkg          string
	allow, deny  []string
	architecture string // the rule's words in doc/architecture.md
}{
	{pkg: "sdql", allow: []string{}, architecture: "sdql imports nothing of the project"},
	{pkg: "formats", allow: []string{"sdql"}, architecture: "formats imports only sdql"},
	{pkg: "ad", allow: []string{"sdql"}, architecture: "ad imports only sdql"},
	{pkg: "fuse", deny: []string{"ad", "lower"}, architecture: "fuse never imports ad or lower"},
	{pkg: "lower", allow: []string{"sdql", "formats"}, architecture: "lower imports sdql and formats"},
	{pkg: "exec", deny: []string{"gogen"}, architecture: "exec and gogen never import each other"},
	{pkg: "gogen", deny: []string{"exec"}, architecture: "exec and gogen never import each other"},
	{pkg: "", deny: []string{"batch", "cmd/nablasd", "beam"}, architecture: "the root package never imports batch, cmd or beam"},
	{pkg: "internal/vec", allow: []string{}, architecture: "internal/vec imports nothing of the project"},
}

// TestImportDirection checks every rule of importRules against the
// packages' imports as go list reports them.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const module = "github.com/nablasd/nablasd"
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		for _, imp := range f[1:] {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(rest, "/"))
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
	}
	for _, r := range importRules {
		got, ok := imports[r.pkg]
		if !ok {
			t.Errorf("package %q (rule %q) is not in the module", r.pkg, r.architecture)
			continue
		}
		for _, imp := range got {
			under := func(p string) bool { return imp == p || strings.HasPrefix(imp, p+"/") }
			if (r.allow != nil && !slices.ContainsFunc(r.allow, under)) || slices.ContainsFunc(r.deny, under) {
				t.Errorf("package %q imports %s: the rule is %q", r.pkg, imp, r.architecture)
			}
		}
	}
}
