package bench

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// writeNpy writes a float64 (kind 'f') or int64 ('i') array of the given
// shape, row-major, as a NumPy .npy file (format version 1.0): what a
// Python peer reads exactly and fast (np.load).
func writeNpy(path string, shape []int, f []float64, i []int) error {
	dims := make([]string, len(shape))
	for k, n := range shape {
		dims[k] = fmt.Sprint(n)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	descr := "<f8"
	if f == nil {
		descr = "<i8"
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	// magic (6) + version (2) + length (2) + header + '\n', a multiple of 64
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(file, 1<<20)
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	var b [8]byte
	for _, x := range f {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		w.Write(b[:])
	}
	for _, x := range i {
		binary.LittleEndian.PutUint64(b[:], uint64(int64(x)))
		w.Write(b[:])
	}
	if err := w.Flush(); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// WriteNpy writes the data as .npy files into dir, for a Python peer:
// A_indptr, A_indices, A_data and A_shape (its CSR arrays, exactly),
// x, b, y, U (rows × K) and W (cols × K), and lambda (a 1-array).
func (d *WorkloadData) WriteNpy(dir string) error {
	files := []struct {
		name  string
		shape []int
		f     []float64
		i     []int
	}{
		{"A_indptr", []int{len(d.A.Pos[1])}, nil, d.A.Pos[1]},
		{"A_indices", []int{len(d.A.Idx[1])}, nil, d.A.Idx[1]},
		{"A_data", []int{len(d.A.Val)}, d.A.Val, nil},
		{"A_shape", []int{2}, nil, []int{d.Rows(), d.Cols()}},
		{"x", []int{len(d.X)}, d.X, nil},
		{"b", []int{len(d.B)}, d.B, nil},
		{"y", []int{len(d.Y)}, d.Y, nil},
		{"U", []int{d.Rows(), d.K}, d.U, nil},
		{"W", []int{d.Cols(), d.K}, d.W, nil},
		{"lambda", []int{1}, []float64{d.Lambda}, nil},
	}
	for _, f := range files {
		if f.f == nil && f.i == nil {
			f.i = []int{} // an empty int array
		}
		if err := writeNpy(filepath.Join(dir, f.name+".npy"), f.shape, f.f, f.i); err != nil {
			return err
		}
	}
	return nil
}
