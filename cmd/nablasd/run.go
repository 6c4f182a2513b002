package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// execFlags are the flags of the executors (eval and grad).
type execFlags struct {
	exec       string
	dict       string
	threads    int
	dps        bool
	noValidate bool
	outFormat  string
}

func (x *execFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&x.exec, "exec", "compiled", "executor: compiled (the kernel compiler) or interp (the reference interpreter)")
	fs.StringVar(&x.dict, "dict", "intmap", "hash index of hashed dictionaries: intmap, map (Go's map) or swiss")
	fs.IntVar(&x.threads, "threads", 1, "run the kernel on up to `N` goroutines where there is enough work to share (--stats prints threads=, the goroutines the last run used)")
	fs.BoolVar(&x.dps, "dps", true, "destination-passing style (false: build intermediate dictionaries, as before DPS)")
	fs.BoolVar(&x.noValidate, "no-validate", false, "skip the format invariant checks (trusted inputs)")
	fs.StringVar(&x.outFormat, "out-format", "", "print the result as a container of `FORMAT` (its arrays) instead of a literal")
}

// execute compiles (or, with --exec interp, interprets) the prepared
// program and runs it --repeat times; it returns the last result and the
// compile time of the kernel.
func (x *execFlags) execute(p *program, pl *plan, rs *runStats, shape []int) (sdql.Value, *exec.Result, time.Duration, error) {
	switch x.exec {
	case "interp":
		if x.outFormat != "" {
			return nil, nil, 0, usagef("--out-format needs --exec compiled")
		}
		v, err := rs.measure(func() (sdql.Value, error) {
			return (&sdql.Interp{File: p.name}).Run(pl.prog, pl.info, pl.values)
		})
		return v, nil, 0, err
	case "compiled":
	default:
		return nil, nil, 0, usagef("--exec %q: want compiled or interp", x.exec)
	}
	if x.threads < 1 {
		return nil, nil, 0, usagef("--threads %d: want at least 1", x.threads)
	}
	switch x.dict {
	case "intmap", "map", "swiss":
	default:
		return nil, nil, 0, usagef("--dict %q: want intmap, map or swiss", x.dict)
	}
	opts := exec.Options{Dict: x.dict, Threads: x.threads, NoValidate: x.noValidate, ResultShape: shape, Opt: "dps"}
	if !x.dps {
		opts.Opt = "norm"
	}
	start := time.Now()
	k, err := exec.CompileFor(pl.prog, pl.values, opts)
	if err != nil {
		return nil, nil, 0, p.withFile(err)
	}
	compile := time.Since(start)
	var res *exec.Result
	v, err := rs.measure(func() (sdql.Value, error) {
		var err error
		if res == nil {
			res, err = k.Run(pl.values)
		} else {
			err = k.RunInto(res, pl.values)
		}
		if err != nil {
			return nil, err
		}
		return nil, nil
	})
	if err != nil {
		return nil, nil, 0, err
	}
	if x.threads > 1 {
		rs.threads = k.Threads() // what the runs used: it depends on the input
	}
	v = res.Value()
	return v, res, compile, nil
}

// output writes the result: as a container with --out-format, else as a
// literal or to --out.
func (x *execFlags) output(v sdql.Value, res *exec.Result, out string, shape []int, stdout io.Writer) error {
	if x.outFormat == "" {
		return writeResult(v, out, shape, stdout)
	}
	f, err := formats.ByName(x.outFormat)
	if err != nil {
		return usagef("--out-format: %v", err)
	}
	if out != "" {
		return usagef("--out-format prints the container; --out writes Matrix Market: give one of them")
	}
	if _, isDict := v.(*sdql.Dict); !isDict {
		return fmt.Errorf("--out-format %s: the result is the scalar %s; formats hold vectors and tensors", x.outFormat, sdql.FormatValue(v))
	}
	var t *formats.Tensor
	if res != nil {
		t, err = res.Tensor(f, shape...)
	} else {
		t, err = tensorOf(v, f, shape)
	}
	if err != nil {
		return fmt.Errorf("--out-format %s: %v", x.outFormat, err)
	}
	return printTensor(stdout, t)
}

// printTensor prints a container's arrays, one a line.
func printTensor(w io.Writer, t *formats.Tensor) error {
	var b strings.Builder
	fmt.Fprintf(&b, "format: %s\nshape: %v\n", t.Format, t.Shape)
	for k := range t.Pos {
		if t.Pos[k] != nil {
			fmt.Fprintf(&b, "pos%d: %v\n", k+1, t.Pos[k])
		}
		if t.Idx[k] != nil {
			fmt.Fprintf(&b, "idx%d: %v\n", k+1, t.Idx[k])
		}
	}
	b.WriteString("val: [")
	for i, x := range t.Val {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sdql.FormatReal(x))
	}
	b.WriteString("]\n")
	_, err := io.WriteString(w, b.String())
	return err
}
