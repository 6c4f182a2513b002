package paper

import "image/color"

// A System is one way of computing a gradient, a series of every figure.
type System struct {
	// ID names it in the CSV and on the command line.
	ID string
	// Label names it on the figures.
	Label string
	// Runner is who runs its cells: "go" (a child process of this
	// program), "gen" (the generated Go's runner) or "python" (py/peer.py).
	Runner string
	// Color draws its series.
	Color color.RGBA
}

// Systems lists every system, in the order of the figures' legends.
var Systems = []System{
	{"arr", "nablasd arr", "go", color.RGBA{0xd6, 0x27, 0x28, 0xff}},
	{"dict", "nablasd dict", "go", color.RGBA{0xff, 0x7f, 0x0e, 0xff}},
	{"gen", "nablasd generated Go", "gen", color.RGBA{0x8c, 0x56, 0x4b, 0xff}},
	{"hand", "hand-written Go (allocating)", "go", color.RGBA{0x2c, 0xa0, 0x2c, 0xff}},
	{"hand-reuse", "hand-written Go (reused dst)", "go", color.RGBA{0x17, 0xbe, 0xcf, 0xff}},
	{"torch-dense", "PyTorch dense (jacobian)", "python", color.RGBA{0x1f, 0x77, 0xb4, 0xff}},
	{"torch-sparse", "PyTorch torch.sparse", "python", color.RGBA{0x94, 0x67, 0xbd, 0xff}},
	{"scipy", "SciPy closed form", "python", color.RGBA{0x7f, 0x7f, 0x7f, 0xff}},
	{"arr-none", "arr: no normalization", "go", color.RGBA{0xf4, 0xa5, 0x82, 0xff}},
	{"arr-norm", "arr: normalization", "go", color.RGBA{0xd6, 0x60, 0x4d, 0xff}},
	{"arr-dps", "arr: normalization + DPS", "go", color.RGBA{0xb2, 0x18, 0x2b, 0xff}},
	{"dict-none", "dict: no normalization", "go", color.RGBA{0x92, 0xc5, 0xde, 0xff}},
	{"dict-norm", "dict: normalization", "go", color.RGBA{0x43, 0x93, 0xc3, 0xff}},
	{"dict-dps", "dict: normalization + DPS", "go", color.RGBA{0x21, 0x66, 0xac, 0xff}},
}

// SystemByID returns the system of that ID.
func SystemByID(id string) (System, bool) {
	for _, s := range Systems {
		if s.ID == id {
			return s, true
		}
	}
	return System{}, false
}

// Kernel kinds: the paper's matrix kernels (over a sparse matrix A) and
// vector kernels (over a sparse vector), and the kernels beyond the paper
// of the "ours" figure: SMMM with respect to a sparse B ("smmm-sparse": B
// is A in CSR, the gradient is given on B's stored positions, nnz(B)
// values, where the paper's dense B makes it n × n).
var (
	MatrixKernels = []string{"batax", "smmm", "smvm"}
	VectorKernels = []string{"vva", "vvd", "vsm"}
	OurKernels    = []string{"smmm-sparse"}
)

// benchKernel is the kernel of package bench (bench.Logical, bench.Wrt) a
// kernel of the figures computes: "smmm-sparse" is SMMM over other inputs.
func benchKernel(k string) string {
	if k == "smmm-sparse" {
		return "smmm"
	}
	return k
}

// KernelLabel is a kernel's name as the paper prints it.
func KernelLabel(k string) string {
	switch k {
	case "batax":
		return "BATAx"
	case "smmm", "smvm", "vva", "vvd", "vsm":
		return map[string]string{"smmm": "SMMM", "smvm": "SMVM", "vva": "VVA", "vvd": "VVD", "vsm": "VSM"}[k]
	case "smmm-sparse":
		return "SMMM (sparse B)"
	}
	return k
}

func isVectorKernel(k string) bool {
	for _, v := range VectorKernels {
		if v == k {
			return true
		}
	}
	return false
}
