package formats

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/sdql"
)

// TestDataDriven runs the files in testdata (regenerate the expected
// output with go test ./formats -rewrite). Commands:
//
//	definitions name=A               each format's inputs and definition, every order 1..3
//	build format=F shape=R,C,...     input lines "i j ... : v"; prints the container and its value
//	validate format=F shape=R,C,...  input lines "posK: ...", "idxK: ...", "val: ..."; prints ok or the error
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "fuzz") {
			return
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "definitions":
				return runDefinitions(t, d)
			case "build":
				f, shape := formatAndShape(t, d)
				c := parseEntries(t, d, shape)
				x, err := FromCoords(shape, c.idx, c.val, f)
				if err != nil {
					return err.Error() + "\n"
				}
				return dumpTensor(x)
			case "validate":
				f, shape := formatAndShape(t, d)
				x := parseContainer(t, d, f, shape)
				if err := x.Validate(); err != nil {
					return err.Error() + "\n"
				}
				return "ok\n"
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

func runDefinitions(t *testing.T, d *datadriven.TestData) string {
	name := "A"
	if d.HasArg("name") {
		d.ScanArgs(t, "name", &name)
	}
	var b strings.Builder
	for order := 1; order <= 3; order++ {
		for _, f := range ForOrder(order) {
			def, err := Definition(f, name, order)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			ins, _ := Inputs(f, name, order)
			fmt.Fprintf(&b, "%s order=%d (%s)\n  %s\n", f, order, strings.Join(ins, ", "), def)
		}
	}
	return b.String()
}

func formatAndShape(t *testing.T, d *datadriven.TestData) (Format, []int) {
	var name, shapeArg string
	d.ScanArgs(t, "format", &name)
	d.ScanArgs(t, "shape", &shapeArg)
	f, err := ByName(name)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	return f, ints(t, d, strings.Split(shapeArg, ","))
}

func ints(t *testing.T, d *datadriven.TestData, fields []string) []int {
	xs := make([]int, 0, len(fields))
	for _, s := range fields {
		x, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		xs = append(xs, x)
	}
	return xs
}

func floats(t *testing.T, d *datadriven.TestData, fields []string) []float64 {
	xs := make([]float64, 0, len(fields))
	for _, s := range fields {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		xs = append(xs, x)
	}
	return xs
}

// parseEntries reads lines "i j ... : v".
func parseEntries(t *testing.T, d *datadriven.TestData, shape []int) coords {
	c := coords{shape: shape, idx: make([][]int, len(shape))}
	for _, line := range strings.Split(d.Input, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		lhs, rhs, ok := strings.Cut(line, ":")
		if !ok {
			d.Fatalf(t, "want \"i j ... : v\", got %q", line)
		}
		xs := ints(t, d, strings.Fields(lhs))
		if len(xs) != len(shape) {
			d.Fatalf(t, "%d coordinates in %q for order %d", len(xs), line, len(shape))
		}
		for m, x := range xs {
			c.idx[m] = append(c.idx[m], x)
		}
		c.val = append(c.val, floats(t, d, strings.Fields(rhs))...)
	}
	return c
}

// parseContainer reads lines "posK: ...", "idxK: ..." and "val: ...".
func parseContainer(t *testing.T, d *datadriven.TestData, f Format, shape []int) *Tensor {
	x := &Tensor{Format: f, Shape: shape, Pos: make([][]int, len(shape)), Idx: make([][]int, len(shape))}
	for _, line := range strings.Split(d.Input, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			d.Fatalf(t, "want \"posK: ...\", \"idxK: ...\" or \"val: ...\", got %q", line)
		}
		fields := strings.Fields(rest)
		switch {
		case key == "val":
			x.Val = floats(t, d, fields)
		case strings.HasPrefix(key, "pos") || strings.HasPrefix(key, "idx"):
			k, err := strconv.Atoi(key[3:])
			if err != nil || k < 0 || k >= len(shape) {
				d.Fatalf(t, "bad level in %q", line)
			}
			if key[:3] == "pos" {
				x.Pos[k] = ints(t, d, fields)
			} else {
				x.Idx[k] = ints(t, d, fields)
			}
		default:
			d.Fatalf(t, "unknown array %q", key)
		}
	}
	return x
}

// dumpTensor prints a container's arrays and its logical value.
func dumpTensor(x *Tensor) string {
	var b strings.Builder
	lay, _ := x.Layout()
	fmt.Fprintf(&b, "%s %s\n", x, lay)
	for k := range lay.Levels {
		if x.Pos[k] != nil {
			fmt.Fprintf(&b, "pos%d: %s\n", k, joinInts(x.Pos[k]))
		}
		if x.Idx[k] != nil {
			fmt.Fprintf(&b, "idx%d: %s\n", k, joinInts(x.Idx[k]))
		}
	}
	vals := make([]string, len(x.Val))
	for i, v := range x.Val {
		vals[i] = sdql.FormatReal(v)
	}
	fmt.Fprintf(&b, "val: %s\n", strings.Join(vals, " "))
	fmt.Fprintf(&b, "value: %s\n", sdql.FormatValue(ToValue(x)))
	return b.String()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " ")
}
