package fuse

import (
	"math"

	"github.com/nablasd/nablasd/sdql"
)

// Stats describes the sizes of a program's inputs for the cost model.
// For a dictionary input it is the fan-out per level (a matrix with 5,000
// rows and 20,000 entries is [5000, 4]); for a physical array its length;
// for an int input (a length such as A_len) its value.
type Stats map[string][]float64

// DefaultFanout is the size assumed for a dictionary level of unknown size.
const DefaultFanout = 100

// The cost model's unit costs.
const (
	costScalarOp   = 1.0 // + * - / comparisons and calls on numbers
	costArrayRead  = 1.0 // a lookup into a physical array
	costHashLookup = 3.0 // a lookup into a hash-map dictionary
	costInsert     = 2.0 // inserting an entry into a dictionary being built
	costIter       = 1.0 // one iteration of a sum
	mergeDiscount  = 0.5 // merged entries of a sum of dictionaries with colliding keys
)

// shape is the estimated fan-out per level of a dictionary value (nil for
// a scalar).
type shape []float64

func (s shape) size() float64 {
	if len(s) == 0 {
		return 1
	}
	return s[0]
}

// total returns the number of scalars stored, the product of the fan-outs.
func (s shape) total() float64 {
	t := 1.0
	for _, f := range s {
		t *= f
	}
	return t
}

func (s shape) inner() shape {
	if len(s) <= 1 {
		return nil
	}
	return s[1:]
}

// nodeInfo is what the cost model knows of one sub-expression.
type nodeInfo struct {
	cost    float64
	shape   shape
	typ     sdql.Type
	value   float64 // the value of an int input (a length), or NaN
	arrayOf float64 // for a lookup into a physical array: that array's length; else 0
}

// costOf computes the cost and shape of a node from its children's (in the
// order of sdql.Children). bind gives the shapes of a sum's or let's
// binders to the cost of its body; the caller handles that by computing
// kids in the right environment.
func costOf(e sdql.Expr, typ sdql.Type, kids []nodeInfo, m *costModel) nodeInfo {
	out := nodeInfo{typ: typ, value: math.NaN()}
	sum := 0.0
	for _, k := range kids {
		sum += k.cost
	}
	switch e := e.(type) {
	case *sdql.Ident:
		out.shape = m.nameShape(e.Name, typ)
		if v, ok := m.stats[e.Name]; ok && len(v) == 1 && isScalarType(typ) {
			out.value = v[0]
		}
	case *sdql.IntLit:
		out.value = float64(e.Value)
	case *sdql.RealLit, *sdql.BoolLit:
	case *sdql.ZeroExpr:
		out.shape = shape{}
	case *sdql.SumExpr:
		src, body := kids[0], kids[1]
		n := math.Max(src.shape.size(), 1)
		perIter := costIter + body.cost
		if len(body.shape) > 0 {
			perIter += body.shape.total() // merging the body into the result
		}
		out.cost = src.cost + n*perIter
		if len(body.shape) > 0 {
			sh := append(shape{}, body.shape...)
			sh[0] = math.Max(1, sh[0]*n*mergeFactor(e))
			out.shape = sh
		}
		return out
	case *sdql.DictExpr:
		out.cost = sum + costInsert*float64(len(e.Entries))
		if len(e.Entries) > 0 {
			out.shape = append(shape{float64(len(e.Entries))}, kids[1].shape...)
		} else {
			out.shape = shape{0}
		}
		return out
	case *sdql.LookupExpr:
		x := kids[0]
		if isArrayType(x.typ) {
			out.cost = sum + costArrayRead
			out.arrayOf = x.shape.size()
		} else {
			out.cost = sum + costHashLookup
		}
		out.shape = x.shape.inner()
		return out
	case *sdql.SliceExpr:
		arr, lo := kids[0], kids[1]
		f := DefaultFanout * 1.0
		if lo.arrayOf > 1 {
			f = math.Max(1, arr.shape.size()/(lo.arrayOf-1))
		}
		out.cost = sum + costScalarOp
		out.shape = shape{f}
		return out
	case *sdql.RangeExpr:
		n := DefaultFanout * 1.0
		if !math.IsNaN(kids[1].value) {
			lo := 0.0
			if !math.IsNaN(kids[0].value) {
				lo = kids[0].value
			}
			n = math.Max(0, kids[1].value-lo)
		}
		out.cost = sum
		out.shape = shape{n}
		return out
	case *sdql.LetExpr:
		out.cost = sum
		out.shape = kids[len(kids)-1].shape
		out.value = kids[len(kids)-1].value
		return out
	case *sdql.IfExpr:
		br := kids[1].cost
		if len(kids) > 2 {
			br = math.Max(br, kids[2].cost)
		}
		out.cost = kids[0].cost + br + costScalarOp
		out.shape = kids[1].shape
		return out
	case *sdql.BinaryExpr:
		x, y := kids[0], kids[1]
		switch e.Op {
		case sdql.MUL:
			switch {
			case len(x.shape) > 0:
				// an outer product: one multiplication per scalar of the
				// result, one insertion per entry of the left operand
				out.shape = append(append(shape{}, x.shape...), y.shape...)
				out.cost = sum + costScalarOp*out.shape.total() + costInsert*x.shape.size()
			case len(y.shape) > 0:
				// a number times a dictionary: multiplication normalization
				// fuses the scaling into the loop that produces the
				// dictionary, so it is charged once, not per entry
				out.shape = y.shape
				out.cost = sum + costScalarOp
			default:
				out.cost = sum + costScalarOp
				out.value = x.value * y.value
			}
		case sdql.ADD, sdql.SUB:
			if len(x.shape) > 0 || len(y.shape) > 0 {
				out.shape = x.shape
				if y.shape.total() > x.shape.total() {
					out.shape = y.shape
				}
				out.cost = sum + costInsert*(x.shape.total()+y.shape.total())
			} else {
				out.cost = sum + costScalarOp
				if e.Op == sdql.ADD {
					out.value = x.value + y.value
				} else {
					out.value = x.value - y.value
				}
			}
		case sdql.QUO:
			out.shape = x.shape
			out.cost = sum + costScalarOp*x.shape.total()
		default:
			out.cost = sum + costScalarOp
		}
		return out
	case *sdql.UnaryExpr:
		out.shape = kids[0].shape
		out.cost = sum + costScalarOp*kids[0].shape.total()
		return out
	case *sdql.CallExpr:
		out.cost = sum + costScalarOp
		return out
	case *sdql.UniqueExpr:
		out.cost = sum
		out.value = kids[0].value
		return out
	case *sdql.OneHotExpr:
		sh := kids[0].shape
		out.shape = append(append(shape{}, sh...), ones(len(sh))...)
		out.cost = sum + costInsert*sh.total()
		return out
	}
	out.cost += sum
	return out
}

func ones(n int) shape {
	s := make(shape, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// mergeFactor is the fraction of a sum's body entries expected to survive
// merging: 1 when the body is a singleton keyed by the sum's own key (or
// a unique key), else mergeDiscount.
func mergeFactor(s *sdql.SumExpr) float64 {
	if d, ok := s.Body.(*sdql.DictExpr); ok && len(d.Entries) == 1 {
		switch k := d.Entries[0].Key.(type) {
		case *sdql.UniqueExpr:
			return 1
		case *sdql.Ident:
			if k.Name == s.Key.Name {
				return 1
			}
		}
	}
	return mergeDiscount
}

func isArrayType(t sdql.Type) bool {
	d, ok := t.(*sdql.DictType)
	return ok && d.Key == sdql.DenseIntType
}

// costModel estimates the cost of programs over inputs of known sizes.
type costModel struct {
	stats  Stats
	inputs map[string]sdql.Type
	shapes map[string]shape // shapes of bound names (binders), filled while walking
}

func newCostModel(stats Stats, inputs map[string]sdql.Type) *costModel {
	return &costModel{stats: stats, inputs: inputs, shapes: map[string]shape{}}
}

func (m *costModel) nameShape(name string, t sdql.Type) shape {
	if s, ok := m.shapes[name]; ok {
		return s
	}
	depth := 0
	for d, ok := t.(*sdql.DictType); ok; d, ok = d.Val.(*sdql.DictType) {
		depth++
	}
	if st, ok := m.stats[name]; ok && depth > 0 {
		sh := make(shape, depth)
		for i := range sh {
			if i < len(st) {
				sh[i] = st[i]
			} else {
				sh[i] = 1
			}
		}
		return sh
	}
	sh := make(shape, depth)
	for i := range sh {
		sh[i] = DefaultFanout
	}
	return sh
}

// Cost estimates the cost of running prog over inputs with the given types
// and sizes: a sum costs its source's estimated size times its body, a
// hash-map lookup costs more than an array read, and building dictionaries
// is charged per entry.
func Cost(prog sdql.Expr, inputs map[string]sdql.Type, stats Stats) float64 {
	info, _ := sdql.Check(prog, &sdql.CheckConfig{Inputs: inputs})
	var types map[sdql.Expr]sdql.Type
	if info != nil {
		types = info.Types
	}
	m := newCostModel(stats, inputs)
	return m.tree(prog, types).cost
}

// tree computes the cost of a tree, recording binder shapes on the way.
func (m *costModel) tree(e sdql.Expr, types map[sdql.Expr]sdql.Type) nodeInfo {
	kids := sdql.Children(e)
	infos := make([]nodeInfo, len(kids))
	switch x := e.(type) {
	case *sdql.SumExpr:
		infos[0] = m.tree(x.Src, types)
		m.shapes[x.Key.Name] = nil
		m.shapes[x.Val.Name] = infos[0].shape.inner()
		infos[1] = m.tree(x.Body, types)
	case *sdql.LetExpr:
		for i := range x.Values {
			infos[i] = m.tree(x.Values[i], types)
			m.shapes[x.Names[i].Name] = infos[i].shape
		}
		infos[len(infos)-1] = m.tree(x.Body, types)
	default:
		for i, k := range kids {
			infos[i] = m.tree(k, types)
		}
	}
	return costOf(e, types[e], infos, m)
}
