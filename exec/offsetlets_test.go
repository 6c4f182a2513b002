package exec

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestOffsetLets runs loops whose loads and inserts are keyed by a let of
// the loop variable plus a constant (t := i + 1; x(t); insert at t), as
// the lowering's common subexpressions spell them: the closures slice
// the array and the values at t over a batch of consecutive positions
// and drop t's column, so a batch whose positions are not consecutive
// (an inner loop's rows, flattened) computes the keys from the loop's
// column, and an insert into a level that is not a dense level 0 (a
// row of an appended matrix, a hashed level) fills that column first. Each program runs
// over more lanes than a batch, against the interpreter.
func TestOffsetLets(t *testing.T) {
	n := 1300
	x := make(sdql.RealArray, n)
	for i := range x {
		x[i] = float64(i%7) - 2.5
	}
	in := map[string]sdql.Value{"x_val": x, "x_len": sdql.Int(n)}
	for _, src := range []string{
		// one loop: every batch consecutive
		"sum(<i, _> in (0:x_len - 1)) { i + 1 -> x_val(i + 1) * x_val(i) }",
		// three rows flattened: batches across two rows' positions
		"sum(<r, _> in (0:3)) sum(<i, _> in (0:x_len - 1)) { i + 1 -> x_val(i + 1) * x_val(i) }",
		// the same below a row of an appended matrix
		"sum(<r, _> in (0:3)) sum(<i, _> in (0:x_len - 1)) { r -> { i + 1 -> x_val(i + 1) * x_val(i) } }",
		// a subtraction at i + 2, the key and the load one let apart
		"sum(<r, _> in (0:2)) sum(<i, _> in (0:x_len - 2)) { i + 2 -> -x_val(i + 2) }",
	} {
		for _, c := range []struct{ lets, hash bool }{{true, false}, {true, true}, {false, true}} {
			hash := c.hash
			t.Run(fmt.Sprintf("%s/lets=%v/hash=%v", src, c.lets, hash), func(t *testing.T) {
				prog, info, p := lowerFor(t, src, in)
				if c.lets && letOffsets(p) == 0 {
					t.Fatalf("no index v + c to put in a let:\n%s", lower.Print(p))
				}
				if hash {
					// the result's keys hashed: the insert and store
					// as compiled alone
					p.ResultTensor.Levels[0].Storage = lower.Hash
				}
				runLowered(t, prog, info, p, in, src)
			})
		}
	}
}

// letOffsets rewrites every load and insert key v + c (v a loop's
// variable, c a constant) in a loop's body into a let t := v + c at the
// top of the body and a read of t, and returns how many lets it made.
func letOffsets(p *lower.Program) int {
	made := 0
	lower.WalkStmts(p.Body, func(s lower.Stmt) {
		f, ok := s.(*lower.For)
		if !ok {
			return
		}
		body, ok := f.Body.(*lower.Block)
		if !ok {
			return
		}
		lets := map[int]*lower.Var{}
		var order []int
		at := func(e lower.Expr) (lower.Expr, bool) {
			d, ok := lower.Offset(e, f.V)
			if !ok || d == 0 {
				return e, false
			}
			v := lets[d]
			if v == nil {
				v = p.NewVar(fmt.Sprintf("t%d_", d), lower.Int)
				lets[d] = v
				order = append(order, d)
			}
			return &lower.Ref{V: v}, true
		}
		for _, s := range body.List {
			lower.WalkStmtExprs(s, func(e lower.Expr) {
				lower.WalkExpr(e, func(x lower.Expr) {
					if ld, ok := x.(*lower.Load); ok {
						ld.Index, _ = at(ld.Index)
					}
				})
			})
			if ins, ok := s.(*lower.Insert); ok {
				ins.Key, _ = at(ins.Key)
			}
		}
		var head []lower.Stmt
		for _, d := range order {
			head = append(head, &lower.Let{V: lets[d], X: &lower.Binary{Op: lower.Add, X: &lower.Ref{V: f.V}, Y: &lower.Const{K: lower.Int, I: d}}})
			made++
		}
		body.List = append(head, body.List...)
	})
	return made
}

// TestRowBatches runs loops over the rows of a matrix whose loads and
// stores are at the inner loop's variable plus an offset of the row (x(c +
// j - 1), c := 740·i; out(i - 1)(j + 1)): a batch of one row's consecutive
// positions (vctx.one) slices the array and the row, and a batch of
// several rows' positions, consecutive or not, gathers and scatters at
// the indices computed from the loop's columns. Long rows give batches of
// one row and batches across two; short rows laid end to end (j from 5·i
// to 5·i + 5) give consecutive batches of many rows. Against the
// interpreter.
func TestRowBatches(t *testing.T) {
	x := make(sdql.RealArray, 3000)
	for i := range x {
		x[i] = float64(i%7) - 2.5 + float64(i)/4096
	}
	in := map[string]sdql.Value{"x_val": x, "x_len": sdql.Int(len(x))}
	for _, src := range []string{
		"sum(<i, _> in (1:4)) sum(<j, _> in (1:700)) { i - 1 -> { j + 1 -> x_val(i * 740 + j - 1) - x_val((i - 1) * 740 + j + 1) } }",
		"sum(<i, _> in (1:9)) sum(<j, _> in (1:300)) { i - 1 -> { j - 1 -> x_val(i * 300 + j) * 2.0 } } + { i -> { j -> -x_val(i * 300 + j - 1) } }",
		"sum(<i, _> in (0:400)) sum(<j, _> in (i * 5:i * 5 + 5)) { j -> x_val(j + i) }",
	} {
		t.Run(src, func(t *testing.T) {
			prog, info, p := lowerFor(t, src, in)
			runLowered(t, prog, info, p, in, src)
		})
	}
}

// TestLetLocate runs the read of a dense vector's values defaulting to
// zero (x := 0.0; if q := locate(y, i); found { x = y.val[q] }), keyed by
// a loop's variable, over batches within y (x's column is then a slice of
// y's values), past its end and from a negative key (x's own column,
// filled, then the lanes found), in that order and the other, against
// the interpreter; y read again after is the same.
func TestLetLocate(t *testing.T) {
	x := make(sdql.RealArray, 3000)
	for i := range x {
		x[i] = float64(i%7) - 2.5 + float64(i)/4096
	}
	in := map[string]sdql.Value{"x_val": x, "x_len": sdql.Int(len(x))}
	for _, src := range []string{
		"let y = sum(<i, _> in (0:2000)) { i + 1 -> x_val(i) * 2.0 } in sum(<i, _> in (0:2500)) { i -> y(i) }",
		"let y = sum(<i, _> in (0:2000)) { i + 1 -> x_val(i) * 2.0 } in sum(<i, _> in (-600:2500)) { i + 600 -> y(i) }",
		// y read again, row after row: its values untouched by the
		// rows before
		"let y = sum(<i, _> in (0:2000)) { i + 1 -> x_val(i) * 2.0 } in sum(<r, _> in (0:3)) sum(<i, _> in (0:2500)) { i -> y(i) * r }",
	} {
		t.Run(src, func(t *testing.T) {
			prog, info, p := lowerFor(t, src, in)
			runLowered(t, prog, info, p, in, src)
		})
	}
}
