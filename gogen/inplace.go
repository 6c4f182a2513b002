package gogen

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// Parallel loops that write their result in place (exec/inplace.go's
// scheme, by lower.InPlaceRowsOf). A parallel loop adding into tensors
// whose keys at level 0 are a stride times its variable plus constants
// and variables of loops inside (a stencil's gradient adds into rows
// i - 1, i and i + 1; a strided filter's into 2i + k, k < K_len) writes
// rows s·l + lo .. s·(h - 1) + hi in a chunk of iterations l..h-1, so
// that only a chunk's first (hi - lo) / s iterations write rows the chunk
// before writes. Before its workers start, the function checks at run
// time that the rows the loop writes lie inside each such tensor's
// level 0 (nothing grows while the workers write) and that every chunk is
// longer than twice that count; then every worker adds into the
// function's own tensors, worker w > 0 from the first iteration of its
// chunk past the shared ones, and after the workers the function runs the
// shared iterations of each chunk, chunk after chunk: no copy to empty
// and no merge. Otherwise the workers add into copies, merged after
// (parallel.go). The result is the serial one up to the order of the
// additions into the rows two chunks write, the same for a given number
// of threads.

// inPlacePlan is how a parallel loop writes in place: its rows, and the
// Go names of the run-time decision and of the count of a chunk's first
// iterations left to run after the workers.
type inPlacePlan struct {
	rows          *lower.InPlaceRows
	inPlace, skip string
	// rhi is the greatest offset of a row from Stride·v (Extent's hi)
	rhi string
}

// regionClear emits, in a worker writing in place (its chunk from..to-1
// before the skip), the clear of the rows of t only it writes: from the
// row after the last the chunk before writes (Stride·(from - 1) + rhi +
// 1; 0 for the first worker) to the last its own chunk writes (the
// tensor's end for the last worker). The regions partition the rows, and
// a worker writes no row of another's (it starts skip iterations in), so
// every row is emptied before anyone adds into it: the Init's clear of a
// tensor the loop writes (deferclear.go), on every worker at once.
func (g *gen) regionClear(t *lower.Tensor, ip *inPlacePlan, w, nw, from, to string) {
	ptr := g.ts[t].ptr
	n0 := ptr + "." + nField(0)
	a, b, per := g.loc.name("c0"), g.loc.name("c1"), g.loc.name("per")
	s := ip.rows.Stride
	g.line("if %s > 0 { // the Init's clear, of the rows only this worker writes (inplace.go)", n0)
	g.line("%s, %s := 0, %s", a, b, n0)
	g.line("if %s > 0 {\n%s = min(max(%d*(%s-1)+%s+1, 0), %s)\n}", w, a, s, from, ip.rhi, n0)
	g.line("if %s < %s-1 {\n%s = min(max(%d*(%s-1)+%s+1, %s), %s)\n}", w, nw, b, s, to, ip.rhi, a, n0)
	g.line("%s := len(%s.Vals) / %s", per, ptr, n0)
	g.line("clear(%s.Vals[%s*%s : %s*%s])", ptr, a, per, b, per)
	g.line("}")
}

// inPlaceCheck emits, before a parallel loop's workers over lo..hi-1
// (nw of them, Go names), the check of whether they write in place, and
// returns the names it sets (nil when the loop cannot: lower.InPlaceRowsOf
// finds nothing).
func (g *gen) inPlaceCheck(s *lower.For, lo, hi, nw string) *inPlacePlan {
	rows := lower.InPlaceRowsOf(s)
	if rows == nil {
		return nil
	}
	ip := &inPlacePlan{rows: rows, inPlace: g.loc.name("inPlace"), skip: g.loc.name("skip"), rhi: g.loc.name("rhi")}
	rlo, rhi := g.loc.name("rlo"), ip.rhi
	var names []string
	for _, t := range s.Par.Tensors {
		names = append(names, t.Name)
	}
	g.comment(fmt.Sprintf("The workers write %s in place when every row the loop writes (%d·%s plus %s..%s) lies inside it, each chunk but the first leaving its first %s iterations, which share rows with the chunk before, to run after them (inplace.go).",
		strings.Join(names, ", "), rows.Stride, s.V.Name, rlo, rhi, ip.skip))
	g.line("%s, %s, %s := false, 0, 0", ip.inPlace, ip.skip, rhi)
	g.line("if %s < %s {", lo, hi)
	g.push()
	// the inner loops' ranges, read before the loop (they read nothing
	// its body defines; the loop's variable is declared for their code)
	v := g.vars[s.V]
	g.line("%s := %s", v, lo)
	g.line("_ = %s", v)
	bounds := map[*lower.For][2]string{}
	for _, k := range rows.Keys {
		for _, f := range k.Inner {
			if _, done := bounds[f]; done {
				continue
			}
			a, b := g.loc.name("a"), g.loc.name("b")
			g.line("%s, %s := %s, %s", a, b, g.exprAs(f.Lo, lower.Int), g.exprAs(f.Hi, lower.Int))
			bounds[f] = [2]string{a, b}
		}
	}
	// lower.InPlaceRows.Extent, in Go
	for i, k := range rows.Keys {
		klo, khi := []string{fmt.Sprint(k.D)}, []string{fmt.Sprint(k.D)}
		for _, f := range k.Inner {
			ab := bounds[f]
			klo = append(klo, ab[0])
			khi = append(khi, fmt.Sprintf("max(%s-1, %s)", ab[1], ab[0]))
		}
		if i == 0 {
			g.line("%s := %s", rlo, strings.Join(klo, " + "))
			g.line("%s = %s", rhi, strings.Join(khi, " + "))
		} else {
			g.line("%s, %s = min(%s, %s), max(%s, %s)", rlo, rhi, rlo, strings.Join(klo, " + "), rhi, strings.Join(khi, " + "))
		}
	}
	// lower.InPlaceRows.Skip, for every tensor
	var inside []string
	for _, t := range s.Par.Tensors {
		inside = append(inside, fmt.Sprintf("%d*(%s-1)+%s < %s.%s", rows.Stride, hi, rhi, g.ts[t].ptr, nField(0)))
	}
	g.line("if %d*%s+%s >= 0 && %s {", rows.Stride, lo, rlo, strings.Join(inside, " && "))
	g.line("%s = (%s - %s) / %d", ip.skip, rhi, rlo, rows.Stride)
	g.line("%s = (%s-%s)/%s > 2*%s", ip.inPlace, hi, lo, nw, ip.skip)
	g.line("}")
	g.pop()
	g.line("}")
	return ip
}

// inPlaceTail emits, after the workers, the iterations each chunk but the
// first left (from its first to skip past it), chunk after chunk, on the
// function's own state.
func (g *gen) inPlaceTail(s *lower.For, ip *inPlacePlan, lo, hi, nw, pos string) {
	w, from, to := g.chunkVars()
	g.line("for %s := 1; %s < %s; %s++ {", w, w, nw, w)
	g.push()
	g.line("%s, %s := %sSplit(%s, %s, %s, %s, %s), %sSplit(%s, %s, %s+1, %s, %s)", g.vars[from], g.vars[to],
		g.pfx, lo, hi, w, nw, pos, g.pfx, lo, hi, w, nw, pos)
	g.line("%s = min(%s+%s, %s)", g.vars[to], g.vars[from], ip.skip, g.vars[to])
	g.declare(from)
	g.declare(to)
	g.forStmt(&lower.For{V: s.V, Lo: &lower.Ref{V: from}, Hi: &lower.Ref{V: to}, Body: s.Body, Prim: s.Prim})
	g.pop()
	g.unsync(nil)
	g.line("}")
}
