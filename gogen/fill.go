package gogen

import "github.com/nablasd/nablasd/lower"

// fillValue returns, for a loop lowering marked a Fill that assigns (a row
// of a dense result set to one value F: SMMM's gradient with respect to a
// dense B, A's column sum k along row k) and that stores through one
// dense row segment and nothing else, F as a Go expression, evaluated
// before the loop (F reads neither the loop variable nor the result's
// values: matchFill); else "". The loop is then a call of the helper
// PFXFill, eight stores a trip: a plain store loop over a large row ran
// at 1.0x or 1.7x the hand-written loop's time depending on where the
// linker put it.
func (g *gen) fillValue(f *lower.For, segs []segRef, stores []*lower.Insert, dsegs []denseSeg, back []backRef, carried []carry, outline bool) string {
	if f == nil || f.Prim == nil || f.Prim.Name != "Fill" || !f.Prim.Set || len(f.Prim.Factors) != 1 {
		return ""
	}
	if len(segs) != 0 || len(stores) != 0 || len(dsegs) != 1 || len(back) != 0 || len(carried) != 0 || outline {
		return ""
	}
	if f.Prim.Dst.Leaf != lower.Real {
		return ""
	}
	return g.exprAs(f.Prim.Factors[0], lower.Real)
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
