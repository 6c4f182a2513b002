package gogen

import "github.com/nablasd/nablasd/lower"

// fillCall emits, for a loop lowering marked a Fill that assigns (a row
// of a dense result set to one value F: SMMM's gradient with respect to a
// dense B, A's column sum k along row k) and that stores through the one
// dense row segment seg and nothing else, a call of the helper PFXFill
// with F evaluated before the loop (F reads neither the loop variable nor
// the result's values: matchFill), and reports whether it did. PFXFill
// stores eight entries a trip: a plain store loop over a large row ran at
// 1.0x or 1.7x the hand-written loop's time depending on where the linker
// put it.
func (g *gen) fillCall(f *lower.For, seg string) bool {
	if f == nil || f.Prim == nil || f.Prim.Name != "Fill" || !f.Prim.Set || len(f.Prim.Factors) != 1 || f.Prim.Dst.Leaf != lower.Real {
		return false
	}
	g.helpers["fill"] = true
	g.line("%sFill(%s, %s)", g.pfx, seg, g.exprAs(f.Prim.Factors[0], lower.Real))
	return true
}

// fillHelper is PFXFill's source (helperSources["fill"]).
const fillHelper = `// PFXFill sets every entry of row to c, eight stores a trip.
func PFXFill(row []float64, c float64) {
	i := 0
	for ; i+8 <= len(row); i += 8 {
		d := row[i : i+8 : i+8]
		d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = c, c, c, c, c, c, c, c
	}
	for ; i < len(row); i++ {
		row[i] = c
	}
}
`

func init() { helperSources["fill"] = fillHelper }

// copyDefault emits, for a loop from 0 over the one dense row segment seg of
// the result whose body reads a vector T's value at the loop variable,
// defaulting to zero where T has no entry there, and stores it into the
// row:
//
//	x := 0.0; if q := locate(T.level0[0], i); found { x = T.val[q] }
//	q2 := insert(out…, i); out.val[q2] = x
//
// (a gradient's x̄ copied into the result, x̄ longer or shorter than
// it), Go's copy of T's values over the keys T holds and a clear of the
// rest, and reports whether it did: the loop tested every key against
// T's length (the downsampling's native gradient spent 0.5-0.6 ms of
// 5.4 ms there). T's level 0 is dense and unmarked:
// every key below its length is present, none past it.
// d is seg's dense store.
func (g *gen) copyDefault(f *lower.For, lo string, d denseSeg, seg string) bool {
	if f == nil || lo != "0" || d.diag != nil || d.off != nil {
		return false
	}
	t, ins, zero := lower.CopyFrom(f, d.x.T)
	if t == nil || !zero || ins != d.x || !t.Levels[0].Unmarked {
		return false
	}
	vals := g.ts[t].f(valsField)
	m := g.loc.name("m")
	g.line("%s := min(len(%s), len(%s)) // the keys %s holds (copyDefault)", m, seg, vals, t.Name)
	g.line("copy(%s[:%s], %s[:%s])", seg, m, vals, m)
	g.line("clear(%s[%s:])", seg, m)
	return true
}
