package sdql

import (
	"encoding/binary"
	"math"
	"strconv"
)

// terms is the analysis Hoist and Share share: the program's nodes in
// pre-order (a node shared by pointer is a node at each of its places),
// with, for each, the binders its free variables refer to, how it is
// evaluated, and its class. It takes time and space linear in the
// program's size times the number of variables a node refers to.
//
// Two nodes are in one class when they compute the same value: they are
// the same term up to the names of the variables they bind, and their free
// variables refer to the same binders. The first half is decided without
// comparing terms. Every binder is named by its height — one more than
// the highest binder in its scope — and its slot (a sum's key 0, its value
// 1), and every variable by its binder's name: alpha-equivalent terms then
// read the same, and since the binders in scope at any point all have
// different names, a name read in a term means one binder wherever the
// term is. A term's shape is interned from its children's shapes, so
// terms that read the same have one shape; a class is a shape with the
// set of binders its free variables refer to.
type terms struct {
	nodes  []Expr
	parent []int32
	// end is one past the last node of each node's subtree
	end []int32
	// edge says how a node is evaluated when its parent is
	edge []edgeKind
	// binder is a sum's or let's first binder, and an identifier's binder
	// (-1: an input). Binder ids are given in pre-order: the binders in
	// scope at a point have ids increasing inwards.
	binder []int32
	// maxFree is the innermost binder a node's free variables refer to
	// (-1: none)
	maxFree []int32
	class   []int32
	size    []int32
	// work marks a node that contains a loop, a dictionary or a call, or
	// reads a let whose value does; looks one that contains a lookup
	// (which may search a sparse dictionary), or reads a let whose value
	// does; unique one that contains unique(...). A let's name is the work
	// of its value: x - s with x the name of a sum does work, as the sum
	// written in place would.
	work, looks, unique []bool
	// freeSet is each node's set of free binders, interned
	freeSet []int32

	heights []int32 // of each binder
	slots   []int8  // of each binder: a sum's value 1, else 0
	// binderWork and binderLooks are work and looks of each let binder's
	// value
	binderWork, binderLooks []bool
	// names are every name the program binds or mentions
	names map[string]bool
}

// edgeKind says how a node is evaluated when its parent is.
type edgeKind int8

const (
	edgeAlways edgeKind = iota // whenever the parent is
	edgeLoop                   // once per iteration of the parent's loop (a sum's body)
	edgeCond                   // only on a condition (an if's branch, the right operand of && and ||)
)

// analyze builds the analysis of e.
func analyze(e Expr) *terms {
	t := &terms{names: map[string]bool{}}
	fs := &freeSets{ids: map[string]int32{}}
	t.visit(e, -1, edgeAlways, map[string][]int32{}, fs)
	t.classify()
	return t
}

// freeSets interns sets of binders.
type freeSets struct {
	ids map[string]int32
	buf []byte
}

func (fs *freeSets) intern(set []int32) int32 {
	fs.buf = fs.buf[:0]
	for _, b := range set {
		fs.buf = binary.AppendUvarint(fs.buf, uint64(b))
	}
	id, ok := fs.ids[string(fs.buf)]
	if !ok {
		id = int32(len(fs.ids))
		fs.ids[string(fs.buf)] = id
	}
	return id
}

// visit adds e's subtree and returns its free binders (sorted) and its
// height (of the highest binder in it; 0 for none). sc maps each name in
// scope to its binders, innermost last.
func (t *terms) visit(e Expr, parent int32, edge edgeKind, sc map[string][]int32, fs *freeSets) (free []int32, height int32) {
	i := int32(len(t.nodes))
	t.nodes = append(t.nodes, e)
	t.parent = append(t.parent, parent)
	t.end = append(t.end, 0)
	t.edge = append(t.edge, edge)
	t.binder = append(t.binder, -1)
	t.maxFree = append(t.maxFree, -1)
	t.work = append(t.work, false)
	t.looks = append(t.looks, false)
	t.unique = append(t.unique, false)
	t.freeSet = append(t.freeSet, 0)
	bind := func(name string, slot int8) int32 {
		id := int32(len(t.heights))
		t.heights = append(t.heights, 0)
		t.slots = append(t.slots, slot)
		t.binderWork = append(t.binderWork, false)
		t.binderLooks = append(t.binderLooks, false)
		t.names[name] = true
		if name != "_" {
			sc[name] = append(sc[name], id)
		}
		return id
	}
	unbind := func(name string) {
		if name != "_" {
			sc[name] = sc[name][:len(sc[name])-1]
		}
	}
	// sub visits the child k and notes what it contains
	sub := func(k Expr, edge edgeKind) ([]int32, int32) {
		c := int32(len(t.nodes))
		f, h := t.visit(k, i, edge, sc, fs)
		t.work[i] = t.work[i] || t.work[c]
		t.looks[i] = t.looks[i] || t.looks[c]
		t.unique[i] = t.unique[i] || t.unique[c]
		return f, h
	}
	switch x := e.(type) {
	case *Ident:
		t.names[x.Name] = true
		if ids := sc[x.Name]; len(ids) > 0 {
			b := ids[len(ids)-1]
			t.binder[i] = b
			free = []int32{b}
			t.work[i], t.looks[i] = t.binderWork[b], t.binderLooks[b]
		}
	case *SumExpr:
		fs0, h0 := sub(x.Src, edgeAlways)
		k, v := bind(x.Key.Name, 0), bind(x.Val.Name, 1)
		t.binder[i] = k
		fb, hb := sub(x.Body, edgeLoop)
		unbind(x.Val.Name)
		unbind(x.Key.Name)
		t.heights[k], t.heights[v] = hb+1, hb+1
		free = mergeFree(fs0, dropFree(fb, k, v))
		height = max(h0, hb+1)
		t.work[i] = true
	case *LetExpr:
		ids := make([]int32, len(x.Names))
		hs := make([]int32, len(x.Values))
		frees := make([][]int32, len(x.Values))
		for j, v := range x.Values {
			c := int32(len(t.nodes))
			frees[j], hs[j] = sub(v, edgeAlways)
			ids[j] = bind(x.Names[j].Name, 0)
			t.binderWork[ids[j]], t.binderLooks[ids[j]] = t.work[c], t.looks[c]
		}
		t.binder[i] = ids[0]
		fb, hb := sub(x.Body, edgeAlways)
		for j := len(x.Names) - 1; j >= 0; j-- {
			unbind(x.Names[j].Name)
		}
		// a name's scope is the later values and the body
		acc := hb
		for j := len(x.Names) - 1; j >= 0; j-- {
			t.heights[ids[j]] = acc + 1
			acc = max(acc+1, hs[j])
		}
		height = acc
		free = dropFree(fb, ids...)
		for j := len(frees) - 1; j >= 0; j-- {
			free = mergeFree(dropFree(frees[j], ids[:j]...), free)
		}
	default:
		for n, k := range Children(e) {
			f, h := sub(k, childEdge(e, n))
			free = mergeFree(free, f)
			height = max(height, h)
		}
		switch x := e.(type) {
		case *DictExpr:
			t.work[i] = t.work[i] || len(x.Entries) > 0
		case *CallExpr, *OneHotExpr:
			t.work[i] = true
		case *LookupExpr:
			t.looks[i] = true
		case *UniqueExpr:
			t.unique[i] = true
		}
	}
	t.end[i] = int32(len(t.nodes))
	if len(free) > 0 {
		t.maxFree[i] = free[len(free)-1]
	}
	t.freeSet[i] = fs.intern(free)
	return free, height
}

// childEdge is how e's n-th child (Children order) is evaluated when e
// is: an if's branches and the right operand of && and || only on a
// condition. (A sum's body is handled by visit.)
func childEdge(e Expr, n int) edgeKind {
	switch x := e.(type) {
	case *IfExpr:
		if n > 0 {
			return edgeCond
		}
	case *BinaryExpr:
		if n == 1 && (x.Op == LAND || x.Op == LOR) {
			return edgeCond
		}
	}
	return edgeAlways
}

// mergeFree returns the sorted union of two sorted sets.
func mergeFree(a, b []int32) []int32 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case a[0] > b[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// dropFree returns set without ids.
func dropFree(set []int32, ids ...int32) []int32 {
	keep := 0
	for _, b := range set {
		drop := false
		for _, id := range ids {
			drop = drop || b == id
		}
		if !drop {
			keep++
		}
	}
	if keep == len(set) {
		return set
	}
	out := make([]int32, 0, keep)
	for _, b := range set {
		drop := false
		for _, id := range ids {
			drop = drop || b == id
		}
		if !drop {
			out = append(out, b)
		}
	}
	return out
}

// classify gives every node its size, shape and class, children first
// (a child's index is past its parent's).
func (t *terms) classify() {
	n := len(t.nodes)
	t.size = make([]int32, n)
	t.class = make([]int32, n)
	shape := make([]int32, n)
	shapes := map[string]int32{}
	classes := map[[2]int32]int32{}
	var key []byte
	for i := n - 1; i >= 0; i-- {
		e := t.nodes[i]
		key = key[:0]
		key = append(key, nodeTag(e))
		t.size[i] = 1
		for c := int32(i) + 1; c < t.end[i]; c = t.end[c] {
			t.size[i] += t.size[c]
			key = binary.AppendUvarint(key, uint64(shape[c]))
		}
		key = append(key, '|')
		switch x := e.(type) {
		case *Ident:
			if b := t.binder[i]; b >= 0 {
				key = t.appendBinder(key, b)
			} else {
				key = append(key, x.Name...)
			}
		case *IntLit:
			key = strconv.AppendInt(key, int64(x.Value), 10)
		case *RealLit:
			key = binary.AppendUvarint(key, math.Float64bits(x.Value))
		case *BoolLit:
			key = strconv.AppendBool(key, x.Value)
		case *SumExpr:
			// the binders' names are their heights: the key's is enough
			key = t.appendBinder(key, t.binder[i])
		case *LetExpr:
			for j := range x.Names {
				key = t.appendBinder(key, t.binder[i]+int32(j))
			}
		case *UnaryExpr:
			key = append(key, x.Op.String()...)
		case *BinaryExpr:
			key = append(key, x.Op.String()...)
		case *CallExpr:
			key = append(key, x.Op...)
		case *ZeroExpr:
			key = append(key, x.T.String()...)
		case *OneHotExpr:
			key = append(key, x.T.String()...)
		}
		s, ok := shapes[string(key)]
		if !ok {
			s = int32(len(shapes))
			shapes[string(key)] = s
		}
		shape[i] = s
		ck := [2]int32{s, t.freeSet[i]}
		c, ok := classes[ck]
		if !ok {
			c = int32(len(classes))
			classes[ck] = c
		}
		t.class[i] = c
	}
}

// appendBinder appends binder b's name in shapes: its height and slot.
func (t *terms) appendBinder(key []byte, b int32) []byte {
	key = append(key, '#')
	key = binary.AppendUvarint(key, uint64(t.heights[b]))
	return append(key, byte('0'+t.slots[b]))
}

// nodeTag tells the kinds of node apart in shapes.
func nodeTag(e Expr) byte {
	switch e.(type) {
	case *Ident:
		return 'i'
	case *IntLit:
		return 'n'
	case *RealLit:
		return 'r'
	case *BoolLit:
		return 'b'
	case *SumExpr:
		return 's'
	case *DictExpr:
		return 'd'
	case *LookupExpr:
		return 'l'
	case *SliceExpr:
		return 'a'
	case *RangeExpr:
		return 'g'
	case *LetExpr:
		return 'e'
	case *IfExpr:
		return 'f'
	case *UnaryExpr:
		return 'u'
	case *BinaryExpr:
		return 'o'
	case *CallExpr:
		return 'c'
	case *UniqueExpr:
		return 'q'
	case *ZeroExpr:
		return 'z'
	case *OneHotExpr:
		return 'h'
	}
	panic("internal error: unknown expression")
}

// kids returns the indices of node i's children.
func (t *terms) kids(i int32) []int32 {
	var out []int32
	for c := i + 1; c < t.end[i]; c = t.end[c] {
		out = append(out, c)
	}
	return out
}

// bindable reports whether node i may be let-bound by Hoist and Share: not
// a variable, a literal or a zero (there is nothing to compute once), a
// truth value (a comparison, a connective), a view of an array (a
// sub-array or a range, which lowering reads where it is used, and cannot
// bind), nor a term with unique(...) (which speaks of the sum around it).
func (t *terms) bindable(i int32) bool {
	switch t.nodes[i].(type) {
	case *SliceExpr, *RangeExpr, *Ident, *IntLit, *RealLit, *BoolLit, *ZeroExpr:
		return false
	}
	return !t.unique[i] && !t.yieldsBool(i)
}

// yieldsBool reports whether node i's value is a truth value by its
// construct (a comparison, a connective, not, a literal).
func (t *terms) yieldsBool(i int32) bool {
	switch x := t.nodes[i].(type) {
	case *BoolLit:
		return true
	case *UnaryExpr:
		return x.Op == NOT
	case *BinaryExpr:
		switch x.Op {
		case EQ, NEQ, LT, LEQ, GT, GEQ, LAND, LOR:
			return true
		}
	}
	return false
}

// freshNames makes names a program does not use: base and a counter.
type freshNames struct {
	used map[string]bool
	next map[string]int
	// made are the names made
	made map[string]bool
}

func newFreshNames(used map[string]bool) *freshNames {
	return &freshNames{used: used, next: map[string]int{}, made: map[string]bool{}}
}

func (f *freshNames) fresh(base string) string {
	for {
		f.next[base]++
		n := base + strconv.Itoa(f.next[base])
		if !f.used[n] {
			f.used[n], f.made[n] = true, true
			return n
		}
	}
}
