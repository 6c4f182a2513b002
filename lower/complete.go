package lower

import "github.com/nablasd/nablasd/formats"

// What a result completed to an input's stored positions allows
// (Options.CompletedOn): the caller adds every stored position of that
// input the kernel leaves out, with a zero value (ad.OnStoredPositions,
// the gradient of a scalar program), so a kernel whose every store lands
// on one of those positions may store zeros at more of them than the
// program builds. Two passes use that freedom, both only when the
// result's levels can hold nothing else (onPositionsOf):
//
//   - ZeroExtend runs a lookup's body also where the key is missing, with
//     the zero value it then reads, when the body's only effect is to
//     store that value into the result: the workspace looked up then
//     needs no presence (DropMarks), SMMM's column sums among them;
//   - FullRows makes the result's dense level 0 full where a loop over
//     all its keys inserts every row that has positions: a row it skips
//     has none, and holds none after the completion either.

// onPositionsOf reports whether every key the result tensor t can hold
// is a stored position of the input whose levels are ls (level i of t
// keyed as mode i of the input): each level of t reuses the input's level
// i (Positions), or is dense over the extent of the input's dense level i:
// sized by the input's extent parameter, or by the constant shape[i] the
// caller gave as the result's shape (Options.ResultShape, which with
// CompletedOn is that input's shape: a gradient on a dense input).
func onPositionsOf(p *Program, t *Tensor, ls []formats.LevelInfo, shape []int) bool {
	if t == nil || len(ls) != t.Order() {
		return false
	}
	vars := map[string]*Var{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			vars[pa.Name] = pa.Var
		}
	}
	for i, l := range t.Levels {
		in := ls[i]
		if in.Mode != i {
			return false
		}
		switch l.Storage {
		case Positions:
			if l.Of == nil || l.Of.Idx == nil || l.Of.Idx.Name != in.Idx || (in.Pos != "" && (l.Of.Pos == nil || l.Of.Pos.Name != in.Pos)) {
				return false
			}
		case Dense:
			n := vars[in.Extent]
			byParam := n != nil && l.Size != nil && isRefTo(l.Size, n)
			byShape := i < len(shape) && shape[i] > 0 && isConst(l.Size, float64(shape[i]))
			if !in.CoordIter || !byParam && !byShape {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// completedLevels returns the levels of the input the result is completed
// to, when the result's levels hold only its stored positions; nil else.
func completedLevels(p *Program, opts Options) []formats.LevelInfo {
	if opts.CompletedOn == "" || p.ResultTensor == nil {
		return nil
	}
	f, ok := opts.Formats[opts.CompletedOn]
	if !ok {
		return nil
	}
	ls, err := formats.Levels(f.Format, opts.CompletedOn, f.Order)
	if err != nil || !onPositionsOf(p, p.ResultTensor, ls, opts.ResultShape) {
		return nil
	}
	return ls
}
