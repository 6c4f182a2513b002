package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// writeResult prints v as an SDQL literal, or writes it to --out.
// A written matrix's shape is the larger of one past its largest keys and
// shape (the program's result shape, resultShape), mode by mode.
func writeResult(v sdql.Value, out string, shape []int, stdout io.Writer) error {
	if out == "" {
		_, err := fmt.Fprintln(stdout, sdql.FormatValue(v))
		return err
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(out, ".gz")))
	if ext != ".mtx" {
		return usagef("--out %s: only Matrix Market output (.mtx) is supported", out)
	}
	c, err := toCoords(v)
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	if len(shape) == len(c.Shape) {
		for m := range shape {
			c.Shape[m] = max(c.Shape[m], shape[m])
		}
	}
	return datasets.SaveMatrixMarket(out, c, &datasets.WriteOptions{Comments: []string{" written by nablasd"}})
}

// toCoords turns a vector or matrix result into coordinates, keys
// ascending; the shape is one past the largest key of each mode.
func toCoords(v sdql.Value) (*datasets.Coords, error) {
	d, ok := v.(*sdql.Dict)
	if !ok {
		return nil, fmt.Errorf("the result is a scalar (%s); Matrix Market holds vectors and matrices", sdql.FormatValue(v))
	}
	order := 1
	d.Range(func(_ int, x sdql.Value) bool {
		if _, nested := x.(*sdql.Dict); nested {
			order = 2
		}
		return false
	})
	c := &datasets.Coords{Shape: make([]int, order), Idx: make([][]int, order)}
	var add func(prefix []int, x sdql.Value) error
	add = func(prefix []int, x sdql.Value) error {
		if len(prefix) == order {
			f, ok := scalar(x)
			if !ok {
				return fmt.Errorf("the result has order above 2; Matrix Market holds vectors and matrices")
			}
			for m, k := range prefix {
				if k < 0 {
					return fmt.Errorf("negative index %d cannot be written", k)
				}
				c.Idx[m] = append(c.Idx[m], k)
				c.Shape[m] = max(c.Shape[m], k+1)
			}
			c.Val = append(c.Val, f)
			return nil
		}
		dd, ok := x.(*sdql.Dict)
		if !ok {
			return fmt.Errorf("the result mixes orders")
		}
		keys := dd.Keys()
		sort.Ints(keys)
		for _, k := range keys {
			y, _ := dd.Get(k)
			if err := add(append(prefix, k), y); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(nil, d); err != nil {
		return nil, err
	}
	return c, nil
}

func scalar(v sdql.Value) (float64, bool) {
	switch x := v.(type) {
	case sdql.Real:
		return float64(x), true
	case sdql.Int:
		return float64(x), true
	}
	return 0, false
}

// tensorOf stores a result value in format f: its stored positions, the
// shape the larger of shape and one past the largest key, mode by mode.
func tensorOf(v sdql.Value, f formats.Format, shape []int) (*formats.Tensor, error) {
	order := sdql.Order(sdql.TypeOfValue(v))
	if order < 1 {
		return nil, fmt.Errorf("the result is not a tensor")
	}
	dims := make([]int, order)
	copy(dims, shape)
	idx := make([][]int, order)
	var val []float64
	var walk func(v sdql.Value, prefix []int) error
	walk = func(v sdql.Value, prefix []int) error {
		if len(prefix) == order {
			x, ok := scalar(v)
			if !ok {
				return fmt.Errorf("the result mixes orders")
			}
			for m, k := range prefix {
				if k < 0 {
					return fmt.Errorf("negative index %d cannot be stored", k)
				}
				idx[m] = append(idx[m], k)
				dims[m] = max(dims[m], k+1)
			}
			val = append(val, x)
			return nil
		}
		var err error
		sdql.Entries(v, func(k int, x sdql.Value) bool {
			err = walk(x, append(prefix, k))
			return err == nil
		})
		return err
	}
	if err := walk(v, nil); err != nil {
		return nil, err
	}
	return formats.FromCoords(dims, idx, val, f)
}
