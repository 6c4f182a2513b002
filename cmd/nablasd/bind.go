package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// input is one --in binding: a number or a tensor in a storage format.
type input struct {
	name   string
	number float64
	isNum  bool
	tensor *formats.Tensor
	source string // where the tensor came from, for messages
}

// parseInput parses NAME=VALUE and loads the value.
func parseInput(s string) (*input, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" || val == "" {
		return nil, usagef("--in %q: want NAME=VALUE", s)
	}
	if !validName(name) {
		return nil, usagef("--in %q: %q is not a variable name", s, name)
	}
	in := &input{name: name}
	if x, err := strconv.ParseFloat(val, 64); err == nil {
		in.number, in.isNum = x, true
		return in, nil
	}
	src, fmtName := splitFormat(val)
	coords, dense, err := loadCoords(src)
	if err != nil {
		return nil, fmt.Errorf("--in %s: %v", name, err)
	}
	if len(coords.Shape) == 2 && coords.Shape[1] == 1 {
		// a one-column Matrix Market file binds a vector
		coords = &datasets.Coords{Shape: coords.Shape[:1], Idx: coords.Idx[:1], Val: coords.Val}
	}
	if fmtName == "" {
		switch {
		case dense:
			fmtName = "dense"
		case len(coords.Shape) == 1:
			fmtName = "coo"
		case len(coords.Shape) == 2:
			fmtName = "csr"
		default:
			fmtName = "csf"
		}
	}
	f, err := formats.ByName(fmtName)
	if err != nil {
		return nil, usagef("--in %s: %v", name, err)
	}
	t, err := formats.FromCoords(coords.Shape, coords.Idx, coords.Val, f)
	if err != nil {
		return nil, fmt.Errorf("--in %s: %v", name, err)
	}
	in.tensor, in.source = t, src
	return in, nil
}

func validName(s string) bool {
	e, err := sdql.Parse("", s)
	if err != nil {
		return false
	}
	id, ok := e.(*sdql.Ident)
	return ok && id.Name == s && s != "_"
}

// splitFormat splits VALUE[:FORMAT] when the part after the last colon is
// a format name.
func splitFormat(v string) (string, string) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return v, ""
	}
	if _, err := formats.ByName(v[i+1:]); err == nil {
		return v[:i], v[i+1:]
	}
	return v, ""
}

// loadCoords loads a file, a SuiteSparse matrix or synthetic data; dense
// reports a Matrix Market array file.
func loadCoords(src string) (*datasets.Coords, bool, error) {
	switch {
	case strings.HasPrefix(src, "suitesparse:"):
		var extra []string
		if dir := sharedDatasets(); dir != "" {
			extra = append(extra, dir)
		}
		c, _, err := datasets.LoadSuiteSparse(strings.TrimPrefix(src, "suitesparse:"),
			datasets.WithExtraDirs(extra...), datasets.WithProgress(os.Stderr))
		return c, false, err
	case strings.HasPrefix(src, "synthetic:"):
		c, err := datasets.ParseSynthetic(strings.TrimPrefix(src, "synthetic:"))
		return c, false, err
	}
	c, h, err := datasets.LoadMatrixMarket(src)
	if err != nil {
		return nil, false, err
	}
	return c, h.Format == "array", nil
}

// sharedDatasets returns the folder of SuiteSparse matrices shipped beside
// the repository (../shared/datasets/suitesparse), when it exists.
func sharedDatasets() string {
	if d := os.Getenv("NABLASD_SHARED"); d != "" {
		return filepath.Join(d, "datasets", "suitesparse")
	}
	exe, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := exe; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "..", "shared", "datasets", "suitesparse")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// program is a parsed program with its bound inputs.
type program struct {
	name   string // the file name, "" for -e
	expr   sdql.Expr
	inputs map[string]*input
	values map[string]sdql.Value // the values of the scalar inputs
	info   *sdql.Info
	// logical caches the inputs' logical values (logicalValues): built
	// only for --opt none, since a tensor's dictionary takes several times
	// the memory of its storage.
	logical map[string]sdql.Value
}

// parse reads and parses the program, with no inputs bound yet.
func parse(c *common) (*program, error) {
	name, text, err := c.source()
	if err != nil {
		return nil, err
	}
	e, err := sdql.Parse(name, text)
	if err != nil {
		return nil, err
	}
	return &program{name: name, expr: e, inputs: map[string]*input{}, values: map[string]sdql.Value{}}, nil
}

// load parses the program and the --in bindings, and type-checks the
// program against them. Numbers bind as int where the program uses them
// as int (a range bound), and as real otherwise.
func load(c *common) (*program, error) {
	p, err := parse(c)
	if err != nil {
		return nil, err
	}
	e, name := p.expr, p.name
	types := map[string]sdql.Type{}
	for _, s := range c.inputs {
		in, err := parseInput(s)
		if err != nil {
			return nil, err
		}
		if _, dup := p.inputs[in.name]; dup {
			return nil, usagef("--in %s is bound twice", in.name)
		}
		p.inputs[in.name] = in
		if in.tensor != nil {
			types[in.name] = sdql.Tensor(in.tensor.Order())
		}
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{File: name, Inputs: types})
	if err != nil {
		return nil, err
	}
	for _, v := range sdql.FreeVars(e) {
		if _, ok := p.inputs[v]; !ok {
			return nil, &sdql.Error{File: name, Pos: firstUse(e, v),
				Msg: fmt.Sprintf("undefined: %s (bind it with --in %s=VALUE)", v, v)}
		}
	}
	for n, in := range p.inputs {
		if in.tensor != nil {
			continue
		}
		t := info.Free[n]
		switch {
		case t == nil || t == sdql.RealType:
			p.values[n] = sdql.Real(in.number)
		case t == sdql.IntType || t == sdql.DenseIntType:
			if in.number != float64(int(in.number)) {
				return nil, fmt.Errorf("--in %s: the program uses %s as an int, but it is bound to %v", n, n, in.number)
			}
			p.values[n] = sdql.Int(int(in.number))
		case t == sdql.BoolType:
			p.values[n] = sdql.Bool(in.number != 0)
		default:
			return nil, fmt.Errorf("--in %s: the program uses %s as %s, but it is bound to the number %v", n, n, t, in.number)
		}
	}
	p.info, err = sdql.Check(e, &sdql.CheckConfig{File: name, Inputs: p.types(), Strict: true})
	if err != nil {
		return nil, err
	}
	return p, nil
}

func firstUse(e sdql.Expr, name string) sdql.Pos {
	var pos sdql.Pos
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if id, ok := x.(*sdql.Ident); ok && id.Name == name && !pos.IsValid() {
			pos = id.NamePos
		}
		return !pos.IsValid()
	})
	return pos
}

// types returns the types of the bound inputs.
func (p *program) types() map[string]sdql.Type {
	ts := map[string]sdql.Type{}
	for n, v := range p.values {
		ts[n] = sdql.TypeOfValue(v)
	}
	for n, in := range p.inputs {
		if in.tensor != nil {
			ts[n] = sdql.Tensor(in.tensor.Order())
		}
	}
	return ts
}

// logicalValues returns the inputs' logical values: the scalars, and each
// tensor as its dictionary (formats.ToValue), built on first use.
func (p *program) logicalValues() map[string]sdql.Value {
	if p.logical == nil {
		p.logical = map[string]sdql.Value{}
		for n, v := range p.values {
			p.logical[n] = v
		}
		for n, in := range p.inputs {
			if in.tensor != nil {
				p.logical[n] = formats.ToValue(in.tensor)
			}
		}
	}
	return p.logical
}

// withFile names the program's file in positioned errors that come from
// later stages (which see only the tree).
func (p *program) withFile(err error) error {
	switch e := err.(type) {
	case *sdql.Error:
		if e.File == "" {
			c := *e
			c.File = p.name
			return &c
		}
	case sdql.ErrorList:
		out := make(sdql.ErrorList, len(e))
		for i, x := range e {
			c := *x
			if c.File == "" {
				c.File = p.name
			}
			out[i] = &c
		}
		return out
	}
	return err
}
