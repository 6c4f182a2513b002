package datasets

import (
	"math"
	"math/bits"
	"slices"
)

// sortSum returns the entries sorted by their coordinates in the given
// mode order, with the values of coordinates stored twice summed (in the
// order the entries came). The input slices are not modified.
func sortSum(shape, modeOrder []int, idx [][]int, val []float64) ([][]int, []float64) {
	n := len(val)
	perm := sortedPerm(shape, modeOrder, idx, n)
	out := make([][]int, len(idx))
	for m := range out {
		out[m] = make([]int, 0, n)
	}
	vals := make([]float64, 0, n)
	for i, e := range perm {
		if i > 0 {
			p := perm[i-1]
			same := true
			for m := range idx {
				if idx[m][e] != idx[m][p] {
					same = false
					break
				}
			}
			if same {
				vals[len(vals)-1] += val[e]
				continue
			}
		}
		for m := range idx {
			out[m] = append(out[m], idx[m][e])
		}
		vals = append(vals, val[e])
	}
	return out, vals
}

// ascending reports whether the entries are sorted by their coordinates in
// the mode order, coordinates stored twice next to each other.
func ascending(idx [][]int, modeOrder []int) bool {
	if len(idx) == 0 {
		return true
	}
	n := len(idx[0])
	for e := 1; e < n; e++ {
		for _, m := range modeOrder {
			a, b := idx[m][e-1], idx[m][e]
			if a < b {
				break
			}
			if a > b {
				return false
			}
		}
	}
	return true
}

// sumAdjacent sums the values of adjacent entries with the same
// coordinates, compacting the slices in place.
func sumAdjacent(idx [][]int, val []float64) ([][]int, []float64) {
	keep := 0
	for e := range val {
		if keep > 0 {
			same := true
			for m := range idx {
				if idx[m][e] != idx[m][keep-1] {
					same = false
					break
				}
			}
			if same {
				val[keep-1] += val[e]
				continue
			}
		}
		for m := range idx {
			idx[m][keep] = idx[m][e]
		}
		val[keep] = val[e]
		keep++
	}
	for m := range idx {
		idx[m] = idx[m][:keep]
	}
	return idx, val[:keep]
}

// sortScratch is sortInPlace's buffers (a test reuses them across
// calls).
type sortScratch struct{ keys, tmp []uint64 }

// grow returns the buffers sized n.
func (sc *sortScratch) grow(n int) (keys, tmp []uint64) {
	if cap(sc.keys) < n {
		sc.keys, sc.tmp = make([]uint64, n), make([]uint64, n)
	}
	return sc.keys[:n], sc.tmp[:n]
}

// sortInPlace sorts the entries by their coordinates in mode order, ties
// in input order (as sortedPerm), rewriting idx and val in place: the
// coordinates are decoded from the sorted keys, the values gathered
// through the radix sort's spare buffer. It takes two words an entry
// (sc's, reused) where sortSum takes six (its order and keys, the radix
// sort's buffer, and a copy of the entries). It reports false, doing
// nothing, when the keys do not fit in 64 bits.
func sortInPlace(shape, modeOrder []int, idx [][]int, val []float64, sc *sortScratch) bool {
	n := len(val)
	keyBits := 0
	for _, m := range modeOrder {
		if shape[m] > 1 {
			keyBits += bits.Len(uint(shape[m] - 1))
		}
	}
	permBits := bits.Len(uint(n))
	if keyBits+permBits > 64 {
		return false
	}
	keys, tmp := sc.grow(n)
	for e := range keys {
		var k uint64
		for _, m := range modeOrder {
			if shape[m] > 1 {
				k = k<<bits.Len(uint(shape[m]-1)) | uint64(idx[m][e])
			}
		}
		keys[e] = k<<permBits | uint64(e)
	}
	radixSortWith(keys, tmp, keyBits+permBits)
	mask := uint64(1)<<permBits - 1
	for i, k := range keys {
		tmp[i] = math.Float64bits(val[k&mask])
	}
	for i, k := range keys {
		val[i] = math.Float64frombits(tmp[i])
		k >>= permBits
		for j := len(modeOrder) - 1; j >= 0; j-- {
			m := modeOrder[j]
			if shape[m] > 1 {
				w := bits.Len(uint(shape[m] - 1))
				idx[m][i] = int(k & (1<<w - 1))
				k >>= w
			} else {
				idx[m][i] = 0
			}
		}
	}
	return true
}

// sortedPerm returns the entries' order sorted by coordinates in mode
// order, ties in input order: by a radix sort of the linearized
// coordinates packed with the entry number when they fit in 64 bits, else
// by a comparison sort.
func sortedPerm(shape, modeOrder []int, idx [][]int, n int) []int {
	keyBits := 0
	for _, m := range modeOrder {
		if shape[m] > 1 {
			keyBits += bits.Len(uint(shape[m] - 1))
		}
	}
	permBits := bits.Len(uint(n))
	perm := make([]int, n)
	if keyBits+permBits > 64 {
		for e := range perm {
			perm[e] = e
		}
		slices.SortStableFunc(perm, func(a, b int) int {
			for _, m := range modeOrder {
				if d := idx[m][a] - idx[m][b]; d != 0 {
					return d
				}
			}
			return 0
		})
		return perm
	}
	keys := make([]uint64, n)
	for e := range keys {
		var k uint64
		for _, m := range modeOrder {
			if shape[m] > 1 {
				k = k<<bits.Len(uint(shape[m]-1)) | uint64(idx[m][e])
			}
		}
		keys[e] = k<<permBits | uint64(e)
	}
	radixSort(keys, keyBits+permBits)
	mask := uint64(1)<<permBits - 1
	for i, k := range keys {
		perm[i] = int(k & mask)
	}
	return perm
}

// radixSort sorts keys whose values have at most width significant bits,
// least significant digit first, 11 bits a pass.
func radixSort(keys []uint64, width int) {
	if len(keys) < 2 {
		return
	}
	radixSortWith(keys, make([]uint64, len(keys)), width)
}

// radixSortWith is radixSort with its buffer, tmp, of len(keys).
func radixSortWith(keys, tmp []uint64, width int) {
	if len(keys) < 2 {
		return
	}
	const digit = 11
	src, dst := keys, tmp
	var count [1 << digit]int
	for shift := 0; shift < width; shift += digit {
		clear(count[:])
		for _, k := range src {
			count[(k>>shift)&(1<<digit-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range src {
			d := (k >> shift) & (1<<digit - 1)
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
