package nablasd

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/nablasd/nablasd/sdql"
)

// DefaultMemoryLimit returns the default memory budget, 80% of the memory
// available to the process (AvailableMemory), or -1 (no budget) when that
// is not known.
func DefaultMemoryLimit() int64 {
	avail := AvailableMemory()
	if avail < 0 {
		return -1
	}
	return avail / 5 * 4
}

// AvailableMemory is the memory the process may use: the least of the
// machine's (/proc/meminfo), its cgroup's (v2 memory.max, v1
// memory.limit_in_bytes) and half its address-space limit (RLIMIT_AS, which
// also counts the Go runtime's reserved virtual memory and a growing
// array's old and new copies), or -1 when none is known.
func AvailableMemory() int64 {
	avail := int64(math.MaxInt64)
	if n := memTotal(); n > 0 {
		avail = min(avail, n)
	}
	if n := cgroupLimit(); n > 0 {
		avail = min(avail, n)
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur < math.MaxInt64 {
		avail = min(avail, int64(rl.Cur)/2)
	}
	if avail == math.MaxInt64 {
		return -1
	}
	return avail
}

// memTotal is the machine's memory from /proc/meminfo, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// cgroupLimit is the memory limit of the process's cgroup (v2 or v1), or 0
// when there is none.
func cgroupLimit() int64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	limit := int64(0)
	read := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && n < 1<<60 && (limit == 0 || n < limit) {
			limit = n
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			read(filepath.Join("/sys/fs/cgroup", parts[2], "memory.max"))
		case strings.Contains(","+parts[1]+",", ",memory,"): // v1
			read(filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes"))
			read("/sys/fs/cgroup/memory/memory.limit_in_bytes")
		}
	}
	return limit
}

// ParseBytes parses a size: a number of bytes with an optional unit (B,
// KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024),
// such as "512MiB" or "1.5 GB", or a percentage of the memory the process
// may use ("80%" of AvailableMemory, the default). "none", and zero in any
// unit ("0", "0B", "0 MiB"), mean no budget (-1): then only the memory
// available (AvailableMemory) bounds a result (Options.MemoryLimit). A
// positive size below one byte is an error.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "none" {
		return -1, nil
	}
	if p, ok := strings.CutSuffix(t, "%"); ok {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || x <= 0 || x > 100 {
			return 0, fmt.Errorf("bad size %q: a percentage must be in 0..100", s)
		}
		avail := AvailableMemory()
		if avail < 0 {
			return -1, nil
		}
		return int64(float64(avail) * x / 100), nil
	}
	units := []struct {
		suffix string
		scale  float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	scale := 1.0
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, scale = strings.TrimSpace(num), u.scale
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) || x*scale > math.MaxInt64/2 {
		return 0, fmt.Errorf("bad size %q: want a number of bytes with an optional unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), a percentage, or none", s)
	}
	switch {
	case x == 0:
		return -1, nil
	case x*scale < 1:
		return 0, fmt.Errorf("bad size %q: less than a byte (0 or none: no budget)", s)
	}
	return int64(x * scale), nil
}

// memoryCeiling returns the bound a result is checked against (before it
// is built, checkMemory, and by the executors as dictionaries grow): the
// budget (Options.MemoryLimit), or without one the memory available
// (AvailableMemory), so that a result larger than the machine is an error
// and never the Go runtime's fatal "out of memory"; 0 when neither is
// known. It is read once per query.
func memoryCeiling(limit int64) int64 {
	if limit >= 0 {
		return limit
	}
	return max(AvailableMemory(), 0)
}

// bytesPerEntry is what a result's entry takes at the least: its value in
// a dense array.
const bytesPerEntry = 8

// checkMemory fails when the result of prog (the program, or its
// derivative) certainly has more entries than the memory budget holds: a
// lower bound on its entries, whatever executor runs it, such as the 10^12
// of sum(<i, _> in (0:1000000000000)) { i -> 1.0 }. Dictionaries that may
// stay small (a sum whose keys may repeat, an if) count for nothing here;
// the executors check them as they grow.
//
// Without a budget (Options.MemoryLimit negative) the bound is the memory
// available: "the result needs 7.3 TiB (1000000000000 entries), more than
// the memory available (15.5 GiB)".
func (q *Query) checkMemory(prog sdql.Expr, info *sdql.Info, wrt string) error {
	if q.ceiling <= 0 {
		return nil
	}
	s := &sizer{q: q}
	n := s.leaves(prog, nil)
	if need := n * bytesPerEntry; need > float64(q.ceiling) {
		what := "the result"
		if wrt != "" {
			what = "the gradient with respect to " + wrt
		}
		over := "over the memory limit of " + sdql.FormatBytes(float64(q.ceiling))
		if q.opts.MemoryLimit < 0 {
			over = "more than the memory available (" + sdql.FormatBytes(float64(q.ceiling)) + ")"
		}
		return &sdql.Error{File: q.name, Pos: prog.Pos(), Msg: fmt.Sprintf("%s needs %s (%.0f entries), %s",
			what, sdql.FormatBytes(need), n, over)}
	}
	return nil
}

// sizer computes lower bounds on the entries of dictionaries.
type sizer struct {
	q *Query
}

// senv binds let names to the lower bound of their keys (top level) and
// sum keys to nothing.
type senv struct {
	name string
	keys float64
	ival *int // an int's value when known
	next *senv
}

func (s *senv) lookup(name string) *senv {
	for ; s != nil; s = s.next {
		if s.name == name {
			return s
		}
	}
	return nil
}

// leaves is a lower bound on the number of scalar leaves of e's value (0
// when e is a scalar or nothing is certain).
func (s *sizer) leaves(e sdql.Expr, env *senv) float64 {
	switch e := e.(type) {
	case *sdql.DictExpr:
		best := 0.0
		for _, en := range e.Entries {
			best = max(best, max(s.leaves(en.Val, env), 1))
		}
		return best
	case *sdql.SumExpr:
		n := s.count(e.Src, env)
		inner := env
		for _, b := range []sdql.Binder{e.Key, e.Val} {
			inner = &senv{name: b.Name, next: inner}
		}
		body := e.Body
		for {
			let, ok := body.(*sdql.LetExpr)
			if !ok {
				break
			}
			for i, nm := range let.Names {
				inner = &senv{name: nm.Name, keys: s.keys(let.Values[i], inner), ival: s.intValue(let.Values[i], inner), next: inner}
			}
			body = let.Body
		}
		if d, ok := body.(*sdql.DictExpr); ok && len(d.Entries) == 1 && isName(d.Entries[0].Key, e.Key.Name) {
			return n * max(s.leaves(d.Entries[0].Val, inner), 1)
		}
		if n >= 1 {
			return s.leaves(body, inner)
		}
		return 0
	case *sdql.LetExpr:
		inner := env
		for i, nm := range e.Names {
			inner = &senv{name: nm.Name, keys: s.keys(e.Values[i], inner), ival: s.intValue(e.Values[i], inner), next: inner}
		}
		return s.leaves(e.Body, inner)
	case *sdql.BinaryExpr:
		x, y := s.leaves(e.X, env), s.leaves(e.Y, env)
		switch e.Op {
		case sdql.ADD, sdql.SUB:
			return max(x, y)
		case sdql.MUL:
			if x > 0 && y > 0 {
				return x * y
			}
			return max(x, y)
		}
	case *sdql.IfExpr:
		if e.Else != nil {
			return min(s.leaves(e.Then, env), s.leaves(e.Else, env))
		}
	}
	return 0
}

// keys is a lower bound on the number of top-level keys of e's value.
func (s *sizer) keys(e sdql.Expr, env *senv) float64 {
	switch e := e.(type) {
	case *sdql.DictExpr:
		if len(e.Entries) > 0 {
			return 1
		}
	case *sdql.Ident:
		if b := env.lookup(e.Name); b != nil {
			return b.keys
		}
		return s.inputKeys(e.Name)
	case *sdql.SumExpr:
		if d, ok := e.Body.(*sdql.DictExpr); ok && len(d.Entries) == 1 && isName(d.Entries[0].Key, e.Key.Name) {
			return s.count(e.Src, env)
		}
	}
	return 0
}

// count is a lower bound on the number of iterations of a sum over src.
func (s *sizer) count(src sdql.Expr, env *senv) float64 {
	if r, ok := src.(*sdql.RangeExpr); ok {
		lo, hi := s.intValue(r.Lo, env), s.intValue(r.Hi, env)
		if lo != nil && hi != nil {
			return max(float64(*hi)-float64(*lo), 0)
		}
		return 0
	}
	return s.keys(src, env)
}

// inputKeys is the number of top-level keys of an input.
func (s *sizer) inputKeys(name string) float64 {
	in := s.q.inputs[name]
	if in == nil {
		return 0
	}
	if t := in.tensor; t != nil {
		if t.AllRows() {
			return float64(t.Shape[0]) // every row is a key
		}
		if t.Order() == 1 {
			return float64(t.NNZ())
		}
		return 0
	}
	if d, ok := in.logical.(*sdql.Dict); ok {
		return float64(d.Len())
	}
	return 0
}

// intValue is the value of an int expression when it is known: literals,
// int inputs, and their sums, differences and products.
func (s *sizer) intValue(e sdql.Expr, env *senv) *int {
	switch e := e.(type) {
	case *sdql.IntLit:
		v := e.Value
		return &v
	case *sdql.Ident:
		if b := env.lookup(e.Name); b != nil {
			return b.ival
		}
		if in := s.q.inputs[e.Name]; in != nil {
			if v, ok := in.logical.(sdql.Int); ok {
				x := int(v)
				return &x
			}
		}
	case *sdql.BinaryExpr:
		x, y := s.intValue(e.X, env), s.intValue(e.Y, env)
		if x == nil || y == nil {
			return nil
		}
		var v float64
		switch e.Op {
		case sdql.ADD:
			v = float64(*x) + float64(*y)
		case sdql.SUB:
			v = float64(*x) - float64(*y)
		case sdql.MUL:
			v = float64(*x) * float64(*y)
		default:
			return nil
		}
		if math.Abs(v) > 1<<62 {
			return nil
		}
		r := int(v)
		return &r
	}
	return nil
}

// isName reports whether e is the variable name, or unique(name).
func isName(e sdql.Expr, name string) bool {
	if u, ok := e.(*sdql.UniqueExpr); ok {
		e = u.X
	}
	id, ok := e.(*sdql.Ident)
	return ok && id.Name == name && name != "_"
}
