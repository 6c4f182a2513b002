package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
)

// isMatrixMarket reports whether a --out file is .mtx or .mtx.gz.
func isMatrixMarket(out string) bool {
	return strings.ToLower(filepath.Ext(strings.TrimSuffix(out, ".gz"))) == ".mtx"
}

// writeResult writes a vector or matrix result to a Matrix Market file
// (gzip-compressed for .gz), streaming it from the kernel's destination
// (memory in proportion to the result only), atomically, mode 0644 under
// the umask. Its extents are the result's shape as the program gives it
// from its inputs' shapes (nablasd.Result.Extents).
func writeResult(res *nablasd.Result, out string) error {
	if res.Order() == 0 {
		return fmt.Errorf("--out %s: the result is a scalar (%s); Matrix Market holds vectors and matrices", out, res)
	}
	opts := &datasets.WriteOptions{Comments: []string{" written by nablasd"}}
	err := datasets.WriteFileAtomic(out, func(w io.Writer) error {
		if !strings.HasSuffix(out, ".gz") {
			return res.WriteMatrixMarket(w, opts)
		}
		zw := gzip.NewWriter(w)
		if err := res.WriteMatrixMarket(zw, opts); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	return nil
}
