package datasets

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSynthSpec parses a synthetic tensor spec: comma-separated key=value
// pairs. The shape is given by exactly one of
//
//	n=N             a vector of length N
//	rows=R,cols=C   an R x C matrix
//	dims=AxBxC      a tensor of 1 to 3 modes
//
// and the entry count by density=D (a fraction of the positions) or nnz=K.
// Optional: kind=uniform|banded|powerlaw, symmetric=true, bandwidth=B,
// alpha=A and seed=S (default 1). For example
// "rows=1000,cols=1000,density=0.01,seed=1,kind=uniform".
func ParseSynthSpec(spec string) (SynthSpec, error) {
	s := SynthSpec{Seed: 1}
	seen := map[string]bool{}
	var n, rows, cols int
	var dims []int
	errf := func(format string, args ...any) (SynthSpec, error) {
		return SynthSpec{}, fmt.Errorf("synthetic spec %q: %s", spec, fmt.Sprintf(format, args...))
	}
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return errf("%q is not key=value", kv)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if seen[key] {
			return errf("%s given twice", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "n":
			n, err = parseCount(val)
		case "rows":
			rows, err = parseCount(val)
		case "cols":
			cols, err = parseCount(val)
		case "dims":
			for _, d := range strings.Split(val, "x") {
				var x int
				if x, err = parseCount(d); err != nil {
					break
				}
				dims = append(dims, x)
			}
		case "density":
			s.Density, err = strconv.ParseFloat(val, 64)
			if err == nil && !(s.Density >= 0 && s.Density <= 1) {
				err = fmt.Errorf("out of range [0, 1]")
			}
		case "nnz":
			s.NNZ, err = parseCount(val)
		case "seed":
			s.Seed, err = strconv.ParseUint(val, 10, 64)
		case "kind":
			switch val {
			case Uniform, Banded, PowerLaw:
				s.Kind = val
			default:
				err = fmt.Errorf("want uniform, banded or powerlaw")
			}
		case "symmetric":
			s.Symmetric, err = strconv.ParseBool(val)
		case "bandwidth":
			s.Bandwidth, err = parseCount(val)
		case "alpha":
			s.Alpha, err = strconv.ParseFloat(val, 64)
			if err == nil && !(s.Alpha > 0 && s.Alpha <= 10) {
				err = fmt.Errorf("out of range (0, 10]")
			}
		default:
			return errf("unknown key %q (want n, rows, cols, dims, density, nnz, seed, kind, symmetric, bandwidth or alpha)", key)
		}
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok {
				err = ne.Err
			}
			return errf("%s=%s: %v", key, val, err)
		}
	}
	switch {
	case seen["n"] && !seen["rows"] && !seen["cols"] && !seen["dims"]:
		s.Dims = []int{n}
	case seen["rows"] && seen["cols"] && !seen["n"] && !seen["dims"]:
		s.Dims = []int{rows, cols}
	case seen["dims"] && !seen["n"] && !seen["rows"] && !seen["cols"]:
		if len(dims) > 3 {
			return errf("dims: %d modes (want 1, 2 or 3)", len(dims))
		}
		s.Dims = dims
	default:
		return errf("give the shape as n=N, rows=R,cols=C or dims=AxBxC")
	}
	if seen["density"] == seen["nnz"] {
		return errf("give exactly one of density and nnz")
	}
	return s, nil
}

// ParseSynthetic generates the tensor a spec describes (see ParseSynthSpec).
func ParseSynthetic(spec string) (*Coords, error) {
	s, err := ParseSynthSpec(spec)
	if err != nil {
		return nil, err
	}
	return Generate(s)
}

// parseCount parses a non-negative decimal integer.
func parseCount(s string) (int, error) {
	x, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if x < 0 || x > MaxEntries {
		return 0, fmt.Errorf("out of range 0..%d", int64(MaxEntries))
	}
	return int(x), nil
}
