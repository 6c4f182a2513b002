package exec

// lowerBound is the first index in lo..hi of the ascending arr whose
// entry is not below key (hi when none): bisection, or, with gallop (a
// search from a finger, lower.Search.Gallop), probes at steps doubling
// from lo, then bisection of the last step.
func lowerBound(arr []int, lo, hi, key int, gallop bool) int {
	if gallop {
		if lo >= hi || arr[lo] >= key {
			return lo
		}
		end := lo + 1
		for step := 1; end < hi && arr[end] < key; step <<= 1 {
			lo = end + 1
			end = lo + step
		}
		hi = min(end, hi)
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if arr[m] < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
