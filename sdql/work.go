package sdql

// Work counts what the reference interpreter did, by kind, so that the work
// of two programs can be compared without a clock (a gradient's against
// its function's, an optimized program's against the original's). The
// counts depend only on the program and its inputs, never on the machine.
type Work struct {
	// Arith counts scalar arithmetic: +, -, *, /, negation, unary
	// operations (exp, tanh, ...) and comparisons. An operation on
	// dictionaries counts once per scalar it combines (adding two vectors
	// of n entries is n additions), and so does the addition that folds a
	// sum's body into its accumulator.
	Arith int64
	// Writes counts dictionary entries written: each entry of a dictionary
	// literal, each entry a dictionary-valued operation or a sum's
	// accumulation creates or updates.
	Writes int64
	// Lookups counts dictionary lookups e(k).
	Lookups int64
	// Iters counts the iterations of sums.
	Iters int64
}

// Total is the sum of the counts: the interpreter's measure of work.
func (w Work) Total() int64 { return w.Arith + w.Writes + w.Lookups + w.Iters }

// Add returns the counts of w and v added.
func (w Work) Add(v Work) Work {
	return Work{w.Arith + v.Arith, w.Writes + v.Writes, w.Lookups + v.Lookups, w.Iters + v.Iters}
}

// size returns the number of scalars and of dictionary entries stored in
// v at every level (a scalar is one scalar and no entry).
func size(v Value) (scalars, entries int64) {
	switch v.(type) {
	case Real, Int, Bool, nil:
		return 1, 0
	}
	Entries(v, func(_ int, x Value) bool {
		s, e := size(x)
		scalars += s
		entries += e + 1
		return true
	})
	return scalars, entries
}

// count adds the work of an element-wise operation that read the operands
// xs and produced out: one arithmetic operation per scalar of out (at
// least one), and one write per dictionary entry of out.
func (in *Interp) count(out Value) {
	s, e := size(out)
	in.Work.Arith += max(s, 1)
	in.Work.Writes += e
	in.Ops += max(s, 1) + e
}
