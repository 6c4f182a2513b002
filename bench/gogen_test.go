package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	nexec "github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/sdql"
)

// goLiteral writes a binding as a Go literal.
func goLiteral(v sdql.Value) string {
	var b strings.Builder
	switch v := v.(type) {
	case sdql.Int:
		return fmt.Sprint(int(v))
	case sdql.Real:
		return fmt.Sprintf("float64(%v)", float64(v))
	case sdql.IntArray:
		b.WriteString("[]int{")
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, x)
		}
		b.WriteString("}")
	case sdql.RealArray:
		b.WriteString("[]float64{")
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%v", x)
		}
		b.WriteString("}")
	}
	return b.String()
}

// TestGeneratedGo generates Go for every benchmark kernel, builds and runs
// it (one go run of one generated main) and compares each result with
// the reference interpreter.
func TestGeneratedGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated Go")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	m := small(t)
	dir := t.TempDir()
	var main strings.Builder
	main.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	var wants []sdql.Value
	var names []string
	for i, kf := range append(Kernels, struct{ Name, Format string }{"vvd", "coo"}) {
		if kf.Format == "coo" {
			continue // needs a sparse vector input; covered by exec's tests
		}
		cs, err := NewCase(kf.Name, kf.Format, "small", m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(cs.Prog, cs.Bindings)
		if err != nil {
			t.Fatal(err)
		}
		fn := fmt.Sprintf("%s%d", kf.Name, i)
		src, err := nexec.GenerateGo(cs.Prog, nil, cs.Bindings, fn)
		if err != nil {
			t.Fatal(err)
		}
		src = []byte(strings.Replace(string(src), "package kernels", "package main", 1))
		if err := os.WriteFile(filepath.Join(dir, fn+".go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		var args []string
		var ins []string
		for n := range cs.Bindings {
			ins = append(ins, n)
		}
		sort.Strings(ins)
		for _, n := range ins {
			args = append(args, goLiteral(cs.Bindings[n]))
		}
		if sdql.Order(sdql.TypeOfValue(want)) == 0 && want != nil {
			if _, ok := want.(sdql.Real); ok {
				fmt.Fprintf(&main, "\tfmt.Println(%s(%s))\n", fn, strings.Join(args, ", "))
				wants, names = append(wants, want), append(names, fn)
				continue
			}
		}
		fmt.Fprintf(&main, "\t{\n\t\td := new%sDict()\n\t\t%s(%s, d)\n\t\tfmt.Println(d)\n\t}\n", fn, fn, strings.Join(args, ", "))
		wants, names = append(wants, want), append(names, fn)
	}
	main.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module gen\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(wants) {
		t.Fatalf("%d result lines for %d kernels:\n%s", len(lines), len(wants), out)
	}
	for i, line := range lines {
		e, err := sdql.Parse("", line)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		got, err := sdql.Eval(e, nil)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		if !sdql.Equal(got, wants[i]) {
			t.Errorf("%s: generated Go disagrees with the interpreter", names[i])
		}
	}
}
