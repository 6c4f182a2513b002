package pipeline

import (
	"fmt"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// Row blocks
//
// A block of a partitioned input holds rows lo..hi-1 of it at their own
// coordinates (the tensor keeps the whole input's shape), and must be, as
// a dictionary, exactly those rows of the input: the input's keys in that
// range and no others, for sum(<i, r> in A) to visit each of the input's
// rows in exactly one block. How a format stores rows decides what that
// takes:
//
//   - Formats that store a row only where it has entries (COO, CSC, DCSR,
//     CSF, the sparse vector): the block's entries, in the input's own
//     format.
//   - CSR stores every row, empty ones too ({i -> {}}): its block would
//     store every row of the whole matrix, so it is a DCSR that stores
//     each of rows lo..hi-1, empty ones too.
//   - Dense formats store every position ({i -> 0} where nothing was
//     written): a block is the CSF (a sparse vector for order 1) that
//     stores every position of its rows, zeros too.
//
// The kernel is compiled for the blocks' format. The block's entries are
// summed in the table's row order, as a whole-table read sums them.

// rowStorage is how a format stores rows.
type rowStorage int

const (
	entriesOnly   rowStorage = iota // a row only where it has entries
	everyRow                        // every row, empty ones too
	everyPosition                   // every position
)

// blockFormat returns the format a table's row blocks are stored in, for
// its format f and order, and how f stores rows.
func blockFormat(f formats.Format, order int) (formats.Format, rowStorage, error) {
	lay, err := f.Layout(order)
	if err != nil {
		return f, 0, err
	}
	if lay.AllDense() {
		return formats.CSF, everyPosition, nil
	}
	if _, dense := lay.Levels[0].(formats.DenseLevel); dense && lay.ModeOrder[0] == 0 {
		if order != 2 {
			return f, 0, fmt.Errorf("format %s stores every row of a tensor of order %d: its rows cannot be split into blocks (bind it :csf)", f, order)
		}
		return formats.DCSR, everyRow, nil
	}
	return f, entriesOnly, nil
}

// blockTensor builds a block of rows lo..hi-1 of a table from its
// entries' chunks (see Row blocks).
func blockTensor(st *datasets.SplitTable, chunks []*datasets.Chunk, lo, hi int) (*datasets.TableTensor, error) {
	f, how, err := blockFormat(st.Format(), st.Order())
	if err != nil {
		return nil, err
	}
	tt, err := st.TensorAs(chunks, f)
	if err != nil || tt.Tensor == nil {
		return tt, err
	}
	t := tt.Tensor
	hi = min(hi, t.Shape[0])
	lo = min(lo, hi)
	switch how {
	case everyRow:
		tt.Tensor, err = withEveryRow(t, lo, hi)
	case everyPosition:
		tt.Tensor, err = withEveryPosition(t, lo, hi)
	}
	return tt, err
}

// standIn is an empty block of a table in its blocks' format, for
// preparing the program before any block is read.
func standIn(st *datasets.SplitTable, shape []int) (any, error) {
	if st.Order() == 0 {
		return 0.0, nil
	}
	f, _, err := blockFormat(st.Format(), st.Order())
	if err != nil {
		return nil, err
	}
	return formats.FromSortedCoords(shape, make([][]int, len(shape)), nil, f)
}

// withEveryRow returns a DCSR matrix that stores each of rows lo..hi-1 (of
// which t stores those with entries), empty ones too.
func withEveryRow(t *formats.Tensor, lo, hi int) (*formats.Tensor, error) {
	rows, pos := t.Idx[0], t.Pos[1]
	n := hi - lo
	out := &formats.Tensor{Format: formats.DCSR, Shape: t.Shape,
		Pos: [][]int{{0, n}, make([]int, n+1)}, Idx: [][]int{make([]int, n), t.Idx[1]}, Val: t.Val}
	k := 0 // the next stored row of t
	for r := range n {
		i := lo + r
		out.Idx[0][r] = i
		out.Pos[1][r+1] = out.Pos[1][r]
		if k < len(rows) && rows[k] == i {
			out.Pos[1][r+1] += pos[k+1] - pos[k]
			k++
		}
	}
	if k != len(rows) {
		return nil, fmt.Errorf("internal error: nablasd-beam: a block of rows %d..%d has entries in row %d", lo, hi-1, rows[k])
	}
	return out, nil
}

// withEveryPosition returns a CSF tensor storing every position of rows
// lo..hi-1 (t, a CSF, stores some of them), zeros where t has none.
func withEveryPosition(t *formats.Tensor, lo, hi int) (*formats.Tensor, error) {
	size := hi - lo
	for _, n := range t.Shape[1:] {
		if n > 0 && size > formats.MaxDenseSize/n {
			return nil, fmt.Errorf("a dense block of rows %d..%d of a %v tensor has more than %d positions: use a smaller --partition-rows", lo, hi-1, t.Shape, formats.MaxDenseSize)
		}
		size *= n
	}
	order := len(t.Shape)
	stored, vals, err := t.Coords()
	if err != nil {
		return nil, err
	}
	idx := make([][]int, order)
	for m := range idx {
		idx[m] = make([]int, 0, size)
	}
	val := make([]float64, 0, size)
	coord := make([]int, order)
	coord[0] = lo
	e := 0 // the next stored entry (row-major, as CSF stores them)
	for range size {
		v := 0.0
		if e < len(vals) && equalCoords(stored, e, coord) {
			v = vals[e]
			e++
		}
		for m := range idx {
			idx[m] = append(idx[m], coord[m])
		}
		val = append(val, v)
		for m := order - 1; m >= 0; m-- { // the next position, row-major
			coord[m]++
			if m == 0 || coord[m] < t.Shape[m] {
				break
			}
			coord[m] = 0
		}
	}
	if e != len(vals) {
		return nil, fmt.Errorf("internal error: nablasd-beam: a block of rows %d..%d has an entry outside them", lo, hi-1)
	}
	return formats.FromSortedCoords(t.Shape, idx, val, formats.CSF)
}

func equalCoords(idx [][]int, e int, coord []int) bool {
	for m := range idx {
		if idx[m][e] != coord[m] {
			return false
		}
	}
	return true
}

// PartitionStandIn opens a table to be split into row blocks and returns
// its stand-in: an empty block, in the blocks' format, for preparing the
// program before the job runs. It reports a table whose rows cannot be
// split.
func PartitionStandIn(t Table) (any, error) {
	st, err := t.open("")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if st.Order() == 0 {
		return nil, fmt.Errorf("--in %s: a table without coordinate columns has no rows to partition", t.Name)
	}
	v, err := standIn(st, t.Shape)
	if err != nil {
		return nil, fmt.Errorf("--in %s: %v", t.Name, err)
	}
	return v, nil
}
