package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// writeFit writes each fitted parameter that has an --out file, and
// prints the others, one a line: "x: {0 -> 1.5, 1 -> -2}", "c: 0.25".
func writeFit(fit *nablasd.Fit, outs map[string]string, wrt []string, stdout io.Writer) error {
	for _, w := range wrt {
		t := fit.Tensor(w)
		file, ok := outs[w]
		switch {
		case ok && t == nil:
			return fmt.Errorf("--out %s: %s is a number; it prints on standard output", file, w)
		case ok:
			if err := writeParam(t, file); err != nil {
				return fmt.Errorf("--out %s: %v", file, err)
			}
		case t == nil:
			if _, err := fmt.Fprintf(stdout, "%s: %s\n", w, sdql.FormatReal(fit.Value(w)[0])); err != nil {
				return err
			}
		default:
			if _, err := fmt.Fprintf(stdout, "%s: %s\n", w, sdql.FormatValue(formats.ToValue(t))); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeParam writes a fitted tensor: a table, or Matrix Market, a dense
// vector or matrix as an array file (it reads back dense: the start of
// another fit), any other as coordinates, every stored position.
func writeParam(t *formats.Tensor, file string) error {
	if isTableOut(file) {
		return datasets.WriteTensorTable(file, t, map[string]string{"nablasd.fit": "parameter"})
	}
	if o := t.Order(); o != 1 && o != 2 {
		return fmt.Errorf("the parameter has order %d; Matrix Market holds vectors and matrices (write a table)", o)
	}
	opts := &datasets.WriteOptions{Comments: []string{" fitted by nablasd"}}
	write := func(w io.Writer) error {
		if t.Format == formats.Dense || t.Format == formats.DenseCol {
			return datasets.WriteMatrixMarketArray(w, t.Shape, func(i, j int) float64 {
				if t.Order() == 1 {
					return t.At(i)
				}
				return t.At(i, j)
			}, opts)
		}
		idx, val, err := t.Coords()
		if err != nil {
			return err
		}
		return datasets.WriteMatrixMarket(w, &datasets.Coords{Shape: t.Shape, Idx: idx, Val: val}, opts)
	}
	return datasets.WriteFileAtomic(file, func(w io.Writer) error {
		if !strings.HasSuffix(file, ".gz") {
			return write(w)
		}
		zw := gzip.NewWriter(w)
		if err := write(zw); err != nil {
			return err
		}
		return zw.Close()
	})
}
