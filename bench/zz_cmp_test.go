package bench

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/exec"
)

// ZZ=kernel:input,... go test -run ZZCmp ./bench
func TestZZCmp(t *testing.T) {
	spec := os.Getenv("ZZ")
	if spec == "" {
		t.Skip()
	}
	for _, ki := range strings.Split(spec, ",") {
		parts := strings.Split(ki, ":")
		m, _, err := LoadInput(parts[1])
		if err != nil || m == nil {
			t.Fatal(err)
		}
		var format string
		for _, kf := range Kernels {
			if kf.Name == parts[0] {
				format = kf.Format
			}
		}
		cs, err := NewCase(parts[0], format, parts[1], m)
		if err != nil {
			t.Fatal(err)
		}
		k, err := cs.Compile(exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := k.NewResult()
		comp := func() { _ = k.RunInto(res, cs.Bindings) }
		comp()
		cs.Hand()
		measure := func(f func()) float64 {
			n := 1
			for {
				c0 := cpuTime()
				for i := 0; i < n; i++ {
					f()
				}
				d := cpuTime() - c0
				if d > 50*time.Millisecond {
					return float64(d) / float64(n)
				}
				n *= 2
			}
		}
		var rs, cs2, hs []float64
		for r := 0; r < 7; r++ {
			c := measure(comp)
			h := measure(cs.Hand)
			cs2 = append(cs2, c)
			hs = append(hs, h)
			rs = append(rs, c/h)
		}
		sort.Float64s(rs)
		sort.Float64s(cs2)
		sort.Float64s(hs)
		fmt.Printf("%s: compiled %.3f ms, hand %.3f ms, ratio %.2f (%.2f-%.2f)\n", ki, cs2[3]/1e6, hs[3]/1e6, rs[3], rs[0], rs[6])
	}
}
