package sdql

import (
	"fmt"
	"strings"
	"testing"
)

// nestedPrograms are families of programs nested n deep, in the shapes
// that made the printer's work grow faster than the program: a chain of
// lets too long for a line (each layout of a let once measured its body
// twice), sums nested in sums whose bodies end in + (the check for a
// trapping operator walked the rest of the nest, and found the free
// names of each right operand again), products nested on the
// left, if-else chains, dictionaries in dictionaries, and a let chain
// whose values are sums over the previous value.
var nestedPrograms = map[string]func(n int) string{
	"let chain": func(n int) string {
		var b strings.Builder
		b.WriteString("let x0 = V in\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "let x%d = x%d + { %d -> 1.5 } in\n", i, i-1, i)
		}
		fmt.Fprintf(&b, "x%d", n-1)
		return b.String()
	},
	"nested sums": func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "sum(<k%d, v%d> in V) ", i, i)
		}
		b.WriteString("v0 * s + s")
		return b.String()
	},
	"sums in sums' operands": func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "sum(<k%d, v%d> in V) v%d * s + ", i, i, i)
		}
		b.WriteString("s")
		return b.String()
	},
	"left products": func(n int) string {
		return strings.Repeat("(", n) + "s" + strings.Repeat(" * s + 1.0)", n)
	},
	"if chain": func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "if s > %d.5 then %d.0 else ", i, i)
		}
		b.WriteString("s")
		return b.String()
	},
	"nested dictionaries": func(n int) string {
		return strings.Repeat("{ 1 -> ", n) + "s" + strings.Repeat(" }", n)
	},
	"let of sums": func(n int) string {
		var b strings.Builder
		b.WriteString("let y0 = V in\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "let y%d = sum(<k, v> in y%d) { k -> tanh(v * s) + v } in\n", i, i-1)
		}
		fmt.Fprintf(&b, "y%d", n-1)
		return b.String()
	},
}

// TestPrintWorkLinear counts the printer's work (nodes measured and
// printed) on every family of nestedPrograms at growing depths (past 40
// levels, where indentation alone breaks every line): doubling
// the depth may at most double it, with a little slack, and it stays
// within a few steps per node of the program.
func TestPrintWorkLinear(t *testing.T) {
	top := 800
	if testing.Short() {
		top = 400
	}
	for name, gen := range nestedPrograms {
		t.Run(name, func(t *testing.T) {
			prev := 0
			for n := 100; n <= top; n *= 2 {
				e, err := Parse("", gen(n))
				if err != nil {
					t.Fatal(err)
				}
				nodes := 0
				Inspect(e, func(Expr) bool { nodes++; return true })
				w := printWork(e, 10*nodes)
				if w > 4*nodes {
					t.Errorf("depth %d: %d steps for %d nodes", n, w, nodes)
				}
				if prev > 0 && float64(w) > 2.2*float64(prev) {
					t.Errorf("depth %d: %d steps, %d at half the depth: faster than linear", n, w, prev)
				}
				prev = w
			}
		})
	}
}

// TestPrintLines checks that PrintLines stops where it is told, and
// prints what Print does up to there.
func TestPrintLines(t *testing.T) {
	e, err := Parse("", nestedPrograms["let chain"](50))
	if err != nil {
		t.Fatal(err)
	}
	full := strings.Split(Print(e), "\n")
	for _, max := range []int{1, 7, len(full) - 1, len(full), len(full) + 5} {
		lines, more := PrintLines(e, max)
		want := full[:min(max, len(full))]
		if strings.Join(lines, "\n") != strings.Join(want, "\n") || more != (max < len(full)) {
			t.Errorf("PrintLines(%d) = %d lines, more %v; want %d lines, more %v", max, len(lines), more, len(want), max < len(full))
		}
	}
}
