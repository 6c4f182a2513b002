package sdql

import "fmt"

// tvar is a type variable of the checker. It is never visible outside the
// package: Check replaces every variable by its solution or a default.
type tvar struct {
	id      int
	ref     Type // the solution, once known
	numeric bool // must be int or real
	key     bool // must be int or dense_int
	lit     bool // only integer literals constrain it: defaults to int, else real
}

func (*tvar) isType() {}

func (v *tvar) String() string {
	if v.ref != nil {
		return v.ref.String()
	}
	return fmt.Sprintf("t%d", v.id)
}

// prune follows solved variables.
func prune(t Type) Type {
	for {
		v, ok := t.(*tvar)
		if !ok || v.ref == nil {
			return t
		}
		t = v.ref
	}
}

// zonk replaces solved variables inside t; unsolved ones stay.
func zonk(t Type) Type {
	t = prune(t)
	if d, ok := t.(*DictType); ok {
		return &DictType{Key: zonk(d.Key), Val: zonk(d.Val)}
	}
	return t
}

func occurs(v *tvar, t Type) bool {
	t = prune(t)
	switch t := t.(type) {
	case *tvar:
		return t == v
	case *DictType:
		return occurs(v, t.Key) || occurs(v, t.Val)
	}
	return false
}

// unify makes a and b equal, or reports why it cannot. int and dense_int
// unify (a dense key is an int key with a storage promise).
func unify(a, b Type) error {
	a, b = prune(a), prune(b)
	if a == b {
		return nil
	}
	if va, ok := a.(*tvar); ok {
		return bindVar(va, b)
	}
	if vb, ok := b.(*tvar); ok {
		return bindVar(vb, a)
	}
	switch a := a.(type) {
	case BasicType:
		if bb, ok := b.(BasicType); ok && key(a) == key(bb) {
			return nil
		}
	case *DictType:
		if bb, ok := b.(*DictType); ok {
			if err := unify(a.Key, bb.Key); err != nil {
				return err
			}
			return unify(a.Val, bb.Val)
		}
	}
	return fmt.Errorf("%s and %s", zonk(a), zonk(b))
}

func bindVar(v *tvar, t Type) error {
	if w, ok := t.(*tvar); ok {
		w.numeric = w.numeric || v.numeric
		w.key = w.key || v.key
		w.lit = w.lit && v.lit
		v.ref = w
		return nil
	}
	if occurs(v, t) {
		return fmt.Errorf("a recursive type")
	}
	switch t := t.(type) {
	case BasicType:
		if v.numeric && t != RealType && t != IntType && t != DenseIntType {
			return fmt.Errorf("a number and %s", t)
		}
		if v.key && t != IntType && t != DenseIntType {
			return fmt.Errorf("a key (int) and %s", t)
		}
	case *DictType:
		if v.numeric {
			return fmt.Errorf("a number and %s", zonk(t))
		}
		if v.key {
			return fmt.Errorf("a key (int) and %s", zonk(t))
		}
	}
	v.ref = t
	return nil
}
