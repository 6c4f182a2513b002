package exec
import ("testing";"github.com/nablasd/nablasd/sdql")
func TestDbg(t *testing.T) {
	b := map[string]sdql.Value{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0,2,3}, "A_idx": sdql.IntArray{0,1,1}, "A_val": sdql.RealArray{1,2,3},
	"B_len": sdql.Int(2), "B_pos": sdql.IntArray{0,2,3}, "B_idx": sdql.IntArray{0,1,1}}
	for _, src := range []string{
		"sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) }",
		"let s = sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) } in s(1)",
		"let s = sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) } in sum(<_, k> in (0:B_len)) { unique(k) -> sum(<q, j> in B_idx(B_pos(k):B_pos(k+1))) { unique(j) -> s(k) } }",
	} {
		e, _ := sdql.Parse("", src)
		want, err := sdql.Eval(e, b)
		k, err := CompileFor(e, b, Options{})
		if err != nil { t.Fatal(err) }
		r, err := k.Run(b)
		if err != nil { t.Fatal(err) }
		t.Log(sdql.FormatValue(want), sdql.FormatValue(r.Value()))
	}
}
