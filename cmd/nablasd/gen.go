package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
)

// cmdGen: nablasd gen (-f FILE | -e TEXT) [--wrt NAME] --in ... [--out FILE]
// [--func NAME] [--package NAME] [--workspace] writes the Go source of the
// program's kernel (the loop IR, printed by gogen: the paper's section
// 5.5 code generation, in Go), or with --opt none of the logical program
// over dictionary (map) inputs.
func cmdGen(args []string, stdout, stderr io.Writer) error {
	var a genArgs
	if err := genFlags(&a).parse(args); err != nil {
		return err
	}
	o, err := a.options("")
	if err != nil {
		return err
	}
	q, err := a.prepare(o, stderr)
	if err != nil {
		return err
	}
	g := nablasd.GoOptions{Wrt: a.wrt.name, Func: a.fn, Package: a.pkg, Workspace: a.workspace}
	if !a.simple() {
		g.Wrt = ""
		if g.Derivative, err = a.derivative(stderr); err != nil {
			return err
		}
	}
	k, err := q.GenerateGo(g)
	if err != nil {
		return err
	}
	if a.out == "" {
		_, err = stdout.Write(k.Source)
		return err
	}
	err = datasets.WriteFileAtomic(a.out, func(w io.Writer) error {
		_, err := w.Write(k.Source)
		return err
	})
	if err != nil {
		return fmt.Errorf("--out %s: %v", a.out, err)
	}
	var params []string
	for _, p := range k.Params {
		params = append(params, p.GoName)
	}
	result := " error"
	if k.Scalar != "" {
		result = " (" + k.Scalar + ", error)"
	} else {
		params = append(params, "dst *"+k.ResultType)
	}
	if k.WorkType != "" {
		params = append(params, "ws *"+k.WorkType)
	}
	fmt.Fprintf(stderr, "wrote %s: func %s(%s)%s\n", a.out, k.Func, strings.Join(params, ", "), result)
	return nil
}
