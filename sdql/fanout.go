package sdql

// Fanout measures a nested dictionary for a cost model: its number of keys,
// then for each deeper level the average, over the dictionaries one level
// up, of their own fanout at that level. Keys count whatever their value
// ({} and 0 included); an empty dictionary gives [0].
func Fanout(d *Dict) []float64 {
	out := []float64{float64(d.Len())}
	var inner []*Dict
	d.Range(func(_ int, x Value) bool {
		if c, ok := x.(*Dict); ok {
			inner = append(inner, c)
		}
		return true
	})
	if len(inner) == 0 {
		return out
	}
	var sums []float64
	for _, c := range inner {
		for i, x := range Fanout(c) {
			if i >= len(sums) {
				sums = append(sums, 0)
			}
			sums[i] += x
		}
	}
	for _, s := range sums {
		out = append(out, s/float64(len(inner)))
	}
	return out
}
