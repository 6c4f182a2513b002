// Bounds-check elimination in generated loops: re-slicing the inputs a
// loop reads unconditionally so that the Go compiler drops its checks.

package legacyexec

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// bce rewrites the loop just emitted (from byte start of the body
// buffer), for i := 0; i < hi; i++ { ... }, so that the compiler drops
// the bounds checks of the slices it indexes by i on every iteration
// (dst and the inputs): each such slice X becomes a local x := X[:hi]
// indexed instead. Only accesses X[i] made unconditionally in every
// iteration qualify (at the loop body's top level, outside conditions),
// so the reslice panics only where the loop itself would.
func (g *gogen) bce(start int, i, hi string) {
	text := g.b.String()[start:]
	first := strings.IndexByte(text, '\n')
	if first < 0 {
		return
	}
	body := text[first+1:]
	cands := []string{"dst"}
	for n := range g.params {
		if k := g.vars[n]; k != nil && k.g == n && (k.kind == "arrI" || k.kind == "arrR") {
			cands = append(cands, n)
		}
	}
	sort.Strings(cands)
	var pre []string
	n := hi
	if _, err := strconv.Atoi(hi); err != nil {
		n = g.name("n")
	}
	for _, x := range cands {
		re := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(x) + `\[`)
		all := re.FindAllStringIndex(body, -1)
		if len(all) == 0 {
			continue
		}
		ok := true
		for _, m := range all {
			at := m[1] - len(x) - 1
			if !strings.HasPrefix(body[at+len(x):], "["+i+"]") {
				ok = false
				break
			}
			depth := strings.Count(body[:at], "{") - strings.Count(body[:at], "}")
			ls := strings.LastIndexByte(body[:at], '\n') + 1
			le := strings.IndexByte(body[at:], '\n')
			line := body[ls:]
			if le >= 0 {
				line = body[ls : at+le]
			}
			if depth != 0 || strings.HasPrefix(strings.TrimSpace(line), "if ") || strings.Contains(line, "&&") || strings.Contains(line, "||") {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		loc := g.name(strings.ReplaceAll(x, "_", "") + "s")
		pre = append(pre, fmt.Sprintf("%s := %s[:%s]\n", loc, x, n))
		body = re.ReplaceAllString(body, "${1}"+loc+"[")
	}
	if len(pre) == 0 {
		return
	}
	g.b.Truncate(start)
	if n != hi { // the loop runs max(hi, 0) times
		fmt.Fprintf(&g.b, "%s := max(%s, 0)\n", n, hi)
		text = strings.Replace(text, "; "+i+" < "+hi+"; ", "; "+i+" < "+n+"; ", 1)
		first = strings.IndexByte(text, '\n')
	}
	for _, p := range pre {
		g.b.WriteString(p)
	}
	g.b.WriteString(text[:first+1])
	g.b.WriteString(body)
}

// bceSlice rewrites the loop just emitted (from byte start),
// for p, p_end := lo, hi; p < p_end; p++ { ... }, as a range over
// sub-slices of the slices it indexes by p unconditionally in every
// iteration (as bce), dropping their bounds checks:
//
//	if lo < hi { xs := X[lo:hi]; for q := range xs { p := lo + q; ... xs[q] ... } }
func (g *gogen) bceSlice(start int, p, lo, hi string) {
	text := g.b.String()[start:]
	first := strings.IndexByte(text, '\n')
	if first < 0 || !isSimple(p) {
		return
	}
	body := text[first+1:]
	cands := []string{"dst"}
	for n := range g.params {
		if k := g.vars[n]; k != nil && k.g == n && (k.kind == "arrI" || k.kind == "arrR") {
			cands = append(cands, n)
		}
	}
	sort.Strings(cands)
	var hits []string
	for _, x := range cands {
		re := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(x) + `\[`)
		all := re.FindAllStringIndex(body, -1)
		word := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(x) + `\b`)
		if len(all) == 0 || len(word.FindAllStringIndex(body, -1)) != len(all) || !unconditional(body, all, x, p) {
			continue
		}
		hits = append(hits, x) // x is shadowed by its sub-slice
	}
	if len(hits) == 0 {
		return
	}
	// the range's variable: p itself unless p is used otherwise
	r := p
	rest := body
	for _, x := range hits {
		rest = strings.ReplaceAll(rest, x+"["+p+"]", "")
	}
	pUsed := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(p) + `\b`).MatchString(rest)
	if pUsed {
		r = g.name("q")
		for _, x := range hits {
			body = strings.ReplaceAll(body, x+"["+p+"]", x+"["+r+"]")
		}
	}
	l, h := g.name("lo"), g.name("hi")
	var b strings.Builder
	fmt.Fprintf(&b, "if %s, %s := %s, %s; %s < %s {\n", l, h, lo, hi, l, h)
	for _, x := range hits {
		fmt.Fprintf(&b, "%s := %s[%s:%s]\n", x, x, l, h)
	}
	fmt.Fprintf(&b, "for %s := range %s {\n", r, hits[0])
	if pUsed {
		fmt.Fprintf(&b, "%s := %s + %s\n", p, l, r)
	}
	b.WriteString(body)
	b.WriteString("}\n")
	g.b.Truncate(start)
	g.b.WriteString(b.String())
}

// unconditional reports whether every match (of x[) in body is x[p],
// at the body's top level and outside conditions.
func unconditional(body string, all [][]int, x, p string) bool {
	for _, m := range all {
		at := m[1] - len(x) - 1
		if !strings.HasPrefix(body[at+len(x):], "["+p+"]") {
			return false
		}
		depth := strings.Count(body[:at], "{") - strings.Count(body[:at], "}")
		ls := strings.LastIndexByte(body[:at], '\n') + 1
		le := strings.IndexByte(body[at:], '\n')
		line := body[ls:]
		if le >= 0 {
			line = body[ls : at+le]
		}
		if depth != 0 || strings.HasPrefix(strings.TrimSpace(line), "if ") || strings.Contains(line, "&&") || strings.Contains(line, "||") {
			return false
		}
	}
	return true
}
