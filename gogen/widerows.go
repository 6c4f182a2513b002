package gogen

import (
	"fmt"
	"strconv"

	"github.com/nablasd/nablasd/lower"
)

// Wide rows. A loop that reads one row at several offsets a constant
// apart (the stencil's U(i)(j - 1), U(i)(j), U(i)(j + 1)), or adds into
// one row of its result at several (out(i)(j - 1), out(i)(j),
// out(i)(j + 1)), sliced each offset as a segment of its own: the
// stencil's gradient held ten slices live in its inner loop, more than
// amd64 has registers for, and Go kept the loop's counter in a stack
// slot, stored and reloaded every entry (1.23–1.27x the hand-written
// loop, which holds six rows). Such segments share one slice, the row
// from the least offset's first key to the greatest's last, indexed at
// k plus the offset's distance from the least.
//
// The loop then counts to the segments' length, m := len(W) - s, W the
// first wide row and s its spread (greatest offset minus least): every
// wide row of that spread is resliced to len(W) and every other segment
// to m, from which Go proves every index in bounds (W[k + s] with
// k < len(W) - s; it does not prove W[k + 1] with W resliced to m + 1,
// so rows of a smaller spread keep their segments). A wide row fails to
// slice exactly where one of its segments would have (its ends are the
// least's start and the greatest's end), with the same kind of error; a
// result's row is sliced after its keys are checked (denseSegChecks).
//
// Segments a carried load or a workspace grown before the loop reads by
// their own name (carry.go, pregrow.go), a row sliced before an
// enclosing loop (rowseg.go), and a diagonal's, keep their own.

// wideRow is one slice several segments share: its Go name and its
// least offset's constant (its spread is the plan's).
type wideRow struct {
	name string
	min  int
}

// wideKey groups segments: the array (or a tensor's level under a
// parent) and the offset's non-constant part, canonical.
type wideKey struct {
	a      *lower.Array
	t      *lower.Tensor
	level  int
	parent string
	rest   string
}

// widePlan is the wide rows of a loop: by segment of segs and by dense
// store of dsegs, the group (-1: its own segment) and the constant of
// its offset.
type widePlan struct {
	segGroup, segConst []int
	dGroup, dConst     []int
	groups             []*wideRow
	spread             int // every group's spread (0: no wide rows)
}

// wideRows plans the wide rows of the loop f's segments segs and dense
// stores dsegs; own lists the arrays whose segments keep their own
// slice (a carried load's, a grown workspace's key's).
func (g *gen) wideRows(f *lower.For, segs []segRef, dsegs []denseSeg, own map[*lower.Array]bool) *widePlan {
	p := &widePlan{segGroup: make([]int, len(segs)), segConst: make([]int, len(segs)),
		dGroup: make([]int, len(dsegs)), dConst: make([]int, len(dsegs))}
	type member struct {
		seg bool
		i   int
	}
	byKey := map[wideKey][]member{}
	var keys []wideKey
	consts := map[member]int{}
	add := func(k wideKey, m member, c int) {
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], m)
		consts[m] = c
	}
	for i, sg := range segs {
		p.segGroup[i] = -1
		if own[sg.a] || g.rowSegName(f, sg.a, sg.off) != "" {
			continue
		}
		rest, c := lower.Expr(nil), 0
		if sg.off != nil {
			rest, c = lower.SplitConstant(sg.off)
		}
		add(wideKey{a: sg.a, rest: canonOrEmpty(rest)}, member{true, i}, c)
	}
	for i, d := range dsegs {
		p.dGroup[i] = -1
		if d.diag != nil {
			continue
		}
		rest, c := lower.Expr(nil), 0
		if d.off != nil {
			rest, c = lower.SplitConstant(d.off)
		}
		add(wideKey{t: d.x.T, level: d.x.Level, parent: lower.CanonString(d.x.Parent), rest: canonOrEmpty(rest)}, member{false, i}, c)
	}
	spreadOf := func(ms []member) (lo, s int) {
		lo, hi := consts[ms[0]], consts[ms[0]]
		for _, m := range ms {
			lo, hi = min(lo, consts[m]), max(hi, consts[m])
		}
		return lo, hi - lo
	}
	for _, k := range keys {
		if _, s := spreadOf(byKey[k]); s > p.spread {
			p.spread = s
		}
	}
	if p.spread == 0 {
		return p
	}
	for _, k := range keys {
		ms := byKey[k]
		lo, s := spreadOf(ms)
		if s != p.spread {
			continue // Go would not prove its indices (above)
		}
		gi := len(p.groups)
		p.groups = append(p.groups, &wideRow{min: lo})
		for _, m := range ms {
			if m.seg {
				p.segGroup[m.i], p.segConst[m.i] = gi, consts[m]
			} else {
				p.dGroup[m.i], p.dConst[m.i] = gi, consts[m]
			}
		}
	}
	return p
}

func canonOrEmpty(e lower.Expr) string {
	if e == nil {
		return ""
	}
	return lower.CanonString(e)
}

// at is the element of a wide row for a segment whose offset's constant
// is c, at the loop's index k.
func (w *wideRow) at(k string, c int) string {
	return w.name + "[" + plusInt(k, c-w.min) + "]"
}

// bounds are a wide row's first and last-plus-one indices in its array,
// the non-constant part of the offsets o ("" for none), the loop from lo
// to hi, the plan's spread.
func (w *wideRow) bounds(o, lo, hi string, spread int) (string, string) {
	first, last := plusInt(lo, w.min), plusInt(hi, w.min+spread)
	if o == "" {
		return first, last
	}
	if first == "0" {
		return o, o + "+" + last
	}
	return o + "+" + first, o + "+" + last
}

// plusInt is the Go expression s + c.
func plusInt(s string, c int) string {
	if n, err := strconv.Atoi(s); err == nil {
		return strconv.Itoa(n + c)
	}
	switch {
	case c > 0:
		return fmt.Sprintf("%s+%d", s, c)
	case c < 0:
		return fmt.Sprintf("%s-%d", s, -c)
	}
	return s
}

// offsetName returns the Go name of the int expression e, computed once
// a loop (offs: by canonical form).
func (g *gen) offsetName(e lower.Expr, offs map[string]string) string {
	key := lower.CanonString(e)
	o, ok := offs[key]
	if !ok {
		o = g.simple(e, lower.Int, "o")
		g.typed(o, "int")
		offs[key] = o
	}
	return o
}

// denseWideStart is denseSegStart for a dense store through the wide row
// w, its key's offset's constant c: it slices the row at the group's
// first store (its keys checked by denseSegChecks), records the store's
// element, and returns the row's name.
func (g *gen) denseWideStart(d denseSeg, w *wideRow, spread, c int, lo, hi, k string, offs map[string]string) string {
	if w.name == "" {
		ti := g.ts[d.x.T]
		o := ""
		if d.off != nil {
			if rest, _ := lower.SplitConstant(d.off); rest != nil {
				o = g.offsetName(rest, offs)
			}
		}
		if !isZero(d.x.Parent) {
			q := g.simple(d.x.Parent, lower.Int, "q")
			base := g.loc.name("base")
			g.typed(base, "int")
			g.line("%s := %s*%s", base, q, ti.f(nField(d.x.Level)))
			if o != "" {
				o = base + "+" + o
			} else {
				o = base
			}
		}
		w.name = g.loc.name(d.x.T.Name + "Wide")
		g.typed(w.name, "[]"+goKind(d.x.T.Leaf))
		first, last := w.bounds(o, lo, hi, spread)
		g.line("%s := %s[%s : %s] // wide row (widerows.go)", w.name, ti.f(valsField), first, last)
	}
	g.segInsert[d.x] = ""
	if q := d.storePos(); q != nil && g.read[q] {
		g.segStore[q] = w.at(k, c)
	}
	return w.name
}

// wideLengths reslices a loop's segments (names; a wide row's name once
// per segment it serves) to the lengths from which Go proves their
// indices in bounds, and returns the loop's count.
func (g *gen) wideLengths(p *widePlan, names []string) string {
	w0 := p.groups[0].name
	m := g.loc.name("m")
	g.typed(m, "int")
	g.line("%s := len(%s) - %d", m, w0, p.spread)
	isWide := map[string]bool{}
	for _, w := range p.groups {
		isWide[w.name] = true
	}
	done := map[string]bool{w0: true}
	for _, n := range names {
		if done[n] {
			continue
		}
		done[n] = true
		if isWide[n] {
			g.line("%s = %s[:len(%s)]", n, n, w0)
		} else {
			g.line("%s = %s[:%s]", n, n, m)
		}
	}
	return m
}
