package gen

import "github.com/nablasd/nablasd/sdql"

// The results of the generated kernels as sdql values (written by hand;
// the kernels are generated).

// ScalarValue is a scalar result.
func ScalarValue[T float64 | int | bool](x T) sdql.Value {
	switch v := any(x).(type) {
	case int:
		return sdql.Int(v)
	case bool:
		return sdql.Bool(v)
	}
	return sdql.Real(any(x).(float64))
}

// EntriesValue is the dictionary of order n whose values a result's
// Entries method gives (keys ascending).
func EntriesValue(n int, each func(func(keys []int, v float64) bool)) sdql.Value {
	top := sdql.NewDict()
	each(func(keys []int, v float64) bool {
		d := top
		for _, k := range keys[:n-1] {
			x, ok := d.Get(k)
			if !ok {
				x = sdql.NewDict()
				d.Set(k, x)
			}
			d = x.(*sdql.Dict)
		}
		d.Set(keys[n-1], sdql.Real(v))
		return true
	})
	return top
}
