package hotloops

import (
	"os"
	"strings"
	"testing"
)

// TestNames runs testdata/names.txt: each source's names, or "error" for
// one that does not parse.
func TestNames(t *testing.T) {
	data, err := os.ReadFile("testdata/names.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for strings.HasPrefix(text, "#") {
		_, text, _ = strings.Cut(text, "\n")
	}
	for i, c := range strings.Split(text, "\n====\n") {
		src, want, ok := strings.Cut(c, "\n----\n")
		if !ok {
			t.Fatalf("case %d: no ----", i)
		}
		names, err := Names("p", []byte(src))
		got := strings.Join(names, "\n")
		if err != nil {
			got = "error"
		}
		if got != strings.TrimSpace(want) {
			t.Errorf("case %d:\n%s\ngot:\n%s\nwant:\n%s", i, src, got, want)
		}
	}
}

// TestProfile: the preprocessed profile's header, and each name once
// (the compiler refuses an edge twice).
func TestProfile(t *testing.T) {
	got := string(Profile([]string{"p.F", "p.G", "p.F"}))
	want := "GO PREPROFILE V1\n" + caller + "\np.F\n0 1\n" + caller + "\np.G\n0 1\n"
	if got != want {
		t.Errorf("Profile:\n%s\nwant:\n%s", got, want)
	}
}
