package lower

import (
	"fmt"
	"testing"
)

// TestMapBodies checks that mapBodies hands f every statement directly
// inside each kind of statement, puts f's result in its place, leaves a
// missing else missing, and that bodyOf reads the bodies it replaced.
func TestMapBodies(t *testing.T) {
	inner := func() Stmt { return &Block{} }
	done := &Block{List: []Stmt{&Fail{}}}
	for _, tc := range []struct {
		name   string
		s      Stmt
		calls  int
		bodies func(Stmt) []Stmt
		body   bool // bodyOf reads it
	}{
		{"block", &Block{List: []Stmt{inner(), inner()}}, 2, func(s Stmt) []Stmt { return s.(*Block).List }, false},
		{"if-else", &If{Then: inner(), Else: inner()}, 2, func(s Stmt) []Stmt { return []Stmt{s.(*If).Then, s.(*If).Else} }, false},
		{"if", &If{Then: inner()}, 1, func(s Stmt) []Stmt { return []Stmt{s.(*If).Then} }, false},
		{"for", &For{Body: inner()}, 1, func(s Stmt) []Stmt { return []Stmt{s.(*For).Body} }, true},
		{"forlevel", &ForLevel{Body: inner()}, 1, func(s Stmt) []Stmt { return []Stmt{s.(*ForLevel).Body} }, true},
		{"search", &Search{Body: inner()}, 1, func(s Stmt) []Stmt { return []Stmt{s.(*Search).Body} }, true},
		{"locate", &Locate{Body: inner()}, 1, func(s Stmt) []Stmt { return []Stmt{s.(*Locate).Body} }, true},
		{"let", &Let{}, 0, func(Stmt) []Stmt { return nil }, false},
	} {
		calls := 0
		mapBodies(tc.s, func(x Stmt) Stmt {
			calls++
			if b, ok := x.(*Block); !ok || len(b.List) != 0 {
				t.Errorf("%s: f got %s, want an inner statement", tc.name, fmt.Sprintf("%T", x))
			}
			return done
		})
		if calls != tc.calls {
			t.Errorf("%s: f called %d times, want %d", tc.name, calls, tc.calls)
		}
		for i, b := range tc.bodies(tc.s) {
			if b != done {
				t.Errorf("%s: body %d not replaced", tc.name, i)
			}
		}
		if if_, ok := tc.s.(*If); ok && tc.calls == 1 && if_.Else != nil {
			t.Errorf("%s: a missing else became %s", tc.name, fmt.Sprintf("%T", if_.Else))
		}
		if got := bodyOf(tc.s); tc.body != (got == done) || !tc.body && got != nil {
			t.Errorf("%s: bodyOf = %v", tc.name, got)
		}
	}
}
