package nablasd

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Printing results
//
// String builds a result's whole literal in memory (and, for a compiled
// kernel's result, its sdql value first): fine for small results, and
// what tests compare. WriteTo streams the same text from the result in
// place, so that printing a result of 10^8 entries takes a buffer beside
// it; WriteSummary prints the first and last few keys of each dictionary,
// as NumPy prints a large array.

// paths calls f for every entry of a tensor result (keys of the result's
// order, and the value) and every inner dictionary present without
// entries (its keys, fewer; 0), in ascending order of keys, until f
// returns false. It reads the result in place.
func (r *Result) paths(f func(keys []int, v float64) bool) error {
	r.settle()
	order := dictDepth(r.t)
	if order < 1 {
		return fmt.Errorf("nablasd: the result is a scalar, not a dictionary")
	}
	switch {
	case r.v == nil && r.jr != nil:
		r.jr.paths(f)
		return nil
	case r.v == nil && r.ex != nil:
		return r.ex.Paths(f)
	}
	keys := make([]int, 0, order)
	var walk func(v sdql.Value) bool
	walk = func(v sdql.Value) bool {
		d, ok := v.(*sdql.Dict)
		if !ok {
			x, _ := v.(sdql.Real)
			if i, ok := v.(sdql.Int); ok {
				x = sdql.Real(i)
			}
			if b, ok := v.(sdql.Bool); ok && bool(b) {
				x = 1
			}
			return f(keys, float64(x))
		}
		if d.Len() == 0 && len(keys) > 0 {
			return f(keys, 0)
		}
		for _, k := range d.Keys() {
			x, _ := d.Get(k)
			keys = append(keys, k)
			more := walk(x)
			keys = keys[:len(keys)-1]
			if !more {
				return false
			}
		}
		return true
	}
	walk(r.Value())
	return nil
}

// paths merges the native kernel's entries and its empty inner
// dictionaries, both in ascending order, into one walk.
func (r *jitResult) paths(f func(keys []int, v float64) bool) {
	next, stop := iter.Pull(func(yield func([]int) bool) {
		r.k.empty(r.dst, func(keys []int) bool { return yield(slices.Clone(keys)) })
	})
	defer stop()
	pending, ok := next()
	more := true
	r.k.entries(r.dst, func(keys []int, v float64) bool {
		for ok && slices.Compare(pending, keys) < 0 {
			if more = f(pending, 0); !more {
				return false
			}
			pending, ok = next()
		}
		more = f(keys, v)
		return more
	})
	for more && ok {
		more = f(pending, 0)
		pending, ok = next()
	}
}

// dictDepth is the number of dictionaries a type nests: a tensor's
// order, and also a dictionary of integers' or booleans' (0 for a
// scalar).
func dictDepth(t sdql.Type) int {
	n := 0
	for {
		d, ok := t.(*sdql.DictType)
		if !ok {
			return n
		}
		n, t = n+1, d.Val
	}
}

// leafFormat returns how a result's values print: reals in the shortest
// round-trip form, integers, booleans.
func leafFormat(t sdql.Type) func(b []byte, v float64) []byte {
	for {
		d, ok := t.(*sdql.DictType)
		if !ok {
			break
		}
		t = d.Val
	}
	switch t {
	case sdql.IntType, sdql.DenseIntType:
		return func(b []byte, v float64) []byte { return strconv.AppendInt(b, int64(v), 10) }
	case sdql.BoolType:
		return func(b []byte, v float64) []byte { return strconv.AppendBool(b, v != 0) }
	}
	return sdql.AppendReal
}

// Count returns the number of the result's entries (1 for a scalar),
// counting no further than limit when limit is positive: a result of
// more than limit entries gives limit+1. Unlike Entries it counts a
// dictionary of integers or booleans too.
func (r *Result) Count(limit int64) int64 {
	order := dictDepth(r.t)
	if order < 1 {
		return 1
	}
	n := int64(0)
	r.paths(func(keys []int, _ float64) bool {
		if len(keys) == order {
			n++
		}
		return limit <= 0 || n <= limit
	})
	return n
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteTo writes the result as String prints it, an SDQL literal with
// keys ascending (or a number), streaming it from the result in place:
// besides the result it takes a 64 KiB buffer and, for a hashed level,
// one dictionary's sorted keys at a time. It implements io.WriterTo.
func (r *Result) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	order := dictDepth(r.t)
	if order < 1 {
		_, err := io.WriteString(cw, r.String())
		return cw.n, err
	}
	bw := bufio.NewWriterSize(cw, 64<<10)
	format := leafFormat(r.t)
	var buf []byte
	open := make([]int, 0, order) // the keys of the open inner dictionaries
	count := make([]int, order+1) // elements written in each open dictionary
	var werr error
	bw.WriteByte('{')
	err := r.paths(func(keys []int, v float64) bool {
		leaf := len(keys) == order
		parent := keys[:len(keys)-1]
		j := 0
		for j < len(open) && j < len(parent) && open[j] == parent[j] {
			j++
		}
		buf = buf[:0]
		for len(open) > j {
			buf = append(buf, '}')
			open = open[:len(open)-1]
		}
		for _, k := range parent[j:] {
			d := len(open)
			if count[d] > 0 {
				buf = append(buf, ", "...)
			}
			count[d]++
			buf = strconv.AppendInt(buf, int64(k), 10)
			buf = append(buf, " -> {"...)
			open = append(open, k)
			count[len(open)] = 0
		}
		d := len(open)
		if count[d] > 0 {
			buf = append(buf, ", "...)
		}
		count[d]++
		buf = strconv.AppendInt(buf, int64(keys[len(keys)-1]), 10)
		buf = append(buf, " -> "...)
		if leaf {
			buf = format(buf, v)
		} else {
			buf = append(buf, "{}"...)
		}
		_, werr = bw.Write(buf)
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		bw.WriteString(strings.Repeat("}", len(open)+1))
		err = bw.Flush()
	}
	return cw.n, err
}

// summaryNode is a dictionary of a result's summary: its first and last
// few children (each a summaryNode, or a value for the innermost
// dictionaries) and how many it has.
type summaryNode struct {
	keys     []int          // first's keys, then last's (in order)
	children []*summaryNode // nil for values
	vals     []float64
	n        int // children in all
	first    int // how many of keys are the first ones
}

// add appends a child key (with a value, for a leaf), keeping the first
// edge children and the last edge; it returns the child's node (nil for
// a leaf).
func (s *summaryNode) add(key int, leaf bool, v float64, edge int) *summaryNode {
	s.n++
	var child *summaryNode
	if !leaf {
		child = &summaryNode{}
	}
	if s.first < edge {
		s.first++
	} else if len(s.keys)-s.first == edge {
		// drop the oldest of the last ones
		i := s.first
		s.keys = slices.Delete(s.keys, i, i+1)
		if leaf {
			s.vals = slices.Delete(s.vals, i, i+1)
		} else {
			s.children = slices.Delete(s.children, i, i+1)
		}
	}
	s.keys = append(s.keys, key)
	if leaf {
		s.vals = append(s.vals, v)
	} else {
		s.children = append(s.children, child)
	}
	return child
}

// WriteSummary writes a summary of a tensor result, as NumPy prints a
// large array: each dictionary's first and last edge keys (its others
// as "..."), an inner dictionary a line, followed by a comment line with
// the shape and the number of entries: `// shape 10000×10000, 100000000
// entries`. It reads the result once, in place, holding the summary
// only. A scalar writes as String.
func (r *Result) WriteSummary(w io.Writer, edge int) error {
	order := dictDepth(r.t)
	if order < 1 {
		_, err := fmt.Fprintln(w, r.String())
		return err
	}
	edge = max(edge, 1)
	root := &summaryNode{}
	path := []*summaryNode{root} // the nodes of the last path, by depth
	last := []int(nil)
	entries := int64(0)
	seen := make([]int, order) // one past the largest key of each mode
	err := r.paths(func(keys []int, v float64) bool {
		leaf := len(keys) == order
		if leaf {
			entries++
		}
		for m, k := range keys {
			seen[m] = max(seen[m], k+1)
		}
		// the common prefix with the last path: those nodes are open
		j := 0
		for j < len(last) && j < len(keys)-1 && last[j] == keys[j] {
			j++
		}
		path = path[:j+1]
		for d := j; d < len(keys); d++ {
			isLeaf := leaf && d == len(keys)-1
			c := path[d].add(keys[d], isLeaf, v, edge)
			if c != nil {
				path = append(path, c)
			}
		}
		last = append(last[:0], keys...)
		return true
	})
	if err != nil {
		return err
	}
	// the shape as the program gives it, else one past the largest keys
	shape := seen
	for m, n := range r.shape {
		if m < order && n > 0 {
			shape[m] = n
		}
	}
	format := leafFormat(r.t)
	bw := bufio.NewWriter(w)
	var write func(s *summaryNode, indent int)
	write = func(s *summaryNode, indent int) {
		bw.WriteByte('{')
		sep := ", "
		if s.children != nil {
			sep = ",\n" + strings.Repeat(" ", indent+1)
		}
		for i, k := range s.keys {
			if i > 0 {
				bw.WriteString(sep)
			}
			if i == s.first && s.n > len(s.keys) {
				bw.WriteString("..." + sep)
			}
			bw.WriteString(strconv.Itoa(k))
			bw.WriteString(" -> ")
			if s.children != nil {
				write(s.children[i], indent+len(strconv.Itoa(k))+5)
			} else {
				bw.Write(format(nil, s.vals[i]))
			}
		}
		bw.WriteByte('}')
	}
	write(root, 0)
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = strconv.Itoa(n)
	}
	fmt.Fprintf(bw, "\n// shape %s, %d entries\n", strings.Join(dims, "×"), entries)
	return bw.Flush()
}
