package bench

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

// workload is a program to differentiate: its text and the input its
// gradient is taken with respect to.
type workload struct {
	name, src, wrt string
}

// workloads returns the workload programs (Workloads, read from
// WorkloadDir; absent: none, with a reason) and the tanh stacks of depth 1
// to 5 (sdqlgen.TanhStack), by name, each with the input its gradient is
// taken with respect to.
func workloads(tb testing.TB) []workload {
	var out []workload
	for d := 1; d <= 5; d++ {
		out = append(out, workload{fmt.Sprintf("tanh%d", d), sdqlgen.TanhStack(d), "x"})
	}
	for _, w := range Workloads {
		src, _, why, err := WorkloadSource(w.Name)
		if err != nil {
			tb.Fatal(err)
		}
		if why != "" {
			tb.Logf("only the tanh stacks: %s", why)
			break
		}
		out = append(out, workload{w.Name, src, w.Wrt})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// prepareMode prepares a logical program over those of inputs it reads,
// as nablasd grad does, in a differentiation mode ("auto", "forward" or
// "reverse").
func prepareMode(src, mode string, inputs nablasd.Inputs) (*nablasd.Query, error) {
	prog, err := sdql.Parse("", src)
	if err != nil {
		return nil, err
	}
	in := nablasd.Inputs{}
	for _, n := range sdql.FreeVars(prog) {
		if x, ok := inputs[n]; ok {
			in[n] = x
		}
	}
	return nablasd.Prepare(src, in, &nablasd.Options{Mode: mode, Exec: "compiled"})
}

// workloadInputs binds every workload input of d (WorkloadData.Inputs).
func workloadInputs(tb testing.TB, d *WorkloadData) nablasd.Inputs {
	in, err := d.Inputs([]string{"A", "R", "x", "b", "y", "lambda", "U", "W"})
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// loadWorkloadData loads one of WorkloadInputs as WorkloadData (nil, with
// a reason logged, when its file is absent).
func loadWorkloadData(tb testing.TB, input string) *WorkloadData {
	m, why, err := LoadInput(input)
	if err != nil {
		tb.Fatal(err)
	}
	if m == nil {
		tb.Logf("skipping %s: %s", input, why)
		return nil
	}
	d, err := NewWorkloadData(input, m, FactorizationK)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// compiled is a program's value or gradient through the root package's
// pipeline and kernel compiler (the closures: Options.Exec "compiled").
type compiled struct {
	k    *nablasd.Kernel
	res  *nablasd.Result
	mode ad.Mode
}

// compileWorkload compiles w's value (wrt "") or its gradient with
// respect to wrt in a mode.
func compileWorkload(tb testing.TB, w workload, wrt string, mode ad.Mode, inputs nablasd.Inputs) *compiled {
	tb.Helper()
	q, err := prepareMode(w.src, mode.String(), inputs)
	if err != nil {
		tb.Fatalf("%s: %v", w.name, err)
	}
	var ws []string
	if wrt != "" {
		ws = []string{wrt}
	}
	k, err := q.Compile(ws...)
	if err != nil {
		tb.Fatalf("%s: %v", w.name, err)
	}
	r := k.NewResult()
	if err := k.Run(r, nil); err != nil {
		tb.Fatalf("%s: %v", w.name, err)
	}
	return &compiled{k: k, res: r, mode: k.Plan().Mode}
}

func (c *compiled) run(tb testing.TB) time.Duration {
	start := time.Now()
	if err := c.k.Run(c.res, nil); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// TestWorkloadGradients runs every workload and tanh stack through the
// pipeline on a small matrix in each mode: the compiled gradients agree
// with each other and with the interpreter on the logical reverse-mode
// gradient.
func TestWorkloadGradients(t *testing.T) {
	m, err := datasets.ParseSynthetic("rows=60,cols=60,density=0.05,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewWorkloadData("small", m, 4)
	if err != nil {
		t.Fatal(err)
	}
	inputs := workloadInputs(t, d)
	logical, err := d.Logical([]string{"A", "R", "x", "b", "y", "lambda", "U", "W"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workloads(t) {
		prog := sdql.MustParse(w.src)
		in := map[string]sdql.Value{}
		types := map[string]sdql.Type{}
		for _, n := range sdql.FreeVars(prog) {
			in[n], types[n] = logical[n], sdql.TypeOfValue(logical[n])
		}
		st, err := ad.Reverse(prog, &ad.Request{Wrt: []string{w.wrt}}, types)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(st.Result, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []ad.Mode{ad.ModeForward, ad.ModeReverse, ad.ModeAuto} {
			if mode == ad.ModeForward && strings.HasPrefix(w.name, "tanh") && w.name > "tanh3" {
				continue // forward mode's Jacobians of deep stacks are slow to build even here
			}
			c := compileWorkload(t, w, w.wrt, mode, inputs)
			if got := c.res.Value(); !sdql.Equal(got, want) {
				t.Errorf("%s, %s mode: the compiled gradient differs from the interpreted reverse one", w.name, mode)
			}
		}
	}
}

// forwardAffordable reports whether forward mode's gradient of a workload
// is measured on an input: forward mode builds the Jacobian of every
// intermediate, a sparse matrix product per tanh layer past the first
// (A·diag·A), which on the 4M-entry synthetic matrix, or for three layers
// and more, takes minutes and gigabytes (the motivation).
func forwardAffordable(w workload, input string) bool {
	deep := w.name == "mlp2" || strings.HasPrefix(w.name, "tanh") && w.name != "tanh1"
	if !deep {
		return true
	}
	return !strings.HasPrefix(input, "synthetic") && (w.name == "mlp2" || w.name == "tanh2")
}

// BenchmarkCheapGradient times the gradient of every workload
// (../shared/workloads) and of the tanh stacks of depth 1 to 5 against
// the program itself, both through the whole pipeline (fuse, compiled
// kernel), on e40r0000 and on the synthetic 200,000² matrix with 4M
// entries. Each iteration runs the program and the gradient once, in
// alternating order; the metric grad/eval is the median of the
// iterations' ratios (the cheap-gradient bound is 4), with the medians of
// both times. mode=auto is the mode the CLI chooses (named in the
// sub-benchmark), reverse and forward are forced; forward is left out
// where it takes minutes (forwardAffordable). For the workloads, the
// hand-written closed form of the gradient (WorkloadCase.Hand, checked
// equal) runs after both, and grad/hand is the median ratio of the
// gradient's time to it.
func BenchmarkCheapGradient(b *testing.B) {
	for _, input := range WorkloadInputs {
		d := loadWorkloadData(b, input)
		if d == nil {
			continue
		}
		inputs := workloadInputs(b, d)
		for _, w := range workloads(b) {
			var eval *compiled // compiled on first use: -bench may leave it out
			for _, mode := range []ad.Mode{ad.ModeAuto, ad.ModeReverse, ad.ModeForward} {
				if mode == ad.ModeForward && !forwardAffordable(w, input) {
					continue
				}
				name := fmt.Sprintf("prog=%s/input=%s/mode=%s", w.name, input, mode)
				if mode == ad.ModeAuto {
					q, err := prepareMode(w.src, "auto", inputs)
					if err != nil {
						b.Fatal(err)
					}
					p, err := q.Plan(w.wrt)
					if err != nil {
						b.Fatal(err)
					}
					name += "(" + p.Mode.String() + ")"
				}
				var grad *compiled
				b.Run(name, func(b *testing.B) {
					if eval == nil {
						eval = compileWorkload(b, w, "", ad.ModeAuto, inputs)
					}
					if grad == nil {
						grad = compileWorkload(b, w, w.wrt, mode, inputs)
					}
					hand := handGradient(b, w, d, grad)
					var evals, grads, hands, ratios, handRatios []float64
					i := 0
					for b.Loop() {
						var te, tg, th time.Duration
						if i%2 == 0 {
							te, tg = eval.run(b), grad.run(b)
						} else {
							tg, te = grad.run(b), eval.run(b)
						}
						if hand != nil {
							start := time.Now()
							hand()
							th = time.Since(start)
							hands = append(hands, float64(th))
							handRatios = append(handRatios, float64(tg)/float64(th))
						}
						i++
						evals, grads = append(evals, float64(te)), append(grads, float64(tg))
						ratios = append(ratios, float64(tg)/float64(te))
					}
					b.ReportMetric(median(ratios), "grad/eval")
					b.ReportMetric(median(evals)/1e6, "eval-ms")
					b.ReportMetric(median(grads)/1e6, "grad-ms")
					if hand != nil {
						b.ReportMetric(median(handRatios), "grad/hand")
						b.ReportMetric(median(hands)/1e6, "hand-ms")
					}
				})
			}
		}
	}
}

// handGradient returns the run of the hand-written closed form of a
// workload's gradient over d (WorkloadCase.Hand), after checking that it
// gives grad's result; nil for a program without one (the tanh stacks).
func handGradient(b *testing.B, w workload, d *WorkloadData, grad *compiled) func() {
	wl, ok := WorkloadByName(w.name)
	if !ok {
		return nil
	}
	cs, why, err := NewWorkloadCase(wl, "grad", d, nil)
	if err != nil {
		b.Fatal(err)
	}
	if why != "" {
		return nil
	}
	cs.Hand()
	if got, want := grad.res.Value(), cs.HandValue(); !sdql.Equal(got, want) {
		b.Fatalf("%s: the compiled gradient (%s mode) differs from the hand-written closed form", w.name, grad.mode)
	}
	return cs.Hand
}

// BenchmarkCheapGradientWork reports the cheap-gradient ratio on operation
// counts (sdql.Work, independent of the machine): the reference
// interpreter's work on the logical reverse-mode gradient over its work on
// the program, as work-ratio, on the same programs and inputs as
// BenchmarkCheapGradient; and forward mode's where it is affordable
// (fwd-work-ratio). The interpreter takes seconds per program on the
// synthetic input; the time per operation is not the point.
func BenchmarkCheapGradientWork(b *testing.B) {
	for _, input := range WorkloadInputs {
		d := loadWorkloadData(b, input)
		if d == nil {
			continue
		}
		logical, err := d.Logical([]string{"A", "R", "x", "b", "y", "lambda", "U", "W"})
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range workloads(b) {
			b.Run(fmt.Sprintf("prog=%s/input=%s", w.name, input), func(b *testing.B) {
				prog := sdql.MustParse(w.src)
				in := map[string]sdql.Value{}
				types := map[string]sdql.Type{}
				for _, n := range sdql.FreeVars(prog) {
					in[n], types[n] = logical[n], sdql.TypeOfValue(logical[n])
				}
				st, err := ad.Reverse(prog, &ad.Request{Wrt: []string{w.wrt}}, types)
				if err != nil {
					b.Fatal(err)
				}
				var fwd sdql.Expr
				if forwardAffordable(w, input) && !strings.HasPrefix(input, "synthetic") {
					if fwd, err = ad.Grad(prog, w.wrt, types); err != nil {
						b.Fatal(err)
					}
				}
				work := func(e sdql.Expr) float64 {
					it := &sdql.Interp{}
					if _, err := it.Eval(e, in); err != nil {
						b.Fatal(err)
					}
					return float64(it.Work.Total())
				}
				for b.Loop() {
					base := work(prog)
					b.ReportMetric(work(st.Result)/base, "work-ratio")
					if fwd != nil {
						b.ReportMetric(work(fwd)/base, "fwd-work-ratio")
					}
				}
			})
		}
	}
}

// BenchmarkModes times the paper's six kernels' gradients (bench.Kernels
// over bench.Inputs) in forward and in reverse mode, interleaved, and
// reports which mode auto chooses and auto/best: the median of the
// iterations' ratios of auto's time to the faster mode's (the issue asks
// for at most 1.1).
func BenchmarkModes(b *testing.B) {
	eachCase(b, func(cs *Case) {
		w := workload{name: cs.Kernel, src: Logical[cs.Kernel], wrt: Wrt[cs.Kernel]}
		fwd := compileWorkload(b, w, w.wrt, ad.ModeForward, cs.Inputs)
		rev := compileWorkload(b, w, w.wrt, ad.ModeReverse, cs.Inputs)
		auto := compileWorkload(b, w, w.wrt, ad.ModeAuto, cs.Inputs)
		b.Run(cs.Name()+"/auto="+auto.mode.String(), func(b *testing.B) {
			var fs, rs, ratios []float64
			i := 0
			for b.Loop() {
				var tf, tr time.Duration
				if i%2 == 0 {
					tf, tr = fwd.run(b), rev.run(b)
				} else {
					tr, tf = rev.run(b), fwd.run(b)
				}
				i++
				fs, rs = append(fs, float64(tf)), append(rs, float64(tr))
				ta, best := tf, min(tf, tr)
				if auto.mode == ad.ModeReverse {
					ta = tr
				}
				ratios = append(ratios, float64(ta)/float64(best))
			}
			b.ReportMetric(median(fs)/1e3, "fwd-µs")
			b.ReportMetric(median(rs)/1e3, "rev-µs")
			b.ReportMetric(median(ratios), "auto/best")
		})
	})
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
