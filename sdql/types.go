package sdql

import "strings"

// Type is a type of the language: a BasicType or a *DictType (and, inside
// the checker only, type variables).
type Type interface {
	String() string
	isType()
}

// BasicType is one of the scalar and key types.
type BasicType int

// The basic types. DenseInt is the key type of physical arrays.
const (
	RealType BasicType = iota
	IntType
	BoolType
	DenseIntType
)

func (BasicType) isType() {}

// String returns the type's keyword.
func (t BasicType) String() string {
	switch t {
	case RealType:
		return "real"
	case IntType:
		return "int"
	case BoolType:
		return "bool"
	case DenseIntType:
		return "dense_int"
	}
	return "?"
}

// DictType is {Key -> Val}.
type DictType struct {
	Key, Val Type
}

func (*DictType) isType() {}

// String prints {K -> V}.
func (t *DictType) String() string {
	var b strings.Builder
	b.WriteString("{")
	b.WriteString(t.Key.String())
	b.WriteString(" -> ")
	b.WriteString(t.Val.String())
	b.WriteString("}")
	return b.String()
}

// Tensor returns the type tensor n: real for n = 0, {int -> tensor n-1}
// otherwise.
func Tensor(n int) Type {
	var t Type = RealType
	for i := 0; i < n; i++ {
		t = &DictType{Key: IntType, Val: t}
	}
	return t
}

// Order returns n when t is tensor n over reals (dictionary nesting depth),
// and -1 when t is not a real tensor.
func Order(t Type) int {
	n := 0
	for {
		switch tt := t.(type) {
		case BasicType:
			if tt == RealType {
				return n
			}
			return -1
		case *DictType:
			n++
			t = tt.Val
		default:
			return -1
		}
	}
}

// TypesEqual reports whether a and b are the same type, where int and
// dense_int keys count as the same.
func TypesEqual(a, b Type) bool {
	a, b = key(a), key(b)
	switch a := a.(type) {
	case BasicType:
		bb, ok := b.(BasicType)
		return ok && a == bb
	case *DictType:
		bb, ok := b.(*DictType)
		return ok && TypesEqual(a.Key, bb.Key) && TypesEqual(a.Val, bb.Val)
	}
	return false
}

func key(t Type) Type {
	if t == DenseIntType {
		return IntType
	}
	return t
}

// Outer returns a ⊗ b, the type of a * b (Fig. 4): real ⊗ D = D,
// {I -> D1} ⊗ D2 = {I -> D1 ⊗ D2}; int and bool multiply with themselves.
func Outer(a, b Type) Type {
	if d, ok := a.(*DictType); ok {
		return &DictType{Key: d.Key, Val: Outer(d.Val, b)}
	}
	return b
}
