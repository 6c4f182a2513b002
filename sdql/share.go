package sdql

import "sort"

// Share binds every repeated term once (common subexpression
// elimination): the places that compute the same value — the same term
// up to the names it binds, its free variables referring to the same
// binders (see terms) — read one let, bound just above the closest node
// that holds them all:
//
//	(r - sum(<k, u> in U(i)) u * W(j)(k)) * (r - sum(<k2, u2> in U(i)) u2 * W(j)(k2))
//
// becomes
//
//	let cse1 = r - sum(<k, u> in U(i)) u * W(j)(k) in cse1 * cse1
//
// Larger terms are shared first, so a repeated term inside a repeated
// term is counted once per copy that remains. A let never computes what
// the program might not have, unless it is total and cheap (arithmetic
// and lookups, as for Hoist): it is bound where at least one of the
// places it replaces is always evaluated (not only in a loop's body, an
// if's branch or the right operand of && or ||); places that no such
// point covers are shared in smaller groups, or not at all. The terms it
// binds do work: they contain a loop, a dictionary or a call, as Hoist's
// do, or a lookup, which may search a sparse dictionary at each place
// (repeated arithmetic is left to lowering's CommonSubexprs); a truth
// value, a view of an array and a term with unique(...) stay where they
// are. It takes
// time linear in the program's size, times the variables a term refers
// to and the depth of the places it binds, a round per level of terms
// that become the same once their parts are shared.
func Share(e Expr) Expr { return share(e, true) }

// ShareWork is Share that leaves repeated lookups (and the arithmetic on
// them) repeated: for a program the rules rewrite further, which see
// through a product, not a let, and for a physical program, where a lookup
// reads an array, a load that lowering reads where it is written (a bound
// row bound, A_pos(i), would hide the segment it starts from lowering).
func ShareWork(e Expr) Expr { return share(e, false) }

func share(e Expr, lookups bool) Expr {
	// a let whose value a round shares becomes a name for the shared let
	// and is substituted: terms that differed only by such names are then
	// the same, for another round
	for range 8 {
		out := shareOnce(e, lookups)
		if out == e {
			break
		}
		e = out
	}
	return e
}

// shareOnce is a round of Share: e itself when it has nothing to share.
func shareOnce(e Expr, lookups bool) Expr {
	t := analyze(e)
	s := &sharer{t: t, fresh: newFreshNames(t.names), removed: make([]bool, len(t.nodes)),
		name: map[int32]string{}, anchor: map[int32]int32{}, lets: map[int32][]sharedLet{}}
	byClass := map[int32][]int32{}
	for i := range t.nodes {
		i := int32(i)
		if (t.work[i] || lookups && t.looks[i]) && t.bindable(i) {
			byClass[t.class[i]] = append(byClass[t.class[i]], i)
		}
	}
	var repeated [][]int32
	for _, occ := range byClass {
		if len(occ) > 1 {
			repeated = append(repeated, occ)
		}
	}
	sort.Slice(repeated, func(a, b int) bool {
		x, y := repeated[a], repeated[b]
		if t.size[x[0]] != t.size[y[0]] {
			return t.size[x[0]] > t.size[y[0]]
		}
		return x[0] < y[0]
	})
	for _, occ := range repeated {
		var live []int32
		for _, o := range occ {
			if !s.removed[o] {
				live = append(live, o)
			}
		}
		s.group(live)
	}
	if len(s.name) == 0 {
		return e
	}
	// a let of Hoist's whose value is now shared is a name for the shared
	// let
	return flattenLets(inlineAliases(s.build(0), s.fresh.made))
}

// sharer shares the repeated terms of one analysis.
type sharer struct {
	t     *terms
	fresh *freshNames
	// removed marks the nodes of the copies a let replaces
	removed []bool
	// name is the let that replaces a place; anchor is where a shared
	// term's kept copy (its first place) now is: bound just above that
	// node, in lets
	name   map[int32]string
	anchor map[int32]int32
	lets   map[int32][]sharedLet
}

// sharedLet is a let bound just above a node: its name and the place of
// the copy it keeps.
type sharedLet struct {
	name string
	rep  int32
}

// A point of the program as it is being rebuilt: a node (>= 0), or the
// lets bound just above node n (-n-1). The parent of a node with lets
// above it is those lets; the parent of a kept copy (or of the lets above
// it) is the lets above its anchor; the parent of the lets above a node
// is the node's own parent.
func above(n int32) int32 { return -n - 1 }

// up returns p's parent point and whether p is evaluated only on a
// condition or in a loop when its parent is; ok is false at the root.
func (s *sharer) up(p int32) (parent int32, guarded, ok bool) {
	t := s.t
	n := p
	if p >= 0 {
		if len(s.lets[p]) > 0 {
			return above(p), false, true
		}
	} else {
		n = -p - 1
	}
	if a, kept := s.anchor[n]; kept {
		return above(a), false, true
	}
	return t.parent[n], t.edge[n] != edgeAlways, t.parent[n] >= 0
}

// group binds the places occ of one class (live, in program order) by
// one let where one of them is always evaluated, or else in groups under
// each child of the point that holds them all.
func (s *sharer) group(occ []int32) {
	if len(occ) < 2 {
		return
	}
	// the first place's path up to the root, and the guards on the way
	path := []int32{occ[0]}
	guards := []int{0}
	at := map[int32]int{occ[0]: 0}
	for p := occ[0]; ; {
		q, g, ok := s.up(p)
		if !ok {
			break
		}
		at[q] = len(path)
		path = append(path, q)
		guards = append(guards, guards[len(guards)-1]+b2i(g))
		p = q
	}
	// where each other place's path meets it: the highest meeting point
	// holds them all
	type meet struct {
		pos    int   // on path
		below  int32 // the point just under it on the place's own path
		guards int   // guards from the place to the meeting point
	}
	meets := make([]meet, len(occ))
	top := 1
	meets[0] = meet{pos: 0, below: -1 << 30}
	for n, o := range occ[1:] {
		p, prev, g := o, o, 0
		for {
			if pos, found := at[p]; found {
				meets[n+1] = meet{pos: pos, below: prev, guards: g}
				top = max(top, pos)
				break
			}
			q, gd, ok := s.up(p)
			if !ok {
				panic("internal error: places of a term with no common ancestor")
			}
			prev, p, g = p, q, g+b2i(gd)
		}
	}
	lca := path[top]
	// a total and cheap term (arithmetic and lookups: no loop, dictionary
	// or call) may be computed where no place of it is, as Hoist does
	certain := !s.t.work[occ[0]]
	for n := range occ {
		if certain {
			break
		}
		m := meets[n]
		if n == 0 {
			m.pos = 0
		}
		if m.guards+guards[top]-guards[m.pos] == 0 {
			certain = true
			break
		}
	}
	if certain {
		s.bind(occ, lca)
		return
	}
	// split by the child of lca each place is under, in program order
	child := func(n int) int32 {
		if n > 0 && meets[n].pos == top {
			return meets[n].below
		}
		return path[top-1]
	}
	var order []int32
	parts := map[int32][]int32{}
	for n, o := range occ {
		c := child(n)
		if _, seen := parts[c]; !seen {
			order = append(order, c)
		}
		parts[c] = append(parts[c], o)
	}
	for _, c := range order {
		s.group(parts[c])
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bind replaces the places occ by one let bound above point at: the
// first place's copy is kept as the let's value, the others' removed.
func (s *sharer) bind(occ []int32, at int32) {
	t := s.t
	n := s.fresh.fresh("cse")
	for k, o := range occ {
		s.name[o] = n
		if k > 0 {
			for r := o + 1; r < t.end[o]; r++ {
				s.removed[r] = true
			}
		}
	}
	if at < 0 {
		at = -at - 1
	}
	s.anchor[occ[0]] = at
	s.lets[at] = append(s.lets[at], sharedLet{name: n, rep: occ[0]})
}

// build returns node i of the shared program: a place a let replaces
// reads its name, and a node with lets above it is wrapped in them, the
// smallest term outermost (a larger term may read a smaller one).
func (s *sharer) build(i int32) Expr {
	if n, ok := s.name[i]; ok {
		return &Ident{NamePos: s.t.nodes[i].Pos(), Name: n}
	}
	return s.wrap(i, s.buildKids(i))
}

func (s *sharer) wrap(i int32, e Expr) Expr {
	ls := s.lets[i]
	sort.SliceStable(ls, func(a, b int) bool { return s.t.size[ls[a].rep] < s.t.size[ls[b].rep] })
	for k := len(ls) - 1; k >= 0; k-- {
		v := s.wrap(ls[k].rep, s.buildKids(ls[k].rep))
		e = &LetExpr{Let: e.Pos(), Names: []Binder{{Name: ls[k].name}}, Values: []Expr{v}, Body: e}
	}
	return e
}

// buildKids returns node i with its children built.
func (s *sharer) buildKids(i int32) Expr {
	t := s.t
	e := t.nodes[i]
	kids := t.kids(i)
	if len(kids) == 0 {
		return e
	}
	nk := make([]Expr, len(kids))
	changed := false
	for n, c := range kids {
		nk[n] = s.build(c)
		changed = changed || nk[n] != t.nodes[c]
	}
	if !changed {
		return e
	}
	return WithChildren(e, nk)
}
