package ad

import (
	"strconv"

	"github.com/nablasd/nablasd/sdql"
)

// roundedValue prints v with reals rounded to 8 significant digits, so
// that golden outputs do not depend on the last bits of a sum's order.
func roundedValue(v sdql.Value) string {
	return sdql.FormatValue(roundValue(v))
}

func roundValue(v sdql.Value) sdql.Value {
	switch x := v.(type) {
	case sdql.Real:
		r, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', 8, 64), 64)
		if r == 0 {
			r = 0 // no -0
		}
		return sdql.Real(r)
	case *sdql.Dict:
		out := sdql.NewDict()
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out.Set(k, roundValue(e))
		}
		return out
	}
	return v
}
