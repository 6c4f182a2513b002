package batch

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Prepare prepares the program text over inputs with the command line's
// messages: an undefined input is reported with the --in flag that binds
// it, warnings go to warn (nil: dropped), and a gradient's input wrt
// ("" for the value) must be an input of the program.
func Prepare(text string, inputs nablasd.Inputs, o *nablasd.Options, wrt string, warn io.Writer) (*nablasd.Query, error) {
	q, err := nablasd.Prepare(text, inputs, o)
	if err != nil {
		var ue *nablasd.UndefinedError
		if errors.As(err, &ue) {
			return nil, &sdql.Error{File: ue.File, Pos: ue.Pos, Msg: ue.Message(fmt.Sprintf("bind it with --in %s=VALUE", ue.Name))}
		}
		return nil, err
	}
	if warn != nil {
		for _, w := range q.Warnings() {
			fmt.Fprintf(warn, "nablasd: warning: %s\n", w)
		}
	}
	if wrt != "" {
		if err := CheckWrt(q, wrt); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// CheckWrt reports a --wrt that names no input of the program.
func CheckWrt(q *nablasd.Query, wrt string) error {
	for _, n := range q.InputNames() {
		if n == wrt {
			return nil
		}
	}
	list := strings.Join(q.InputNames(), ", ")
	if list == "" {
		list = "none bound"
	}
	return fmt.Errorf("--wrt %s: %s is not an input of the program (its inputs: %s)", wrt, wrt, list)
}

// ResultTable turns a result into a table tensor: a scalar, or the
// tensor in the default format of its order.
func ResultTable(res *nablasd.Result) (*datasets.TableTensor, error) {
	if res.Order() == 0 {
		return &datasets.TableTensor{Scalar: res.Scalar()}, nil
	}
	t, err := res.Tensor(datasets.DefaultFormat(res.Order(), nil))
	if err != nil {
		return nil, err
	}
	return &datasets.TableTensor{Tensor: t}, nil
}

// Meta is the metadata of a grouped job's output: the program's text, the
// gradient's input (wrt, "" for the value) and the bindings (--resume
// requires the same).
func Meta(text, wrt string, bindings []string) map[string]string {
	m := map[string]string{datasets.MetaProgram: text}
	if wrt != "" {
		m["nablasd.wrt"] = wrt
	}
	m["nablasd.inputs"] = strings.Join(bindings, " ")
	return m
}

// StandIn is an empty tensor of a shape and format (a number 0 for a nil
// shape, a scalar input): it stands for a grouped input's groups while
// the program is checked.
func StandIn(name string, shape []int, f formats.Format) (any, error) {
	if shape == nil {
		return 0.0, nil
	}
	t, err := formats.FromSortedCoords(shape, make([][]int, len(shape)), nil, f)
	if err != nil {
		return nil, fmt.Errorf("--in %s: %v", name, err)
	}
	return t, nil
}
