package paper

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/datasets"
)

// TestMain lets the test binary be Run's child process of the Go systems.
func TestMain(m *testing.M) {
	if IsChild() {
		ChildMain()
		return
	}
	os.Exit(m.Run())
}

// tinyRun runs the test settings' grid (every figure and system on tiny
// inputs) into a temporary folder once per test binary.
var tiny struct {
	dir string
	res *Results
	log string
	err error
}

func tinyRun(t *testing.T) *Results {
	t.Helper()
	if tiny.dir == "" {
		tiny.dir = t.TempDir()
		dir, err := os.MkdirTemp("", "paper-test")
		if err != nil {
			t.Fatal(err)
		}
		tiny.dir = dir
		var log bytes.Buffer
		tiny.err = Run(TestSettings(), RunOptions{CSV: filepath.Join(dir, "results.csv"), FigDir: filepath.Join(dir, "figures"),
			WorkDir: filepath.Join(dir, "work"), Log: &log})
		tiny.log = log.String()
		t.Log(tiny.log)
		if tiny.err == nil {
			tiny.res, tiny.err = ReadResultsFile(filepath.Join(dir, "results.csv"))
		}
	}
	if tiny.err != nil {
		t.Fatalf("run: %v\n%s", tiny.err, tiny.log)
	}
	return tiny.res
}

// The quick run's CSV has a row for every Table 1 matrix × matrix kernel
// × nablasd system, and every system that ran agrees with the
// hand-written Go.
func TestRunCoversTable1(t *testing.T) {
	res := tinyRun(t)
	have := map[string]*Row{}
	for _, r := range res.Rows {
		have[r.Key()] = r
	}
	for _, m := range datasets.TableOne() {
		for _, k := range MatrixKernels {
			for _, sys := range []string{"arr", "dict", "gen"} {
				c := &Cell{Figure: "fig11", Panel: KernelLabel(k), X: m.Name, Kernel: k, System: sys}
				if have[c.Key()] == nil {
					t.Errorf("no row for %s × %s × %s", m.Name, k, sys)
				}
			}
		}
	}
	// the nablasd systems and the hand-written Go run on these inputs
	for _, r := range res.Rows {
		if r.Status == "wrong result" || strings.HasPrefix(r.Status, "error") {
			t.Errorf("%s: %s: %s", r.Key(), r.Status, r.Detail)
		}
		if r.OK() && r.System != "hand-reuse" && r.Check != "ok" {
			t.Errorf("%s: ok without a checked result (check %q)", r.Key(), r.Check)
		}
	}
	for _, k := range []string{"fig11|BATAx|batax|bcspwr10|arr", "fig11|SMVM|smvm|cop20k_A|dict", "fig12|SMVM n=16|smvm|2^-1|hand",
		"fig14|VVD n=64|vvd|2^-1|arr", "fig16|BATAx n=32|batax|2^-1|dict-none", "workloads|synthetic-test|mlp2|mlp2|arr"} {
		if r := have[k]; r == nil || !r.OK() {
			t.Errorf("%s: want a time, have %+v", k, r)
		}
	}
	if !strings.Contains(res.Setting("settings"), "test ") || res.Setting("machine") == "" {
		t.Errorf("the CSV's settings and machine lines: %q", res.Meta)
	}
}

// The figure beyond the paper ("ours") has, for every Table 1 matrix, a
// checked time of nablasd's arr and generated Go for SMMM w.r.t. a sparse
// B and for BATAx, the latter over pdb1HYS's banded surrogate.
func TestRunCoversOurs(t *testing.T) {
	res := tinyRun(t)
	have := map[string]*Row{}
	for _, r := range res.Rows {
		have[r.Key()] = r
	}
	for _, m := range datasets.TableOne() {
		for _, p := range []struct{ panel, kernel string }{{KernelLabel("smmm-sparse"), "smmm-sparse"}, {"BATAx (pdb1HYS banded)", "batax"}} {
			for _, sys := range []string{"arr", "gen"} {
				c := &Cell{Figure: "ours", Panel: p.panel, X: m.Name, Kernel: p.kernel, System: sys}
				r := have[c.Key()]
				if r == nil || !r.OK() || r.Check != "ok" {
					t.Errorf("%s: want a checked time, have %+v", c.Key(), r)
					continue
				}
				if p.kernel == "batax" && m.Name == "pdb1HYS" && !strings.HasPrefix(r.Source, "surrogate (banded") {
					t.Errorf("%s: over %q, want pdb1HYS's banded surrogate", c.Key(), r.Source)
				}
			}
		}
	}
}

// Every figure is written, as valid SVG and PNG.
func TestRunFigures(t *testing.T) {
	tinyRun(t)
	for _, id := range Figures {
		svg, err := os.ReadFile(filepath.Join(tiny.dir, "figures", id+".svg"))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		checkSVG(t, id, svg)
		f, err := os.Open(filepath.Join(tiny.dir, "figures", id+".png"))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s.png: %v", id, err)
		} else if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 300 {
			t.Errorf("%s.png: %v, too small", id, b)
		}
	}
}

// checkSVG checks that b is well-formed XML with an svg root and text.
func checkSVG(t *testing.T, name string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("%s.svg: %v", name, err)
			return
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s.svg: root element %q, want svg", name, root)
	}
}

// A second run over the same CSV runs nothing again: it reads the done
// cells back (here with their times changed, which the figures then show).
// A CSV written before the first_s column (here: the column cut off) is
// rewritten with it, and a third run appends its new cells to it.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	s := TestSettings()
	s.Figures, s.Systems = []string{"fig12"}, []string{"hand-reuse", "arr"}
	s.MatrixSizes, s.MatrixDensities = []int{16}, []float64{0.5}
	csvPath := filepath.Join(dir, "r.csv")
	o := RunOptions{CSV: csvPath, WorkDir: filepath.Join(dir, "work")}
	if err := Run(s, o); err != nil {
		t.Fatal(err)
	}
	first, err := ReadResultsFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Rows) != 6 { // 3 kernels × 2 systems
		t.Fatalf("%d rows, want 6", len(first.Rows))
	}
	b, _ := os.ReadFile(csvPath)
	var edited []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "figure,") || strings.HasPrefix(line, "fig12,") {
			f, err := csv.NewReader(strings.NewReader(line)).Read()
			if err != nil {
				t.Fatal(err)
			}
			f = f[:legacyColumns]
			if f[0] != "figure" {
				f[13] = "123" // time_s
			}
			var sb strings.Builder
			w := csv.NewWriter(&sb)
			w.Write(f)
			w.Flush()
			line = strings.TrimSuffix(sb.String(), "\n")
		}
		edited = append(edited, line)
	}
	os.WriteFile(csvPath, []byte(strings.Join(edited, "\n")), 0o644)
	var log bytes.Buffer
	o.Log = &log
	if err := Run(s, o); err != nil {
		t.Fatal(err)
	}
	second, err := ReadResultsFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Rows) != 6 {
		t.Errorf("after resuming: %d rows, want the same 6", len(second.Rows))
	}
	for _, r := range second.Rows {
		if r.OK() && r.Time != 123 {
			t.Errorf("%s was run again (time %g)", r.Key(), r.Time)
		}
	}
	if !strings.Contains(log.String(), "6 cells done") {
		t.Errorf("log: %s", log.String())
	}
	if second.Legacy {
		t.Errorf("a resumed legacy CSV was not rewritten with first_s")
	}
	s.Systems = []string{"hand-reuse", "arr", "hand"}
	if err := Run(s, RunOptions{CSV: csvPath, WorkDir: o.WorkDir}); err != nil {
		t.Fatal(err)
	}
	third, err := ReadResultsFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Rows) != 9 {
		t.Errorf("after the third run: %d rows, want 9", len(third.Rows))
	}
	for _, r := range third.Rows {
		if r.System == "hand" && r.OK() && !(r.First > 0) {
			t.Errorf("%s: first run %g, want its time", r.Key(), r.First)
		}
	}
	// other settings are refused rather than mixed in
	s.Name = "other"
	if err := Run(s, o); err == nil || !strings.Contains(err.Error(), "-fresh") {
		t.Errorf("resuming with other settings: %v", err)
	}
}
