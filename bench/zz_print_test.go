package bench

import (
	"fmt"
	"os"
	"testing"

	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

func TestZZPrint(t *testing.T) {
	m := small(t)
	for _, kf := range Kernels {
		if os.Getenv("K") != "" && os.Getenv("K") != kf.Name {
			continue
		}
		cs, err := NewCase(kf.Name, kf.Format, "small", m)
		if err != nil {
			t.Fatal(err)
		}
		k, err := cs.Compile(exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("==== %s\n%s\n%s\n", cs.Name(), sdql.Print(cs.Prog), lower.Print(k.Program()))
	}
}
