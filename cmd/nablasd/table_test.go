package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// TestTablesDataDriven runs testdata/tables/*.txt, command lines of
// nablasd over Arrow and Parquet tables, in a temporary directory per
// file. Besides TestCLIDataDriven's file, run and run-all:
//
//	table NAME [batch=N] [meta=K:V;K:V]   the input (a header of
//	                                      name:type columns, then rows;
//	                                      null for a null) is written to
//	                                      the table NAME (internal/tabletest)
//	cat NAME                              a table's columns, nablasd
//	                                      metadata and rows; a text file
//	ls                                    the files in the directory
//	corrupt NAME value=X                  damages the bytes of the value X
//	                                      in the file NAME (corrupt)
//
// Regenerate with go test ./cmd/nablasd -run TestTablesDataDriven -rewrite.
func TestTablesDataDriven(t *testing.T) {
	paths, _ := filepath.Glob("testdata/tables/*.txt")
	if len(paths) == 0 {
		t.Fatal("no testdata/tables files")
	}
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Chdir(t.TempDir())
			datadriven.RunTest(t, abs, func(t *testing.T, d *datadriven.TestData) string {
				switch d.Cmd {
				case "file":
					if err := os.WriteFile(d.CmdArgs[0].Key, []byte(d.Input+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					return ""
				case "table":
					name := d.CmdArgs[0].Key
					batch := 0
					if d.HasArg("batch") {
						d.ScanArgs(t, "batch", &batch)
					}
					meta := map[string]string{}
					if d.HasArg("meta") {
						var s string
						d.ScanArgs(t, "meta", &s)
						for _, kv := range strings.Split(s, ";") {
							k, v, _ := strings.Cut(kv, ":")
							meta[k] = v
						}
					}
					if err := tabletest.Write(name, d.Input, batch, meta); err != nil {
						t.Fatalf("%s: %v", d.Pos, err)
					}
					return ""
				case "cat":
					name := d.CmdArgs[0].Key
					if _, ok := datasets.TableKindOf(name); ok {
						s, err := tabletest.Cat(name)
						if err != nil {
							return "error: " + err.Error() + "\n"
						}
						return s
					}
					b, err := os.ReadFile(name)
					if err != nil {
						return "error: " + err.Error() + "\n"
					}
					return string(b)
				case "ls":
					ents, _ := os.ReadDir(".")
					var names []string
					for _, e := range ents {
						names = append(names, e.Name())
					}
					sort.Strings(names)
					return strings.Join(names, "\n") + "\n"
				case "corrupt":
					return corrupt(t, d)
				case "run":
					return runLine(t, d, splitWords(t, d))
				case "run-all":
					return runAll(t, d, splitWords(t, d))
				}
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
				return ""
			})
		})
	}
}

// corrupt damages a file as a disk might: "corrupt NAME value=X" flips
// every bit of the last byte (sign and exponent) of the first stored
// float64 X (its eight little-endian bytes, as Parquet's plain encoding,
// compressed by Snappy or not, and Arrow store them).
func corrupt(t *testing.T, d *datadriven.TestData) string {
	name := d.CmdArgs[0].Key
	var x float64
	d.ScanArgs(t, "value", &x)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	at := bytes.Index(b, binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)))
	if at < 0 {
		t.Fatalf("%s: %s does not store %v", d.Pos, name, x)
	}
	b[at+7] ^= 0xff
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return ""
}
