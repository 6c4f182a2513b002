package gogen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// The methods of the result type (Reset, Entries, String) and of a
// dictionary input's type (load). They walk the levels one method per
// level, children in ascending key order; they are not hot.

// childrenAsc returns the loop over the children of parent position q at
// level lv in ascending key order, in a method of t: its opening lines,
// which bind k (the key) and c (the child position), and its closing.
func (g *gen) childrenAsc(t *lower.Tensor, lv int) (open, close string) {
	switch l := t.Levels[lv]; l.Storage {
	case lower.Dense:
		open = fmt.Sprintf("for k := 0; k < t.%s; k++ {\nc := q*t.%s + k\n", nField(lv), nField(lv))
		if !l.Full {
			open += fmt.Sprintf("if !t.%s[c] {\ncontinue\n}\n", presentField(lv))
		}
	case lower.Sparse:
		g.imports["slices"] = true
		open = fmt.Sprintf("_ = q\nks := slices.Clone(t.%s)\nslices.Sort(ks)\nfor _, k := range ks {\nc := k\n", listField(lv))
	case lower.Hash:
		open = fmt.Sprintf("for _, c := range t.%s.sorted(q) {\nk := t.%s.Keys[c]\n", hashField(lv), hashField(lv))
	case lower.Appended:
		open = fmt.Sprintf("for _, c := range t.%s.sorted(q) {\nk := t.%s.Keys[c]\n", appField(lv), appField(lv))
	case lower.Diagonal:
		open = "for k, c := q, q; k == q; k++ {\n"
		if !l.Full {
			open += fmt.Sprintf("if !t.%s && !t.%s[c] {\ncontinue\n}\n", allField(lv), presentField(lv))
		}
	case lower.Positions:
		bounds := fmt.Sprintf("lo, hi := 0, 0\nif q == 0 {\nhi = len(t.%s)\n}\n", idxField(lv))
		if l.Of.Pos != nil {
			bounds = fmt.Sprintf("lo, hi := 0, 0\nif q >= 0 && q+1 < len(t.%s) {\nlo, hi = t.%s[q], t.%s[q+1]\n}\n", posField(lv), posField(lv), posField(lv))
		}
		open = bounds + "for c := lo; c < hi; c++ {\n"
		if l.Marked() {
			open += fmt.Sprintf("if !t.%s[c] {\ncontinue\n}\n", presentField(lv))
		}
		open += fmt.Sprintf("k := t.%s[c]\n", idxField(lv))
	}
	return open, "}\n"
}

// leafFloat is t.Vals[c] as a float64.
func (g *gen) leafFloat(k lower.Kind) string {
	switch k {
	case lower.Int:
		return "float64(t.Vals[c])"
	case lower.Bool:
		g.helpers["b2f"] = true
		return g.pfx + "B2f(t.Vals[c])"
	}
	return "t.Vals[c]"
}

// resultMethods writes Reset, Entries and String of the result type.
func (g *gen) resultMethods(w *bytes.Buffer, ti *tinfo) {
	t := ti.t
	last := t.Order() - 1
	// Reset
	fmt.Fprintf(w, "// Reset empties r, keeping its memory (a dense level that holds every key\n// keeps them, with zero values).\nfunc (t *%s) Reset() {\n", ti.typ)
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense:
			if !l.Full {
				fmt.Fprintf(w, "clear(t.%s)\n", presentField(lv))
			}
		case lower.Sparse:
			fmt.Fprintf(w, "for _, k := range t.%s {\nt.%s[k] = false\n}\nt.%s = t.%s[:0]\n", listField(lv), markField(lv), listField(lv), listField(lv))
		case lower.Hash:
			fmt.Fprintf(w, "t.%s.reset()\n", hashField(lv))
		case lower.Appended:
			fmt.Fprintf(w, "t.%s.reset()\n", appField(lv))
		case lower.Positions:
			if l.Marked() {
				fmt.Fprintf(w, "clear(t.%s)\n", presentField(lv))
			}
		case lower.Diagonal:
			if !l.Full {
				fmt.Fprintf(w, "t.%s = false\nclear(t.%s)\n", allField(lv), presentField(lv))
			}
		}
	}
	switch {
	case fixedPositions(t, last):
		w.WriteString("clear(t.Vals)\n")
	case t.Levels[last].Storage == lower.Hash || t.Levels[last].Storage == lower.Appended:
		w.WriteString("t.Vals = t.Vals[:0]\n")
	}
	w.WriteString("}\n\n")

	// Entries
	fmt.Fprintf(w, `// Entries calls f for every value of r with its keys, outermost first, in
// ascending order (lexicographically), until f returns false; keys is
// reused between calls.
func (t *%s) Entries(f func(keys []int, v float64) bool) {
	keys := make([]int, %d)
	t.entries0(0, keys, f)
}

`, ti.typ, t.Order())
	for lv := range t.Levels {
		open, close := g.childrenAsc(t, lv)
		fmt.Fprintf(w, "func (t *%s) entries%d(q int, keys []int, f func([]int, float64) bool) bool {\n%skeys[%d] = k\n", ti.typ, lv, open, lv)
		if lv == last {
			fmt.Fprintf(w, "if !f(keys, %s) {\nreturn false\n}\n", g.leafFloat(t.Leaf))
		} else {
			fmt.Fprintf(w, "if !t.entries%d(c, keys, f) {\nreturn false\n}\n", lv+1)
		}
		w.WriteString(close + "return true\n}\n\n")
	}

	// Empty: the inner dictionaries present without entries, which
	// Entries, a walk over the values, cannot show
	fmt.Fprintf(w, `// Empty calls f with the keys of every inner dictionary of r that is
// present but holds no entry ({2 -> {}}: keys [2]), outermost first, until f
// returns false; keys is reused between calls.
func (t *%s) Empty(f func(keys []int) bool) {
	keys := make([]int, %d)
	_ = keys
`, ti.typ, t.Order())
	if last > 0 {
		w.WriteString("t.empty0(0, keys, f)\n")
	}
	w.WriteString("}\n\n")
	for lv := 0; lv < last; lv++ {
		open, close := g.childrenAsc(t, lv)
		fmt.Fprintf(w, "func (t *%s) empty%d(q int, keys []int, f func([]int) bool) bool {\n%skeys[%d] = k\n", ti.typ, lv, open, lv)
		fmt.Fprintf(w, "if !t.has%d(c) {\nif !f(keys[:%d]) {\nreturn false\n}\ncontinue\n}\n", lv+1, lv+1)
		if lv+1 < last {
			fmt.Fprintf(w, "if !t.empty%d(c, keys, f) {\nreturn false\n}\n", lv+1)
		}
		w.WriteString(close + "return true\n}\n\n")
		open, close = g.childrenAsc(t, lv+1)
		fmt.Fprintf(w, "func (t *%s) has%d(q int) bool {\n%s_, _ = k, c\nreturn true\n%sreturn false\n}\n\n", ti.typ, lv+1, open, close)
	}

	// String
	g.imports["strings"] = true
	g.imports["strconv"] = true
	fmt.Fprintf(w, `// String prints r as an SDQL value literal, keys ascending: {0 -> {1 -> 2.5}}.
func (t *%s) String() string {
	var b strings.Builder
	t.str0(&b, 0)
	return b.String()
}

`, ti.typ)
	for lv := range t.Levels {
		open, close := g.childrenAsc(t, lv)
		fmt.Fprintf(w, "func (t *%s) str%d(b *strings.Builder, q int) {\nb.WriteByte('{')\nn := 0\n%s", ti.typ, lv, open)
		w.WriteString("if n > 0 {\nb.WriteString(\", \")\n}\nn++\nb.WriteString(strconv.Itoa(k))\nb.WriteString(\" -> \")\n")
		if lv == last {
			switch t.Leaf {
			case lower.Int:
				w.WriteString("b.WriteString(strconv.Itoa(t.Vals[c]))\n")
			case lower.Bool:
				w.WriteString("b.WriteString(strconv.FormatBool(t.Vals[c]))\n")
			default:
				g.helpers["formatReal"] = true
				fmt.Fprintf(w, "b.WriteString(%sFormatReal(t.Vals[c]))\n", g.pfx)
			}
		} else {
			fmt.Fprintf(w, "t.str%d(b, c)\n", lv+1)
		}
		w.WriteString(close + "b.WriteByte('}')\n}\n\n")
	}
}

// loadMethod writes load, which fills a dictionary input's tensor from
// its nested maps, keys ascending.
func (g *gen) loadMethod(w *bytes.Buffer, ti *tinfo) {
	t := ti.t
	for lv, l := range t.Levels {
		if l.Storage != lower.Hash {
			g.failf("the dictionary input %s has a level %d of storage %s (want hashed levels)", t.Name, lv, l.Storage)
		}
	}
	g.imports["slices"] = true
	typ := g.goType(t.Type)
	fmt.Fprintf(w, "// load fills t with the dictionary m, keys ascending.\nfunc (t *%s) load(m %s) {\nt.init()\nt.load0(0, m)\n}\n\n", ti.typ, typ)
	last := t.Order() - 1
	for lv := range t.Levels {
		fmt.Fprintf(w, "func (t *%s) load%d(q int, m %s) {\n", ti.typ, lv, typ)
		fmt.Fprintf(w, "keys := make([]int, 0, len(m))\nfor k := range m {\nkeys = append(keys, k)\n}\nslices.Sort(keys)\nfor _, k := range keys {\n")
		if lv == last {
			fmt.Fprintf(w, "c, added := t.%s.insert(q, k)\nif added {\nt.Vals = append(t.Vals, m[k])\n} else {\nt.Vals[c] = m[k]\n}\n", hashField(lv))
		} else {
			fmt.Fprintf(w, "c, _ := t.%s.insert(q, k)\nt.load%d(c, m[k])\n", hashField(lv), lv+1)
		}
		w.WriteString("}\n}\n\n")
		typ = strings.TrimPrefix(typ, "map[int]")
	}
}
