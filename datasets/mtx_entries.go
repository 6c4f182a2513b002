package datasets

import (
	"strconv"
	"strings"
)

// parseEntrySlow parses a coordinate entry line token by token, with the
// exact error for a malformed one.
func (p *mmParser) parseEntrySlow(line []byte, lineNo int) (i, j uint64, v float64, err error) {
	f := strings.Fields(string(line))
	want, what := 3, "row column value"
	if p.h.Field == "pattern" {
		want, what = 2, "row column"
	}
	if len(f) != want {
		return 0, 0, 0, p.errorf(lineNo, "want %d fields (%s), got %d", want, what, len(f))
	}
	if i, err = p.parseIndex(f[0], "row", p.h.Rows, lineNo); err != nil {
		return
	}
	if j, err = p.parseIndex(f[1], "column", p.h.Cols, lineNo); err != nil {
		return
	}
	v, err = p.parseValue(f, 2, lineNo)
	return
}

func (p *mmParser) parseIndex(s, what string, n, lineNo int) (uint64, error) {
	x, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, p.errorf(lineNo, "invalid %s index %q", what, s)
	}
	if x < 1 || x > int64(n) {
		if n == 0 {
			return 0, p.errorf(lineNo, "%s index %d out of range (no %ss)", what, x, what)
		}
		return 0, p.errorf(lineNo, "%s index %d out of range 1..%d", what, x, n)
	}
	return uint64(x), nil
}

// parseValue parses f[k] as the file's field, or returns 1 for pattern files.
func (p *mmParser) parseValue(f []string, k, lineNo int) (float64, error) {
	switch p.h.Field {
	case "pattern":
		return 1, nil
	case "integer":
		x, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return 0, p.errorf(lineNo, "invalid integer value %q", f[k])
		}
		return float64(x), nil
	}
	v, err := strconv.ParseFloat(f[k], 64)
	if err != nil {
		return 0, p.errorf(lineNo, "invalid value %q", f[k])
	}
	return v, nil
}

// readArray reads the values of an array file: column by column, only the
// lower triangle for symmetric files, without the diagonal for
// skew-symmetric ones.
func (p *mmParser) readArray(size int64) (*Coords, error) {
	h := &p.h
	sym, skew := h.Symmetry != "general", h.Symmetry == "skew-symmetric"
	want := h.Entries
	if sym {
		want = min(2*want, MaxArrayEntries)
	}
	n := initialCap(want, size, 2)
	I, J, V := make([]int, 0, n), make([]int, 0, n), make([]float64, 0, n)
	r, c := 0, 0 // position of the next value
	if skew {
		r = 1
	}
	lr := p.lr
	count := 0
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		t := trimSpace(line)
		if len(t) == 0 || t[0] == '%' {
			continue
		}
		if count == h.Entries {
			return nil, p.errorf(lr.line, "more values than the %d declared", h.Entries)
		}
		count++
		var v float64
		if h.Field == "integer" {
			var x int64
			x, ok = parseInt(t)
			v = float64(x)
		} else {
			v, ok = parseFloat(t)
		}
		if !ok {
			f := strings.Fields(string(t))
			if len(f) != 1 {
				return nil, p.errorf(lr.line, "want 1 value, got %d fields", len(f))
			}
			var err error
			if v, err = p.parseValue(f, 0, lr.line); err != nil {
				return nil, err
			}
		}
		I, J, V = append(I, r), append(J, c), append(V, v)
		if sym && r != c {
			if skew {
				v = -v
			}
			I, J, V = append(I, c), append(J, r), append(V, v)
		}
		if r++; r == h.Rows {
			c++
			r = 0
			if sym {
				r = c
				if skew {
					r++
				}
			}
		}
	}
	if err := p.readErr(); err != nil {
		return nil, err
	}
	if count < h.Entries {
		return nil, p.errorf(lr.line, "unexpected end of input after %d of %d values", count, h.Entries)
	}
	return &Coords{Shape: []int{h.Rows, h.Cols}, Idx: [][]int{I, J}, Val: V}, nil
}
