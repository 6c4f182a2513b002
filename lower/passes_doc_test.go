package lower

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// architectureDoc is the page whose table of lowering passes is checked
// against the table in passes.go.
const architectureDoc = "../doc/architecture.md"

// Markers around the generated table in architectureDoc.
const (
	passesBegin = "<!-- passes: generated from lower.Passes by TestArchitectureDocPasses; do not edit -->"
	passesEnd   = "<!-- end of passes -->"
)

// passesMarkdown renders the pass table as Markdown.
func passesMarkdown() string {
	var b strings.Builder
	b.WriteString("| # | pass | what it does | note |\n| --- | --- | --- | --- |\n")
	for i, p := range passes {
		var note []string
		if p.Dense {
			note = append(note, "dense storage: skipped with every level hashed")
		}
		if p.Required {
			note = append(note, "required")
		}
		for _, o := range passOrders {
			if o.After == p.Name {
				note = append(note, fmt.Sprintf("after %s: %s", o.Before, o.Why))
			}
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s |\n", i+1, p.Name, p.Doc, strings.Join(note, "; "))
	}
	return b.String()
}

// TestArchitectureDocPasses: doc/architecture.md lists the lowering passes
// as the table runs them, with their ordering rules. NABLASD_REWRITE_DOCS=1
// rewrites the table in the page.
func TestArchitectureDocPasses(t *testing.T) {
	b, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, passesBegin), strings.Index(doc, passesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated pass table (between %q and %q)", architectureDoc, passesBegin, passesEnd)
	}
	want := passesMarkdown()
	have := doc[i+len(passesBegin)+1 : j]
	if have == want {
		return
	}
	if os.Getenv("NABLASD_REWRITE_DOCS") != "" {
		doc = doc[:i+len(passesBegin)+1] + want + doc[j:]
		if err := os.WriteFile(architectureDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's pass table is not lower.Passes' (NABLASD_REWRITE_DOCS=1 go test ./lower -run TestArchitectureDocPasses rewrites it):\nhave\n%s\nwant\n%s", architectureDoc, have, want)
}
