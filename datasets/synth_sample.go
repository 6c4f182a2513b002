package datasets

import (
	"math/rand/v2"
	"slices"
	"sort"
)

// sampleSorted returns k distinct values of [0, n), ascending, without
// allocating anything of size n unless k is at least n/2.
func sampleSorted(rng *rand.Rand, k int, n uint64) []uint64 {
	out := make([]uint64, 0, k)
	if k == 0 {
		return out
	}
	if uint64(k) >= n/2 {
		// Selection sampling (Knuth's algorithm S): one pass over [0, n).
		need := uint64(k)
		for t := uint64(0); t < n && need > 0; t++ {
			if rng.Uint64N(n-t) < need {
				out = append(out, t)
				need--
			}
		}
		return out
	}
	// Draw, sort, drop duplicates, and draw again for the missing ones.
	for len(out) < k {
		for range k - len(out) {
			out = append(out, rng.Uint64N(n))
		}
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// appendSampleRange appends k distinct ints of [lo, hi), ascending.
func appendSampleRange[T int | int32](rng *rand.Rand, dst []T, k, lo, hi int) []T {
	r := hi - lo
	switch {
	case k <= 0:
		return dst
	case k == r:
		for t := lo; t < hi; t++ {
			dst = append(dst, T(t))
		}
		return dst
	case 2*k >= r:
		need := k
		for t := 0; t < r && need > 0; t++ {
			if rng.IntN(r-t) < need {
				dst = append(dst, T(lo+t))
				need--
			}
		}
		return dst
	}
	start := len(dst)
	for len(dst)-start < k {
		for range k - (len(dst) - start) {
			dst = append(dst, T(lo+rng.IntN(r)))
		}
		s := dst[start:]
		slices.Sort(s)
		dst = dst[:start+len(slices.Compact(s))]
	}
	return dst
}

// distribute splits total into integer counts roughly proportional to the
// positive weights w, count i at most caps[i] (water filling, then largest
// remainders). The caller ensures total <= sum(caps).
func distribute(total int, w []float64, caps []int) []int {
	n := len(w)
	counts := make([]int, n)
	active := make([]int, 0, n)
	for i := range n {
		if caps[i] > 0 {
			active = append(active, i)
		}
	}
	remaining := total
	share := make([]float64, n)
	for {
		sumW := 0.0
		for _, i := range active {
			sumW += w[i]
		}
		next := active[:0]
		capped := false
		for _, i := range active {
			s := float64(remaining) * w[i] / sumW
			if s >= float64(caps[i]) {
				counts[i] = caps[i]
				capped = true
				continue
			}
			share[i] = s
			next = append(next, i)
		}
		if !capped {
			break
		}
		remaining = total
		for i := range counts {
			remaining -= counts[i]
		}
		active = next
		if len(active) == 0 {
			return counts
		}
	}
	left := remaining
	for _, i := range active {
		counts[i] = int(share[i])
		left -= counts[i]
	}
	// Give the rest to the largest fractional parts.
	sort.SliceStable(active, func(a, b int) bool {
		fa, fb := share[active[a]]-float64(int(share[active[a]])), share[active[b]]-float64(int(share[active[b]]))
		return fa > fb
	})
	for k := 0; left < 0 && k < len(active); k++ {
		if i := active[k]; counts[i] > 0 {
			counts[i]--
			left++
		}
	}
	for left > 0 {
		progress := false
		for _, i := range active {
			if left > 0 && counts[i] < caps[i] {
				counts[i]++
				left--
				progress = true
			}
		}
		if !progress {
			panic("internal error: distribute: total exceeds capacity")
		}
	}
	return counts
}
