package formats

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Definition returns the definition of format f for tensors of the given
// order in Physical SDQLite (the ∇SD paper's Fig. 10), generated from the
// format's levels, with its inputs named after name as described under
// the naming scheme documented in format.go. For CSR and name A:
//
//	sum(<_, i> in (0:A_len)) { unique(i) -> sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { unique(j) -> A_val(p) } }
//
// The definition evaluates to the tensor's logical dictionary, keyed in
// logical mode order ({row -> {col -> v}} for CSC too). A key is marked
// unique(...) when no two iterations of the enclosing sums give it for the
// same outer keys. It fails for an order f does not support or a name that
// is not an identifier.
func Definition(f Format, name string, order int) (string, error) {
	g, err := newDefGen(f, name, order)
	if err != nil {
		return "", err
	}
	return g.text(), nil
}

// Inputs returns the names of the inputs of Definition(f, name, order), in
// the order of the paper's Fig. 10: lengths and extents, then per level pos
// and idx arrays, then values (CSR: A_len, A_pos, A_idx, A_val).
func Inputs(f Format, name string, order int) ([]string, error) {
	g, err := newDefGen(f, name, order)
	if err != nil {
		return nil, err
	}
	ins := g.inputs()
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.name
	}
	return names, nil
}

// Fields returns, for every input of Definition(f, name, order), the field
// of a Tensor t it is bound to by Bind, as Go: "len(t.Idx[0])",
// "t.Shape[0]", "t.Pos[1]", "t.Idx[1]" or "t.Val" (CSR and A: A_len, A_pos,
// A_idx, A_val), for documenting generated code.
func Fields(f Format, name string, order int) (map[string]string, error) {
	g, err := newDefGen(f, name, order)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, in := range g.inputs() {
		switch in.kind {
		case inLen:
			out[in.name] = fmt.Sprintf("len(t.Idx[%d])", in.level)
		case inExtent:
			out[in.name] = fmt.Sprintf("t.Shape[%d]", in.mode)
		case inPos:
			out[in.name] = fmt.Sprintf("t.Pos[%d]", in.level)
		case inIdx:
			out[in.name] = fmt.Sprintf("t.Idx[%d]", in.level)
		case inVal:
			out[in.name] = "t.Val"
		}
	}
	return out, nil
}

// Bind returns every input of t's definition under name, bound to t's
// slices without copying (sdql.IntArray for pos and idx arrays,
// sdql.RealArray for values, sdql.Int for lengths and extents). It
// validates t first and fails when t is invalid or name is not an
// identifier.
func Bind(t *Tensor, name string) (map[string]sdql.Value, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return BindTrusted(t, name)
}

// BindTrusted is Bind for a tensor the caller has validated, or trusts
// (the root package's Options.NoValidate): it checks only that t has the
// slices its format reads (one Pos and one Idx slice per level), not
// their contents, which Validate reads in full (a pass over every
// stored coordinate).
func BindTrusted(t *Tensor, name string) (map[string]sdql.Value, error) {
	if t == nil {
		return nil, fmt.Errorf("formats: nil tensor")
	}
	lay, err := t.Layout()
	if err != nil {
		return nil, err
	}
	if n := lay.Order(); len(t.Pos) != n || len(t.Idx) != n {
		return nil, fmt.Errorf("formats: %s: %d pos and %d idx slices, want %d each (one per level)", lay.name, len(t.Pos), len(t.Idx), n)
	}
	g, err := newDefGen(t.Format, name, len(t.Shape))
	if err != nil {
		return nil, err
	}
	env := make(map[string]sdql.Value)
	for _, in := range g.inputs() {
		var v sdql.Value
		switch in.kind {
		case inLen:
			v = sdql.Int(len(t.Idx[in.level]))
		case inExtent:
			v = sdql.Int(t.Shape[in.mode])
		case inPos:
			v = sdql.IntArray(t.Pos[in.level])
		case inIdx:
			v = sdql.IntArray(t.Idx[in.level])
		case inVal:
			v = sdql.RealArray(t.Val)
		}
		env[in.name] = v
	}
	return env, nil
}

// inputKind says which part of a container an input is bound to.
type inputKind int

const (
	inLen    inputKind = iota // len(Idx[level]), the entries of a top compressed level
	inExtent                  // Shape[mode]
	inPos                     // Pos[level]
	inIdx                     // Idx[level]
	inVal                     // Val
)

// input is one input of a definition.
type input struct {
	name        string
	kind        inputKind
	level, mode int
}

// defGen generates a format's definition and names its inputs.
type defGen struct {
	lay   Layout
	name  string
	nComp int // number of compressed levels
}

func newDefGen(f Format, name string, order int) (*defGen, error) {
	if !isIdent(name) {
		return nil, fmt.Errorf("formats: tensor name %q is not an identifier", name)
	}
	lay, err := f.Layout(order)
	if err != nil {
		return nil, err
	}
	g := &defGen{lay: lay, name: name}
	for _, l := range lay.Levels {
		if _, ok := l.(CompressedLevel); ok {
			g.nComp++
		}
	}
	return g, nil
}

func isIdent(s string) bool {
	if s == "" || s == "_" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// denseLogical reports whether the definition iterates the modes in logical
// order: formats of order >= 2 whose levels are all dense (random access).
func (g *defGen) denseLogical() bool { return g.lay.Order() >= 2 && g.lay.AllDense() }

var coordVars = []string{"i", "j", "k", "l", "m", "n"}

// coordVar returns the variable bound to coordinates of mode m.
func (g *defGen) coordVar(m int) string {
	if m < len(coordVars) {
		return coordVars[m]
	}
	return "i" + strconv.Itoa(m)
}

// posVar returns the variable bound to positions of compressed level k.
func (g *defGen) posVar(k int) string {
	switch {
	case g.lay.Order() == 1:
		return "i"
	case g.nComp == 1:
		return "p"
	}
	return "p" + strconv.Itoa(k+1)
}

// numbered returns NAME_base, numbered by level when the format has
// several compressed levels.
func (g *defGen) numbered(base string, k int) string {
	if g.nComp == 1 {
		return g.name + "_" + base
	}
	return g.name + "_" + base + strconv.Itoa(k+1)
}

func (g *defGen) posArray(k int) string { return g.numbered("pos", k) }
func (g *defGen) idxArray(k int) string { return g.numbered("idx", k) }

var modeNames = []string{"row", "col", "tube"}

// coordArray returns the name of the coordinate array of mode m (a
// singleton level or the top compressed level).
func (g *defGen) coordArray(m int) string {
	if m < len(modeNames) {
		return g.name + "_" + modeNames[m]
	}
	return g.name + "_dim" + strconv.Itoa(m)
}

// modeExtent returns the name of the extent of mode m.
func (g *defGen) modeExtent(m int) string {
	if m < len(modeNames) {
		return g.name + "_" + modeNames[m] + "s"
	}
	return g.name + "_dims" + strconv.Itoa(m)
}

// denseExtent returns the name of the extent of dense level k.
func (g *defGen) denseExtent(k int) string {
	if k == 0 && !g.denseLogical() {
		return g.name + "_len"
	}
	return g.modeExtent(g.lay.ModeOrder[k])
}

func (g *defGen) val(q string) string { return g.name + "_val(" + q + ")" }

func paren(q string) string {
	if strings.ContainsAny(q, "+-") {
		return "(" + q + ")"
	}
	return q
}

func unique(key string) string { return "unique(" + key + ")" }

// text generates the definition.
func (g *defGen) text() string {
	n := g.lay.Order()
	if g.denseLogical() {
		q, body := "", ""
		for _, m := range g.lay.ModeOrder {
			q = linear(q, g.modeExtent(m), g.coordVar(m))
		}
		body = g.val(q)
		for m := n - 1; m >= 0; m-- {
			x := g.coordVar(m)
			body = "sum(<_, " + x + "> in (0:" + g.modeExtent(m) + ")) { " + unique(x) + " -> " + body + " }"
		}
		return body
	}
	// Levels storing modes in logical order nest their keys directly.
	prefix := 0
	for prefix < n && g.lay.ModeOrder[prefix] == prefix {
		prefix++
	}
	var nest func(k int, q string) string
	nest = func(k int, q string) string {
		if k == prefix {
			return g.tail(k, q)
		}
		l := g.lay.Levels[k]
		header, key, pos := l.define(g, k, q)
		if l.IsUnique() {
			key = unique(key)
		}
		s := "{ " + key + " -> " + nest(k+1, pos) + " }"
		if header != "" {
			s = header + " " + s
		}
		return s
	}
	return nest(0, "")
}

// tail generates levels k0.. whose modes are out of logical order: their
// loops first, in storage order, then the dictionary in logical order. Only
// the innermost key can be unique: the outer ones repeat across the loops.
func (g *defGen) tail(k0 int, q string) string {
	n := g.lay.Order()
	if k0 == n {
		return g.val(q)
	}
	var headers []string
	keys := make([]string, n)
	for k := k0; k < n; k++ {
		h, key, pos := g.lay.Levels[k].define(g, k, q)
		if h != "" {
			headers = append(headers, h)
		}
		keys[g.lay.ModeOrder[k]] = key
		q = pos
	}
	body := g.val(q)
	for m := n - 1; m >= k0; m-- {
		key := keys[m]
		if m == n-1 && g.lay.UniqueCoords() {
			key = unique(key)
		}
		body = "{ " + key + " -> " + body + " }"
	}
	return strings.Join(append(headers, body), " ")
}

// inputs lists the definition's inputs.
func (g *defGen) inputs() []input {
	var ins []input
	if g.denseLogical() {
		for m := range g.lay.ModeOrder {
			ins = append(ins, input{g.modeExtent(m), inExtent, -1, m})
		}
	} else {
		for k, l := range g.lay.Levels {
			ins = append(ins, l.inputs(g, k)...)
		}
	}
	return append(ins, input{g.name + "_val", inVal, -1, -1})
}
