package bench

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// Spelled variants: each workload, each of the six kernels (Logical) and
// the hand-written physical programs with index arithmetic
// (kernels/*.sdql) written another way that computes the same function,
// as users write them. A kernel's speed must not depend on the spelling
// (STYLE.md), so the benchmarks time each variant next to its original.
//
// A variant is a file variants/ORIGINAL.SPELLING.sdql whose first lines
// name what it varies:
//
//	// original: workload least_squares
//	// spelling: let_inlined
//	// r and d inlined: each is used once.
//	0.5 * sum(<i, v> in ...
//
// The original is "workload NAME" (../shared/workloads/NAME.sdql),
// "kernel NAME" (Logical[NAME]), "physical NAME" (kernels/NAME.sdql),
// "example NAME" (examples/NAME.sdql, Examples) or "index NAME" (an
// index-arithmetic workload, workloads/NAME.sdql, IndexWorkloads).
// The spelling is one of Spellings; further comment lines say what
// changed and why it is the same function.

//go:embed variants/*.sdql
var variantFiles embed.FS

// Spellings are the ways a variant may differ from its original.
var Spellings = []string{
	// commuted: operands of + and * swapped (also a - b written -b + a).
	"commuted",
	// one_plus_i: index arithmetic i + 1 written 1 + i.
	"one_plus_i",
	// let_inlined: a let-bound value used once written in place.
	"let_inlined",
	// let_bound: a subexpression bound by a let and used through it.
	"let_bound",
	// loops_swapped: two independent nested loops in the other order.
	"loops_swapped",
	// inline: every let written at each of its uses: a term repeated
	// where the original shares it, a dictionary built inside the loop
	// that looks it up.
	"inline",
}

// The kinds of original a variant may name.
const (
	OfWorkload = "workload"
	OfKernel   = "kernel"
	OfPhysical = "physical"
	OfExample  = "example"
	OfIndex    = "index"
)

// A Variant is one spelled variant of a program.
type Variant struct {
	// File is the variant's file name (variants/ORIGINAL.SPELLING.sdql).
	File string
	// Kind and Original name the original: Kind is OfWorkload, OfKernel,
	// OfPhysical, OfExample or OfIndex.
	Kind, Original string
	// Spelling is how it differs (one of Spellings), and its name in
	// benchmark names (variant=SPELLING).
	Spelling string
	// Src is the file's text, header included.
	Src string
}

var (
	variantsOnce sync.Once
	variantsAll  []*Variant
	variantsErr  error
)

// Variants returns every variant of variants/*.sdql, sorted by file name.
// A malformed header is an error naming the file and line.
func Variants() ([]*Variant, error) {
	variantsOnce.Do(func() {
		ents, err := variantFiles.ReadDir("variants")
		if err != nil {
			variantsErr = err
			return
		}
		for _, e := range ents {
			b, err := variantFiles.ReadFile("variants/" + e.Name())
			if err != nil {
				variantsErr = err
				return
			}
			v, err := ParseVariant(e.Name(), string(b))
			if err != nil {
				variantsErr = err
				return
			}
			variantsAll = append(variantsAll, v)
		}
		sort.Slice(variantsAll, func(i, j int) bool { return variantsAll[i].File < variantsAll[j].File })
	})
	return variantsAll, variantsErr
}

// VariantsOf returns the variants of one original, sorted by spelling.
func VariantsOf(kind, original string) ([]*Variant, error) {
	all, err := Variants()
	if err != nil {
		return nil, err
	}
	var out []*Variant
	for _, v := range all {
		if v.Kind == kind && v.Original == original {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spelling < out[j].Spelling })
	return out, nil
}

// ParseVariant reads a variant's header: the file must be named
// ORIGINAL.SPELLING.sdql and begin with comment lines "// original: KIND
// NAME" and "// spelling: SPELLING" agreeing with its name, and its
// program must parse. Errors name the file and line.
func ParseVariant(file, src string) (*Variant, error) {
	base := path.Base(file)
	stem, ok := strings.CutSuffix(base, ".sdql")
	orig, spelling, ok2 := strings.Cut(stem, ".")
	if !ok || !ok2 || orig == "" || spelling == "" {
		return nil, fmt.Errorf("%s: a variant's file is named ORIGINAL.SPELLING.sdql", base)
	}
	v := &Variant{File: base, Src: src}
	for n, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		text, isComment := strings.CutPrefix(line, "//")
		if !isComment {
			break
		}
		key, val, ok := strings.Cut(strings.TrimSpace(text), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "original":
			kind, name, ok := strings.Cut(val, " ")
			if !ok || !slices.Contains([]string{OfWorkload, OfKernel, OfPhysical, OfExample, OfIndex}, kind) || strings.TrimSpace(name) == "" {
				return nil, fmt.Errorf("%s:%d: want \"// original: KIND NAME\" with KIND workload, kernel, physical, example or index", base, n+1)
			}
			v.Kind, v.Original = kind, strings.TrimSpace(name)
			if v.Original != orig {
				return nil, fmt.Errorf("%s:%d: the original %s is not the file's (%s)", base, n+1, v.Original, orig)
			}
		case "spelling":
			if !slices.Contains(Spellings, val) {
				return nil, fmt.Errorf("%s:%d: unknown spelling %q (want one of %s)", base, n+1, val, strings.Join(Spellings, ", "))
			}
			if val != spelling {
				return nil, fmt.Errorf("%s:%d: the spelling %s is not the file's (%s)", base, n+1, val, spelling)
			}
			v.Spelling = val
		}
	}
	if v.Kind == "" || v.Spelling == "" {
		return nil, fmt.Errorf("%s:1: a variant begins with \"// original: KIND NAME\" and \"// spelling: SPELLING\"", base)
	}
	if _, err := sdql.Parse(base, src); err != nil {
		return nil, err
	}
	return v, nil
}

// OriginalSource returns the text of a variant's original: the workload's
// file, the kernel's logical program, the physical program of kernels/
// or the example's file. why is non-empty when a workload's folder is absent.
func (v *Variant) OriginalSource() (src, why string, err error) {
	switch v.Kind {
	case OfWorkload:
		src, _, why, err := WorkloadSource(v.Original)
		return src, why, err
	case OfKernel:
		src, ok := Logical[v.Original]
		if !ok {
			return "", "", fmt.Errorf("%s: no kernel %s", v.File, v.Original)
		}
		return src, "", nil
	case OfPhysical:
		b, err := kernelFiles.ReadFile("kernels/" + v.Original + ".sdql")
		if err != nil {
			return "", "", fmt.Errorf("%s: no physical program kernels/%s.sdql", v.File, v.Original)
		}
		return string(b), "", nil
	case OfExample:
		src, err := ExampleSource(v.Original)
		if err != nil {
			return "", "", fmt.Errorf("%s: %v", v.File, err)
		}
		return src, "", nil
	case OfIndex:
		src, err := IndexSource(v.Original)
		if err != nil {
			return "", "", fmt.Errorf("%s: %v", v.File, err)
		}
		return src, "", nil
	}
	return "", "", fmt.Errorf("%s: unknown kind of original %q", v.File, v.Kind)
}

// KernelVariants are a kernel's variants of one program: of its logical
// program (Prog "logical", OfKernel) or of its hand-written physical
// program kernels/KERNEL_FORMAT.sdql (Prog "physical", OfPhysical).
type KernelVariants struct {
	Kernel, Format, Prog string
	Variants             []*Variant
}

// Case builds the case of the original (v nil: the pipeline's program of
// the logical kernel, or the physical program) or of one variant.
func (kv KernelVariants) Case(input string, m *datasets.Coords, v *Variant) (*Case, error) {
	if v == nil && kv.Prog == "physical" {
		return OriginalCase(kv.Kernel, kv.Format, input, m)
	}
	return NewVariantCase(kv.Kernel, kv.Format, input, m, v)
}

// KernelVariantCases returns the kernel's variants, those of the logical
// program first, leaving out a program without any.
func KernelVariantCases(kernel, format string) ([]KernelVariants, error) {
	var out []KernelVariants
	for _, kind := range []string{OfKernel, OfPhysical} {
		name, prog := kernel, "logical"
		if kind == OfPhysical {
			name, prog = kernel+"_"+format, "physical"
		}
		vs, err := VariantsOf(kind, name)
		if err != nil {
			return nil, err
		}
		if len(vs) > 0 {
			out = append(out, KernelVariants{Kernel: kernel, Format: format, Prog: prog, Variants: vs})
		}
	}
	return out, nil
}
