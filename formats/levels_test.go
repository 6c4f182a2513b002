package formats

import (
	"fmt"
	"strings"
	"testing"
)

// TestLevels checks that every input Levels names is an input of the
// format's definition, and that together they name all of them but the
// values, for every format and order.
func TestLevels(t *testing.T) {
	for order := 1; order <= 3; order++ {
		for _, f := range ForOrder(order) {
			ls, err := Levels(f, "A", order)
			if err != nil {
				t.Fatal(err)
			}
			ins, _ := Inputs(f, "A", order)
			want := map[string]bool{}
			for _, in := range ins {
				want[in] = true
			}
			got := map[string]bool{"A_val": true}
			for _, l := range ls {
				for _, n := range []string{l.Pos, l.Idx, l.Extent} {
					if n == "" {
						continue
					}
					if !want[n] {
						t.Errorf("%s/%d level %d: %s is not an input of the definition %v", f, order, l.Level, n, ins)
					}
					got[n] = true
				}
				if l.Val != "A_val" {
					t.Errorf("%s/%d: Val %s", f, order, l.Val)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s/%d: levels name %v, the definition reads %v", f, order, got, ins)
			}
		}
	}
}

// TestLevelsCSR pins CSR's description.
func TestLevelsCSR(t *testing.T) {
	ls, err := Levels(CSR, "A", 2)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "%d %s mode=%d unique=%v pos=%s idx=%s extent=%s coord=%v positer=%v locate=%v search=%v\n",
			l.Level, l.kind, l.Mode, l.Unique, l.Pos, l.Idx, l.Extent, l.CoordIter, l.PosIter, l.Locate, l.Search)
	}
	want := "0 dense mode=0 unique=true pos= idx= extent=A_len coord=true positer=false locate=true search=false\n" +
		"1 compressed mode=1 unique=true pos=A_pos idx=A_idx extent= coord=false positer=true locate=false search=true\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}
