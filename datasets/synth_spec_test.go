package datasets

import (
	"reflect"
	"testing"
)

func TestParseSynthSpec(t *testing.T) {
	tests := []struct {
		in   string
		want SynthSpec
	}{
		{"rows=1000,cols=1000,density=0.01,seed=1,kind=uniform", SynthSpec{Dims: []int{1000, 1000}, Density: 0.01, Seed: 1, Kind: Uniform}},
		{"n=1000, density=0.1", SynthSpec{Dims: []int{1000}, Density: 0.1, Seed: 1}},
		{"dims=10x20x30,nnz=50,seed=7", SynthSpec{Dims: []int{10, 20, 30}, NNZ: 50, Seed: 7}},
		{"rows=9,cols=9,nnz=20,kind=banded,symmetric=true,bandwidth=3", SynthSpec{Dims: []int{9, 9}, NNZ: 20, Kind: Banded, Symmetric: true, Bandwidth: 3, Seed: 1}},
		{"rows=9,cols=8,density=0.5,kind=powerlaw,alpha=1.5", SynthSpec{Dims: []int{9, 8}, Density: 0.5, Kind: PowerLaw, Alpha: 1.5, Seed: 1}},
	}
	for _, tt := range tests {
		got, err := ParseSynthSpec(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSynthSpec(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSynthSpecErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"n=10,density=0.1,color=red", `synthetic spec "n=10,density=0.1,color=red": unknown key "color" (want n, rows, cols, dims, density, nnz, seed, kind, symmetric, bandwidth or alpha)`},
		{"n=10,density=abc", `synthetic spec "n=10,density=abc": density=abc: invalid syntax`},
		{"n=10,density=2", `synthetic spec "n=10,density=2": density=2: out of range [0, 1]`},
		{"n=-5,density=0.5", `synthetic spec "n=-5,density=0.5": n=-5: out of range 0..1099511627776`},
		{"n=10,density=0.5,kind=zipf", `synthetic spec "n=10,density=0.5,kind=zipf": kind=zipf: want uniform, banded or powerlaw`},
		{"n=10,n=11,density=0.5", `synthetic spec "n=10,n=11,density=0.5": n given twice`},
		{"n=10,rows=10,density=0.5", `synthetic spec "n=10,rows=10,density=0.5": give the shape as n=N, rows=R,cols=C or dims=AxBxC`},
		{"rows=10,density=0.5", `synthetic spec "rows=10,density=0.5": give the shape as n=N, rows=R,cols=C or dims=AxBxC`},
		{"dims=2x2x2x2,density=0.5", `synthetic spec "dims=2x2x2x2,density=0.5": dims: 4 modes (want 1, 2 or 3)`},
		{"dims=2xx2,density=0.5", `synthetic spec "dims=2xx2,density=0.5": dims=2xx2: invalid syntax`},
		{"n=10", `synthetic spec "n=10": give exactly one of density and nnz`},
		{"n=10,density", `synthetic spec "n=10,density": "density" is not key=value`},
		{"n=10,density=0.5,symmetric=maybe", `synthetic spec "n=10,density=0.5,symmetric=maybe": symmetric=maybe: invalid syntax`},
	}
	for _, tt := range tests {
		_, err := ParseSynthetic(tt.in)
		if err == nil || err.Error() != tt.err {
			t.Errorf("ParseSynthetic(%q):\n got %v\nwant %s", tt.in, err, tt.err)
		}
	}
	c, err := ParseSynthetic("dims=10x20x30,density=0.01,kind=powerlaw")
	if err != nil || c.NNZ() != 60 || c.Order() != 3 {
		t.Errorf("order-3 spec: %v, %v", c, err)
	}
}
