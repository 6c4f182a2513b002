package sdql

// Add is semi-ring addition: numbers add (int + real is real), bools or,
// dictionaries merge their keys and add the values of common keys.
func Add(a, b Value) Value {
	switch x := a.(type) {
	case nil:
		return b
	case Int:
		switch y := b.(type) {
		case Int:
			return x + y
		case Real:
			return Real(x) + y
		case nil:
			return x
		}
	case Real:
		switch y := b.(type) {
		case Int:
			return x + Real(y)
		case Real:
			return x + y
		case nil:
			return x
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			return x || y
		}
		if b == nil {
			return x
		}
	}
	if b == nil {
		return a
	}
	d := NewDict()
	Entries(a, func(k int, v Value) bool {
		d.Set(k, v)
		return true
	})
	ok := Entries(b, func(k int, v Value) bool {
		if old, found := d.Get(k); found {
			d.Set(k, Add(old, v))
		} else {
			d.Set(k, v)
		}
		return true
	})
	if !ok {
		panic("internal error: Add of a dictionary and a scalar")
	}
	return d
}

// Neg returns -v (element-wise for dictionaries).
func Neg(v Value) Value {
	switch x := v.(type) {
	case Int:
		return -x
	case Real:
		return -x
	}
	return Scale(v, -1, nil)
}

// Scale multiplies every real or int of v by s; f, when given, is applied to
// reals instead (used for division).
func Scale(v Value, s float64, f func(float64) float64) Value {
	switch x := v.(type) {
	case Real:
		if f != nil {
			return Real(f(float64(x)))
		}
		return Real(float64(x) * s)
	case Int:
		if f != nil {
			return Real(f(float64(x)))
		}
		if s == float64(int(s)) {
			return x * Int(s)
		}
		return Real(float64(x) * s)
	}
	d := NewDict()
	Entries(v, func(k int, x Value) bool {
		d.Set(k, Scale(x, s, f))
		return true
	})
	return d
}

// Mul is the semi-ring product ⊗ of Fig. 4: numbers multiply, bools and,
// a scalar scales a dictionary, and a dictionary times anything is the outer
// product {k -> v * b}.
func Mul(a, b Value) Value {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			return x * y
		case Real:
			return Real(x) * y
		}
		return mulScalar(float64(x), b, true)
	case Real:
		switch y := b.(type) {
		case Int:
			return x * Real(y)
		case Real:
			return x * y
		}
		return mulScalar(float64(x), b, false)
	case Bool:
		if y, ok := b.(Bool); ok {
			return x && y
		}
	}
	d := NewDict()
	Entries(a, func(k int, v Value) bool {
		d.Set(k, Mul(v, b))
		return true
	})
	return d
}

func mulScalar(s float64, b Value, intScalar bool) Value {
	d := NewDict()
	Entries(b, func(k int, v Value) bool {
		if intScalar {
			d.Set(k, Mul(Int(int(s)), v))
		} else {
			d.Set(k, Mul(Real(s), v))
		}
		return true
	})
	return d
}

// OneHot builds onehot[tensor n] x of Fig. 7: the sparse identity over x's
// stored positions, a tensor of order 2n with 1 where the first n indices
// equal the last n. For n = 0 it is 1.
func OneHot(x Value, n int) Value {
	if n <= 0 {
		return Real(1)
	}
	out := NewDict()
	var walk func(v Value, idx []int)
	walk = func(v Value, idx []int) {
		if len(idx) == n {
			// {i1 -> ... {in -> {i1 -> ... {in -> 1}}}}
			var inner Value = Real(1)
			for i := n - 1; i >= 0; i-- {
				d := NewDict()
				d.Set(idx[i], inner)
				inner = d
			}
			cur := out
			for i := 0; i < n-1; i++ {
				next, ok := cur.Get(idx[i])
				if !ok {
					next = NewDict()
					cur.Set(idx[i], next)
				}
				cur = next.(*Dict)
			}
			cur.Set(idx[n-1], inner)
			return
		}
		Entries(v, func(k int, c Value) bool {
			walk(c, append(idx, k))
			return true
		})
	}
	walk(x, nil)
	return out
}
