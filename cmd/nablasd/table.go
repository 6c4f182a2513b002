package main

import (
	"fmt"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/datasets"
)

// isTableOut reports whether --out names a table file.
func isTableOut(out string) bool {
	_, ok := datasets.TableKindOf(out)
	return ok
}

// writeTableResult writes a result to a table file by the convention: a
// scalar as one row with val, a tensor as its entries with the result's
// extents (nablasd.Result.Extents), in the default format of its order.
func writeTableResult(res *nablasd.Result, out string, meta map[string]string) error {
	tt, err := batch.ResultTable(res)
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	if err := datasets.WriteTable(out, tt, meta); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	return nil
}

// tableMeta is the metadata written with a result table: the program's
// text, and for a gradient the input it is taken with respect to.
func tableMeta(c *commonArgs, wrt string) map[string]string {
	_, text, _ := c.source()
	meta := map[string]string{datasets.MetaProgram: text}
	if wrt != "" {
		meta["nablasd.wrt"] = wrt
	}
	return meta
}
