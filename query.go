package nablasd

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/nablasd/nablasd/sdql"
)

// Query is a program prepared over its inputs: parsed, type-checked,
// linted, and checked for shape mismatches and memory it certainly cannot
// have. Its methods differentiate, optimize, compile and run it. A Query
// may be used by several goroutines at once.
type Query struct {
	name string
	prog sdql.Expr
	// structured is prog as the pipeline differentiates and optimizes it:
	// its invariant terms hoisted out of loops and its repeated terms
	// shared (structure), in structureTime
	structured    sdql.Expr
	structureTime StageTime
	opts          Options
	inputs        map[string]*input
	// types gives every input's type; info is the strict check of prog
	// over them (Free: every input)
	types map[string]sdql.Type
	info  *sdql.Info
	// planOnly: Prepare was given no inputs, and the program has some; its
	// inputs' types are inferred, and only Plan is possible
	planOnly bool
	warnings []string
	shapes   *shapeInfo
	// ceiling bounds a result: the budget, or the memory available
	// (memoryCeiling)
	ceiling int64

	// parent is the query a product's query was made from (with), whose
	// inputs it shares
	parent *Query

	mu      sync.Mutex
	plans   map[string]*Plan   // by wrt ("" for the value)
	kernels map[string]*Kernel // by wrt
	// extentsCache remembers the program's extents for the inputs'
	// extents of the last runs (extents)
	extentsCache map[string]extentsResult
}

// Prepare parses the program src (SDQLite, doc/spec.md) and binds its
// inputs (see Inputs). It type-checks the program against them, types
// numbers by their use (an int where the program uses one), lints it
// (Warnings), checks lookups against the inputs' shapes and the sizes the
// program certainly builds against the memory budget (Options). Errors
// name the place: "prog.sdql:3:14: cannot iterate over real (want a
// dictionary)" with Options.File "prog.sdql".
//
// With no inputs at all, a program that has some can only be planned
// (Plan), its inputs' types inferred from their use.
func Prepare(src string, inputs Inputs, opts *Options) (*Query, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	prog, err := sdql.Parse(o.File, src)
	if err != nil {
		return nil, err
	}
	q := &Query{name: o.File, prog: prog, opts: o, inputs: map[string]*input{}, ceiling: memoryCeiling(o.MemoryLimit),
		plans: map[string]*Plan{}, kernels: map[string]*Kernel{}}
	clock := startClock()
	q.structured = structure(prog, o)
	q.structureTime = clock.lap("structure", StageTime{})
	if ws, err := sdql.Lint(o.File, src); err == nil {
		for _, w := range ws {
			q.warnings = append(q.warnings, w.Error())
		}
	}
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	given := map[string]sdql.Type{}
	for _, n := range names {
		in, err := convertInput(n, inputs[n], !o.NoValidate)
		if err != nil {
			return nil, err
		}
		q.inputs[n] = in
		if t := in.typeOf(); t != nil {
			given[n] = t
		}
	}
	info, err := sdql.Check(prog, &sdql.CheckConfig{File: o.File, Inputs: given})
	if err != nil {
		return nil, explainTypeError(o.File, prog, given, err)
	}
	free := sdql.FreeVars(prog)
	for _, v := range free {
		if _, ok := q.inputs[v]; !ok {
			if len(inputs) == 0 {
				q.planOnly = true
				continue
			}
			return nil, undefined(o.File, prog, v, names)
		}
	}
	used := map[string]bool{}
	for _, v := range free {
		used[v] = true
	}
	for _, n := range names {
		if !used[n] {
			q.warnings = append(q.warnings, fmt.Sprintf("input %s is not used by the program", n))
			continue
		}
		if err := q.inputs[n].resolve(info.Free[n]); err != nil {
			return nil, err
		}
	}
	q.types = map[string]sdql.Type{}
	for n, in := range q.inputs {
		if !used[n] {
			delete(q.inputs, n)
			continue
		}
		if t := in.typeOf(); t != nil {
			q.types[n] = t
		} else {
			q.types[n] = sdql.TypeOfValue(in.logical)
		}
	}
	if q.planOnly {
		for n, t := range info.Free {
			if _, bound := q.types[n]; !bound {
				q.types[n] = t
			}
		}
		q.info = info
		return q, nil
	}
	if q.info, err = sdql.Check(prog, &sdql.CheckConfig{File: o.File, Inputs: q.types, Strict: true}); err != nil {
		return nil, err
	}
	if q.shapes, err = analyzeShapes(prog, q.types, q.dims()); err != nil {
		return nil, q.withFile(err)
	}
	if !o.NoShapeCheck {
		if err := q.shapes.check(q.name, q.dims()); err != nil {
			return nil, err
		}
	}
	if err := q.checkMemory(prog, q.info, ""); err != nil {
		return nil, err
	}
	return q, nil
}

// PrepareFile is Prepare of the program in the file at path, named path in
// messages unless opts.File says otherwise.
func PrepareFile(path string, inputs Inputs, opts *Options) (*Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the program: %v", err)
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.File == "" {
		o.File = path
	}
	return Prepare(string(b), inputs, &o)
}

// An UndefinedError is a free variable of the program that no input binds.
type UndefinedError struct {
	File string
	Pos  sdql.Pos
	Name string
	// Suggestion is the name the user probably meant: a loop or let
	// variable in scope where Name is used, or an input ("" when none is
	// close). InScope says which.
	Suggestion string
	InScope    bool
}

// Error prints "prog.sdql:1:22: undefined: y (no input binds it)", or with
// a suggestion "undefined: rr (did you mean r?)".
func (e *UndefinedError) Error() string {
	return (&sdql.Error{File: e.File, Pos: e.Pos, Msg: e.Message("no input binds it")}).Error()
}

// Message is the error's text without its place; unbound says what to do
// when nothing close to the name is in scope or bound ("bind it with --in
// y=VALUE" on the command line).
func (e *UndefinedError) Message(unbound string) string {
	switch {
	case e.Suggestion != "" && e.InScope:
		return fmt.Sprintf("undefined: %s (did you mean %s?)", e.Name, e.Suggestion)
	case e.Suggestion != "":
		return fmt.Sprintf("undefined: %s (did you mean the input %s?)", e.Name, e.Suggestion)
	}
	return fmt.Sprintf("undefined: %s (%s)", e.Name, unbound)
}

// undefined is the error of an unbound free variable: at its first use,
// "unknown function" when it is called like a misspelt operation, with
// the closest variable in scope there, or input, suggested.
func undefined(file string, prog sdql.Expr, name string, inputs []string) error {
	use, _ := sdql.FirstFreeUse(prog, name)
	if use.Called && sdql.Suggest(name, sdql.OpNames()) != "" {
		return &sdql.Error{File: file, Pos: use.Pos, Msg: sdql.UnknownFunction(name)}
	}
	e := &UndefinedError{File: file, Pos: use.Pos, Name: name}
	if len(name) < 2 {
		// every other one-letter name is one edit away: no suggestion
		return e
	}
	if s := suggestName(name, use.InScope); s != "" {
		e.Suggestion, e.InScope = s, true
	} else {
		e.Suggestion = suggestName(name, inputs)
	}
	return e
}

// suggestName is sdql.Suggest without the names that differ from name
// only in their digits (x1 for x2: numbered names are meant apart).
func suggestName(name string, candidates []string) string {
	stem := strings.TrimRight(name, "0123456789")
	var keep []string
	for _, c := range candidates {
		if c != name && strings.TrimRight(c, "0123456789") == stem && stem != name {
			continue
		}
		keep = append(keep, c)
	}
	return sdql.Suggest(name, keep)
}

// explainTypeError rewrites a type error that comes from an input bound
// with the wrong order (a matrix where the program uses a vector) as one
// naming the input: "1:21: y is a matrix here; the program uses a vector
// (y is first used at 1:21; the type error: ...)". The program is checked
// again with each input's type left to inference: an input whose
// inferred type differs from its value's, and without which the program
// checks, is the culprit. Other errors are returned as they are.
func explainTypeError(file string, prog sdql.Expr, given map[string]sdql.Type, err error) error {
	var se *sdql.Error
	var list sdql.ErrorList
	switch {
	case errors.As(err, &list) && len(list) > 0:
		se = list[0]
	case errors.As(err, &se):
	default:
		return err
	}
	names := make([]string, 0, len(given))
	for n := range given {
		names = append(names, n)
	}
	sort.Strings(names)
	// the culprit is the input whose inferred type has the lowest order
	// (the program wants less of it), then the one used nearest the error
	best, bestOrder, bestDist := "", 0, 0
	var bestWant sdql.Type
	var bestUse sdql.Pos
	for _, n := range names {
		rest := make(map[string]sdql.Type, len(given)-1)
		for m, t := range given {
			if m != n {
				rest[m] = t
			}
		}
		info, cerr := sdql.Check(prog, &sdql.CheckConfig{File: file, Inputs: rest})
		if cerr != nil {
			continue
		}
		want, ok := info.Free[n]
		if !ok || sdql.TypesEqual(want, given[n]) || len(info.Free) > len(given) {
			// unchanged, or the check passed only by inferring a name
			// nothing binds (a misspelt function): not this input
			continue
		}
		use, _ := sdql.FirstFreeUse(prog, n)
		order := sdql.Order(want)
		if order < 0 {
			order = 1 << 20
		}
		dist := abs(use.Pos.Line-se.Pos.Line)<<16 + abs(use.Pos.Col-se.Pos.Col)
		if best == "" || order < bestOrder || order == bestOrder && dist < bestDist {
			best, bestOrder, bestDist, bestWant, bestUse = n, order, dist, want, use.Pos
		}
	}
	if best == "" {
		return err
	}
	msg := fmt.Sprintf("%s is %s here; the program uses it as %s, first at %s (the type error: %s: %s)",
		best, describeType(given[best]), describeType(bestWant), bestUse, se.Pos, se.Msg)
	return &sdql.Error{File: file, Pos: bestUse, Msg: msg}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// describeType names a type as a user would: a number, a vector, a
// matrix, an order-n tensor; other types as SDQL writes them.
func describeType(t sdql.Type) string {
	switch sdql.Order(t) {
	case 0:
		return "a number"
	case 1:
		return "a vector ({int -> real})"
	case 2:
		return "a matrix ({int -> {int -> real}})"
	case -1:
		return "of type " + t.String()
	default:
		return fmt.Sprintf("an order-%d tensor", sdql.Order(t))
	}
}

// boundNames are the names of the inputs Prepare was given, sorted.
func (q *Query) boundNames() []string {
	names := make([]string, 0, len(q.inputs))
	for n := range q.inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Warnings returns the query's warnings, one a string, with their places:
// the precedence lint ("prog.sdql:1:40: the body of the sum at 1:9
// extends over '- b' ...: did you mean (sum …) - b?") and inputs the
// program does not use.
func (q *Query) Warnings() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.warnings...)
}

// warn adds a warning found after Prepare (by Compile).
func (q *Query) warn(w string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.warnings = append(q.warnings, w)
}

// Program returns the logical program.
func (q *Query) Program() sdql.Expr { return q.prog }

// Type returns the type of the program's result.
func (q *Query) Type() sdql.Type { return q.info.Result }

// InputNames returns the names of the program's inputs, sorted.
func (q *Query) InputNames() []string {
	names := make([]string, 0, len(q.types))
	for n := range q.types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Shape returns the extents of a tensor input (nil for other inputs).
func (q *Query) Shape(name string) []int {
	if in := q.inputs[name]; in != nil && in.tensor != nil {
		return append([]int(nil), in.tensor.Shape...)
	}
	return nil
}

// dims returns the extents of the tensor inputs.
func (q *Query) dims() map[string][]int {
	d := map[string][]int{}
	for n, in := range q.inputs {
		if in.tensor != nil {
			d[n] = in.tensor.Shape
		}
	}
	return d
}

// Value computes the program's value: Compile, then Run into a new
// destination.
func (q *Query) Value() (*Result, error) {
	k, err := q.Compile()
	if err != nil {
		return nil, err
	}
	r := k.NewResult()
	return r, k.Run(r, nil)
}

// Grad computes the gradient of the program with respect to each input
// named in wrt (one Result each, in order): for a result of type tensor n
// and an input of type tensor m a tensor of order n+m, the result's
// indices first, given on the input's stored positions. In reverse mode
// (Options.Mode; auto chooses it for a loss) they come from one kernel and
// one sweep; in forward mode each is a kernel of its own.
func (q *Query) Grad(wrt ...string) ([]*Result, error) {
	if len(wrt) == 0 {
		return nil, errors.New("nablasd: Grad needs the inputs to differentiate with respect to")
	}
	if len(wrt) > 1 && q.opts.Mode == "forward" {
		out := make([]*Result, len(wrt))
		for i, w := range wrt {
			g, err := q.Grad(w)
			if err != nil {
				return nil, err
			}
			out[i] = g[0]
		}
		return out, nil
	}
	return q.run(&Derivative{Wrt: wrt})
}

// ValueAndGrad computes the program's value and its gradients with
// respect to each input in wrt from one kernel and one run: in reverse
// mode the gradients' primal sweep is the value's computation.
func (q *Query) ValueAndGrad(wrt ...string) (*Result, []*Result, error) {
	if len(wrt) == 0 {
		return nil, nil, errors.New("nablasd: ValueAndGrad needs the inputs to differentiate with respect to")
	}
	rs, err := q.run(&Derivative{Wrt: wrt, Value: true})
	if err != nil {
		return nil, nil, err
	}
	return rs[0], rs[1:], nil
}

// VJP computes the vector–Jacobian product: the cotangent (a value of the
// program's result's kind, as Inputs takes) times the Jacobian, with
// respect to each input in wrt (one Result each, of the input's type), in
// reverse mode: one sweep.
func (q *Query) VJP(cotangent any, wrt ...string) ([]*Result, error) {
	if cotangent == nil {
		return nil, errors.New("nablasd: VJP needs a cotangent")
	}
	return q.run(&Derivative{Wrt: wrt, Cotangent: cotangent})
}

// JVP computes the Jacobian–vector product: the derivative of the program
// in the direction of the tangents given for some of its inputs (each of
// the input's kind and shape; the others' are zero), of the result's type.
// A tangent is taken on its input's stored positions, as the gradient is
// given on them, so that J·v = ⟨grad, v⟩ for a real result. It is forward
// mode on tangents.
func (q *Query) JVP(tangents Inputs) (*Result, error) {
	if len(tangents) == 0 {
		return nil, errors.New("nablasd: JVP needs the tangent of an input")
	}
	rs, err := q.run(&Derivative{Tangents: tangents})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// HVP computes the Hessian–vector product of a program with a real
// result: the derivative of its gradient with respect to wrt in the
// direction given (of wrt's kind and shape, taken on wrt's stored
// positions as a tangent is), forward over reverse, on wrt's stored
// positions.
func (q *Query) HVP(wrt string, direction any) (*Result, error) {
	if direction == nil {
		return nil, errors.New("nablasd: HVP needs a direction")
	}
	rs, err := q.run(&Derivative{Wrt: []string{wrt}, Direction: direction})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// run compiles what d asks for, runs it once and returns its results.
func (q *Query) run(d *Derivative) ([]*Result, error) {
	k, err := q.CompileDerivative(d)
	if err != nil {
		return nil, err
	}
	r := k.NewResult()
	if err := k.Run(r, nil); err != nil {
		return nil, err
	}
	return k.Split(r)
}

// withFile names the program's file in positioned errors that come from
// later stages (which see only the tree).
func (q *Query) withFile(err error) error {
	var e *sdql.Error
	var l sdql.ErrorList
	switch {
	case errors.As(err, &l):
		out := make(sdql.ErrorList, len(l))
		for i, x := range l {
			c := *x
			if c.File == "" {
				c.File = q.name
			}
			out[i] = &c
		}
		return out
	case errors.As(err, &e) && e.File == "":
		c := *e
		c.File = q.name
		return &c
	}
	return err
}
