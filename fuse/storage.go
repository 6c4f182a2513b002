package fuse

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Storage says how one input tensor is stored.
type Storage struct {
	Format formats.Format
	Order  int // 1 for a vector, 2 for a matrix, ...
}

// Definitions returns, for inputs stored in formats, each format's
// Physical SDQLite definition (formats.Definition, parsed) and the types of
// the definitions' own inputs (lengths are int, pos/idx/coordinate arrays
// {dense_int -> int}, values {dense_int -> real}), for Config.Defs and
// Config.PhysInputs.
func Definitions(st map[string]Storage) (map[string]sdql.Expr, map[string]sdql.Type, error) {
	defs := map[string]sdql.Expr{}
	types := map[string]sdql.Type{}
	names := make([]string, 0, len(st))
	for n := range st {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := st[n]
		text, err := formats.Definition(s.Format, n, s.Order)
		if err != nil {
			return nil, nil, err
		}
		e, err := sdql.Parse(n+" ("+s.Format.Name()+")", text)
		if err != nil {
			return nil, nil, fmt.Errorf("fuse: definition of %s: %v", n, err)
		}
		defs[n] = e
		ins, err := formats.Inputs(s.Format, n, s.Order)
		if err != nil {
			return nil, nil, err
		}
		for _, in := range ins {
			types[in] = physInputType(strings.TrimPrefix(in, n+"_"))
		}
	}
	return defs, types, nil
}

func physInputType(suffix string) sdql.Type {
	switch {
	case suffix == "val":
		return &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.RealType}
	case suffix == "len" || suffix == "rows" || suffix == "cols" || suffix == "tubes" || strings.HasPrefix(suffix, "dims"):
		return sdql.IntType
	}
	return &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.IntType}
}

// StatsOf measures bound input values for the cost model: the value of an
// int, the length of a physical array, and for a dictionary its number of
// keys per level (inner levels averaged).
func StatsOf(values map[string]sdql.Value) Stats {
	st := Stats{}
	for n, v := range values {
		switch v := v.(type) {
		case sdql.Int:
			st[n] = []float64{float64(v)}
		case sdql.IntArray:
			st[n] = []float64{float64(len(v))}
		case sdql.RealArray:
			st[n] = []float64{float64(len(v))}
		case *sdql.Dict:
			st[n] = sdql.Fanout(v)
		}
	}
	return st
}
