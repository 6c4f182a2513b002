package fuse

import (
	"fmt"
	"github.com/nablasd/nablasd/ad"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// defText returns the Physical SDQLite definition of a format, as
// formats.Definition generates it (Fig. 10), for the formats the tests use.
func defText(format, name string, order int) string {
	r := strings.NewReplacer("A_", name+"_")
	switch {
	case format == "dense" && order == 1:
		return r.Replace("sum(<_, i> in (0:A_len)) { unique(i) -> A_val(i) }")
	case format == "coo" && order == 1:
		return r.Replace("sum(<_, i> in (0:A_len)) { unique(A_row(i)) -> A_val(i) }")
	case format == "csr" && order == 2:
		return r.Replace("sum(<_, i> in (0:A_len)) { unique(i) -> sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { unique(j) -> A_val(p) } }")
	case format == "coo" && order == 2:
		return r.Replace("sum(<_, p> in (0:A_len)) { A_row(p) -> { A_col(p) -> A_val(p) } }")
	case format == "csc" && order == 2:
		return r.Replace("sum(<_, j> in (0:A_len)) sum(<p, i> in A_idx(A_pos(j):A_pos(j+1))) { i -> { unique(j) -> A_val(p) } }")
	case format == "dense" && order == 2:
		return r.Replace("sum(<_, i> in (0:A_rows)) { unique(i) -> sum(<_, j> in (0:A_cols)) { unique(j) -> A_val(i*A_cols+j) } }")
	}
	panic(fmt.Sprintf("no definition for %s order %d", format, order))
}

// physBind stores a logical value (vector or matrix) in a format and
// returns the definition's inputs and their types. Dense formats take the
// extents from dims.
func physBind(format, name string, v sdql.Value, dims []int) (map[string]sdql.Value, map[string]sdql.Type) {
	vals := map[string]sdql.Value{}
	iarr := &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.IntType}
	rarr := &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.RealType}
	types := map[string]sdql.Type{}
	d, _ := v.(*sdql.Dict)
	keys := func(d *sdql.Dict) []int {
		if d == nil {
			return nil
		}
		ks := d.Keys()
		sort.Ints(ks)
		return ks
	}
	real := func(x sdql.Value) float64 {
		switch x := x.(type) {
		case sdql.Real:
			return float64(x)
		case sdql.Int:
			return float64(x)
		}
		return 0
	}
	switch format {
	case "dense":
		if len(dims) == 1 {
			a := make(sdql.RealArray, dims[0])
			for _, k := range keys(d) {
				x, _ := d.Get(k)
				a[k] = real(x)
			}
			vals[name+"_len"], vals[name+"_val"] = sdql.Int(dims[0]), a
			types[name+"_len"], types[name+"_val"] = sdql.IntType, rarr
		} else {
			a := make(sdql.RealArray, dims[0]*dims[1])
			for _, i := range keys(d) {
				row, _ := d.Get(i)
				rd, _ := row.(*sdql.Dict)
				for _, j := range keys(rd) {
					x, _ := rd.Get(j)
					a[i*dims[1]+j] = real(x)
				}
			}
			vals[name+"_rows"], vals[name+"_cols"], vals[name+"_val"] = sdql.Int(dims[0]), sdql.Int(dims[1]), a
			types[name+"_rows"], types[name+"_cols"], types[name+"_val"] = sdql.IntType, sdql.IntType, rarr
		}
	case "coo":
		if len(dims) == 1 {
			var row sdql.IntArray
			var val sdql.RealArray
			for _, k := range keys(d) {
				x, _ := d.Get(k)
				row, val = append(row, k), append(val, real(x))
			}
			vals[name+"_len"], vals[name+"_row"], vals[name+"_val"] = sdql.Int(len(row)), row, val
			types[name+"_len"], types[name+"_row"], types[name+"_val"] = sdql.IntType, iarr, rarr
		} else {
			var row, col sdql.IntArray
			var val sdql.RealArray
			for _, i := range keys(d) {
				r, _ := d.Get(i)
				rd, _ := r.(*sdql.Dict)
				for _, j := range keys(rd) {
					x, _ := rd.Get(j)
					row, col, val = append(row, i), append(col, j), append(val, real(x))
				}
			}
			vals[name+"_len"], vals[name+"_row"], vals[name+"_col"], vals[name+"_val"] = sdql.Int(len(row)), row, col, val
			types[name+"_len"], types[name+"_row"], types[name+"_col"], types[name+"_val"] = sdql.IntType, iarr, iarr, rarr
		}
	case "csc": // the transpose's CSR arrays
		t := sdql.NewDict()
		for _, i := range keys(d) {
			r, _ := d.Get(i)
			rd, _ := r.(*sdql.Dict)
			for _, j := range keys(rd) {
				x, _ := rd.Get(j)
				c, ok := t.Get(j)
				if !ok {
					c = sdql.NewDict()
					t.Set(j, c)
				}
				c.(*sdql.Dict).Set(i, x)
			}
		}
		return physBind("csr", name, t, []int{dims[1], dims[0]})
	case "csr":
		pos := sdql.IntArray{0}
		var idx sdql.IntArray
		var val sdql.RealArray
		for i := 0; i < dims[0]; i++ {
			var rd *sdql.Dict
			if r, ok := d.Get(i); ok {
				rd, _ = r.(*sdql.Dict)
			}
			for _, j := range keys(rd) {
				x, _ := rd.Get(j)
				idx, val = append(idx, j), append(val, real(x))
			}
			pos = append(pos, len(idx))
		}
		vals[name+"_len"], vals[name+"_pos"], vals[name+"_idx"], vals[name+"_val"] = sdql.Int(dims[0]), pos, idx, val
		types[name+"_len"], types[name+"_pos"], types[name+"_idx"], types[name+"_val"] = sdql.IntType, iarr, iarr, rarr
	default:
		panic("physBind: unknown format " + format)
	}
	return vals, types
}

// optimizeGrad differentiates prog with respect to wrt with ad.Grad and
// optimizes the derivative (fuse does not call ad: the root package
// differentiates, then optimizes); the stages start with the logical
// program, as the root package prints them. An empty wrt optimizes prog.
func optimizeGrad(prog sdql.Expr, wrt string, cfg *Config) (*Result, error) {
	if wrt == "" {
		return Optimize(prog, cfg)
	}
	d, err := ad.Grad(prog, wrt, cfg.Inputs)
	if err != nil {
		return nil, err
	}
	c := *cfg
	c.InputStage = StageDifferentiated
	res, err := Optimize(d, &c)
	if err != nil {
		return nil, err
	}
	res.Stages = append([]Stage{{StageLogical, prog}}, res.Stages...)
	return res, nil
}
