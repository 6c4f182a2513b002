// The helper functions of the general Go code generator (GoValue): the
// interpreter's operations on dictionaries (sdql.Add, sdql.Mul, ...) for
// the map types a kernel uses, generated into its file on first use and
// named after the kernel, the operation and the types' sigs.

package legacyexec

import "fmt"

// helper returns the name of the kernel's helper fn+name, generating its
// source with src on first use.
func (g *gvGen) helper(name string, src func(name string) string) string {
	full := g.fn + name
	if _, ok := g.helpers[full]; !ok {
		g.helpers[full] = "" // taken while src runs
		g.helpers[full] = src(full)
	}
	return full
}

// mapLoop is a helper over the entries of a map or slice: it allocates out
// of type t with room for n entries, runs body for each k, v of over, and
// returns out.
func mapLoop(doc, sig, t, n, over, body string) string {
	return fmt.Sprintf("// %s\nfunc %s %s {\n\tout := make(%s, %s)\n\tfor k, v := range %s {\n\t\t%s\n\t}\n\treturn out\n}\n",
		doc, sig, t, t, n, over, body)
}

// helperAdd: a + b of two maps of representation r (sdql.Add).
func (g *gvGen) helperAdd(r *gvRep) string {
	return g.helper("Add"+r.sig(), func(name string) string {
		t := r.goType()
		merge := "out[k] += v"
		switch {
		case r.val.kind == gvMap:
			merge = fmt.Sprintf("if old, ok := out[k]; ok {\n\t\t\tout[k] = %s(old, v)\n\t\t} else {\n\t\t\tout[k] = v\n\t\t}", g.helperAdd(r.val))
		case r.val.base == "bool":
			merge = "out[k] = out[k] || v"
		}
		return fmt.Sprintf("// %s returns a + b: the keys of both, the values of common keys added.\n"+
			"func %s(a, b %s) %s {\n\tout := make(%s, len(a)+len(b))\n\tfor k, v := range a {\n\t\tout[k] = v\n\t}\n"+
			"\tfor k, v := range b {\n\t\t%s\n\t}\n\treturn out\n}\n", name, name, t, t, t, merge)
	})
}

// helperNeg: -a of a map of numbers.
func (g *gvGen) helperNeg(r *gvRep) string {
	return g.helper("Neg"+r.sig(), func(name string) string {
		elem := "-v"
		if r.val.kind == gvMap {
			elem = g.helperNeg(r.val) + "(v)"
		}
		return mapLoop(name+" returns -a.", name+"(a "+r.goType()+")", r.goType(), "len(a)", "a", "out[k] = "+elem)
	})
}

// scalarProduct is the Go expression of x * y for scalars of
// representations a and b (sdql.Mul).
func scalarProduct(x string, a *gvRep, y string, b *gvRep) string {
	if a.base == "bool" {
		return x + " && " + y
	}
	if a.base != b.base {
		if a.base == "int" {
			x = "float64(" + x + ")"
		} else {
			y = "float64(" + y + ")"
		}
	}
	return x + " * " + y
}

// helperMul: a * b where a or b is a map (sdql.Mul): a number scales a
// map, and a map times anything is {k -> v * b}.
func (g *gvGen) helperMul(a, b *gvRep) string {
	return g.helper("Mul"+a.sig()+b.sig(), func(name string) string {
		m := gvMul(a, b)
		sig := fmt.Sprintf("%s(a %s, b %s)", name, a.goType(), b.goType())
		if a.kind == gvMap {
			var elem string
			if a.val.kind == gvScalar && b.kind == gvScalar {
				elem = scalarProduct("v", a.val, "b", b)
			} else {
				elem = g.helperMul(a.val, b) + "(v, b)"
			}
			return mapLoop(name+" returns a * b: {k -> a(k) * b}.", sig, m.goType(), "len(a)", "a", "out[k] = "+elem)
		}
		var elem string
		if b.val.kind == gvScalar {
			elem = scalarProduct("a", a, "v", b.val)
		} else {
			elem = g.helperMul(a, b.val) + "(a, v)"
		}
		return mapLoop(name+" returns a * b: {k -> a * b(k)}.", sig, m.goType(), "len(b)", "b", "out[k] = "+elem)
	})
}

// helperDiv: a / d of a map of numbers (the values become reals).
func (g *gvGen) helperDiv(r *gvRep) string {
	return g.helper("Div"+r.sig(), func(name string) string {
		elem := "v / d"
		switch {
		case r.val.kind == gvMap:
			elem = g.helperDiv(r.val) + "(v, d)"
		case r.val.base == "int":
			elem = "float64(v) / d"
		}
		return mapLoop(name+" returns a / d.", name+"(a "+r.goType()+", d float64)", gvReals(r).goType(), "len(a)", "a", "out[k] = "+elem)
	})
}

// helperConv: a map of representation from as one of representation to
// (ints become float64s).
func (g *gvGen) helperConv(from, to *gvRep) string {
	return g.helper("Conv"+from.sig()+"To"+to.sig(), func(name string) string {
		elem := "v"
		switch {
		case from.val.kind == gvMap:
			if !from.val.same(to.val) {
				elem = g.helperConv(from.val, to.val) + "(v)"
			}
		case !from.val.same(to.val):
			elem = "float64(v)"
		}
		return mapLoop(name+" returns a copy of a as a "+to.goType()+".", name+"(a "+from.goType()+")", to.goType(), "len(a)", "a", "out[k] = "+elem)
	})
}

// helperMapOf: the map of positions lo..hi-1 of an array.
func (g *gvGen) helperMapOf(base string) string {
	r := gvSeqOf(base).elem()
	return g.helper("MapOf"+r.sig(), func(name string) string {
		t := "map[int]" + base
		return fmt.Sprintf("// %s returns the map {p -> a[p]} of the positions p in lo..hi-1.\n"+
			"func %s(a []%s, lo, hi int) %s {\n\tout := make(%s, max(hi-lo, 0))\n\tfor p := lo; p < hi; p++ {\n\t\tout[p] = a[p]\n\t}\n\treturn out\n}\n",
			name, name, base, t, t)
	})
}

// helperMapOfRange: the map of a range.
func (g *gvGen) helperMapOfRange() string {
	return g.helper("MapOfRange", func(name string) string {
		return fmt.Sprintf("// %s returns the map {k -> k} of the range lo..hi-1.\n"+
			"func %s(lo, hi int) map[int]int {\n\tout := make(map[int]int, max(hi-lo, 0))\n\tfor k := lo; k < hi; k++ {\n\t\tout[k] = k\n\t}\n\treturn out\n}\n",
			name, name)
	})
}

// helperAddInto: x added into the accumulator acc in place, copying the
// maps it inserts (acc owns its maps; x's may be shared).
func (g *gvGen) helperAddInto(r *gvRep) string {
	return g.helper("AddInto"+r.sig(), func(name string) string {
		body := "acc[k] += v"
		switch {
		case r.val.kind == gvMap:
			body = fmt.Sprintf("row, ok := acc[k]\n\t\tif !ok {\n\t\t\trow = %s{}\n\t\t\tacc[k] = row\n\t\t}\n\t\t%s(row, v)",
				r.val.goType(), g.helperAddInto(r.val))
		case r.val.base == "bool":
			body = "acc[k] = acc[k] || v"
		}
		return fmt.Sprintf("// %s adds x into acc in place.\nfunc %s(acc, x %s) {\n\tfor k, v := range x {\n\t\t%s\n\t}\n}\n",
			name, name, r.goType(), body)
	})
}

// helperAt: an array's value at k, zero off its positions.
func (g *gvGen) helperAt(base string) string {
	r := gvSeqOf(base).elem()
	return g.helper("At"+r.sig(), func(name string) string {
		return fmt.Sprintf("// %s returns a[k], or zero when k is not a position of a.\n"+
			"func %s(a []%s, k int) %s {\n\tif 0 <= k && k < len(a) {\n\t\treturn a[k]\n\t}\n\treturn 0\n}\n",
			name, name, base, base)
	})
}

// helperInRange: a range's value at k, zero off it.
func (g *gvGen) helperInRange() string {
	return g.helper("InRange", func(name string) string {
		return fmt.Sprintf("// %s returns the value of the range lo..hi-1 at k: k, or zero off it.\n"+
			"func %s(lo, hi, k int) int {\n\tif lo <= k && k < hi {\n\t\treturn k\n\t}\n\treturn 0\n}\n", name, name)
	})
}

// helperKey: a real used as a key, which must be an integer.
func (g *gvGen) helperKey() string {
	return g.helper("Key", func(name string) string {
		return fmt.Sprintf("// %s returns the real x as a key; it panics when x is not an integer.\n"+
			"func %s(x float64) int {\n\tif x != math.Trunc(x) {\n\t\tpanic(\"key is not an integer\")\n\t}\n\treturn int(x)\n}\n", name, name)
	})
}

// helperSigmoid: the operation sigmoid.
func (g *gvGen) helperSigmoid() string {
	return g.helper("Sigmoid", func(name string) string {
		return fmt.Sprintf("// %s returns 1 / (1 + e^-x).\nfunc %s(x float64) float64 {\n\treturn 1 / (1 + math.Exp(-x))\n}\n", name, name)
	})
}

// helperSoftplus: the operation softplus, as sdql.Softplus computes it.
func (g *gvGen) helperSoftplus() string {
	return g.helper("Softplus", func(name string) string {
		return fmt.Sprintf("// %s returns log(1 + e^x) without overflow.\nfunc %s(x float64) float64 {\n\treturn math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))\n}\n", name, name)
	})
}

// helperSign: the operation sign.
func (g *gvGen) helperSign() string {
	return g.helper("Sign", func(name string) string {
		return fmt.Sprintf("// %s returns the sign of x: 1, -1 or 0.\n"+
			"func %s(x float64) float64 {\n\tswitch {\n\tcase x > 0:\n\t\treturn 1\n\tcase x < 0:\n\t\treturn -1\n\t}\n\treturn 0\n}\n", name, name)
	})
}
