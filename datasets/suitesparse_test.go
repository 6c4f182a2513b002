package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

const tinyMTX = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 1 -1.5\n"

// tinyArchive returns a SuiteSparse-like tar.gz holding NAME/NAME.mtx.
func tinyArchive(t *testing.T, name, text string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct{ name, body string }{
		{name + "/README.txt", "a test matrix\n"},
		{name + "/" + name + ".mtx", text},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// archiveServer serves archive at /Test/tiny.tar.gz, counting requests;
// truncate cuts the body in half while promising all of it.
func archiveServer(t *testing.T, archive []byte, truncate bool) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/Test/tiny.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
		if truncate {
			w.Write(archive[:len(archive)/2])
			return
		}
		w.Write(archive)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestLoadSuiteSparseDownload(t *testing.T) {
	old := progressInterval
	progressInterval = 0
	defer func() { progressInterval = old }()
	srv, hits := archiveServer(t, tinyArchive(t, "tiny", tinyMTX), false)
	cache := t.TempDir()
	var progress bytes.Buffer
	c, h, err := LoadSuiteSparse("Test/tiny", WithDataDir(cache), WithBaseURL(srv.URL), WithProgress(&progress))
	if err != nil {
		t.Fatal(err)
	}
	if c.NNZ() != 3 || h.Rows != 3 {
		t.Errorf("got %d entries, %d rows", c.NNZ(), h.Rows)
	}
	out := progress.String()
	if !strings.Contains(out, "tiny.tar.gz: ") || !strings.Contains(out, "100%") || !strings.HasSuffix(out, "/s\n") {
		t.Errorf("progress output %q", out)
	}
	sum := sha256.Sum256([]byte(tinyMTX))
	side, err := os.ReadFile(filepath.Join(cache, "tiny.sha256"))
	if want := hex.EncodeToString(sum[:]) + "  tiny.mtx\n"; err != nil || string(side) != want {
		t.Errorf("tiny.sha256 = %q, %v; want %q", side, err, want)
	}
	// A second load uses the cache.
	if _, _, err := LoadSuiteSparse("Test/tiny", WithDataDir(cache), WithBaseURL(srv.URL)); err != nil || hits.Load() != 1 {
		t.Errorf("second load: %v, %d requests", err, hits.Load())
	}
	// A changed cached file no longer matches its recorded checksum.
	os.WriteFile(filepath.Join(cache, "tiny.mtx"), []byte(strings.Replace(tinyMTX, "4", "5", 1)), 0o644)
	_, _, err = LoadSuiteSparse("Test/tiny", WithDataDir(cache), Offline())
	if err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Errorf("tampered cache: got %v", err)
	}
}

func TestLoadSuiteSparseDownloadErrors(t *testing.T) {
	archive := tinyArchive(t, "tiny", tinyMTX)
	tests := []struct {
		name     string
		matrix   string
		truncate bool
		opts     []LoadOption
		err      string
	}{
		{"404", "Test/missing", false, nil, "Test/missing: no missing.mtx, missing.mtx.gz or missing/missing.mtx in /tmp/"},
		{"404 url", "Test/missing", false, nil, "/Test/missing.tar.gz: HTTP 404 Not Found"},
		{"truncated", "Test/tiny", true, nil, "/Test/tiny.tar.gz: truncated archive: unexpected end of data"},
		{"checksum", "Test/tiny", false, []LoadOption{WithSHA256(strings.Repeat("0", 64))},
			"/Test/tiny.tar.gz: sha256 mismatch for tiny.mtx: got "},
		{"offline", "Test/tiny", false, []LoadOption{Offline()}, "Test/tiny: no tiny.mtx, tiny.mtx.gz or tiny/tiny.mtx in "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := archiveServer(t, archive, tt.truncate)
			cache := t.TempDir()
			opts := append([]LoadOption{WithDataDir(cache), WithBaseURL(srv.URL)}, tt.opts...)
			_, _, err := LoadSuiteSparse(tt.matrix, opts...)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("got %v, want an error containing %q", err, tt.err)
			}
			if left, _ := os.ReadDir(cache); len(left) != 0 {
				t.Errorf("cache holds %d files after a failed download", len(left))
			}
		})
	}
}

func TestLoadSuiteSparseLocal(t *testing.T) {
	extra := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(tinyMTX))
	zw.Close()
	os.WriteFile(filepath.Join(extra, "tiny.mtx.gz"), gz.Bytes(), 0o644)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected download of %s", r.URL)
	}))
	defer srv.Close()
	c, _, err := LoadSuiteSparse("Test/tiny", WithDataDir(t.TempDir()), WithExtraDirs(extra), WithBaseURL(srv.URL))
	if err != nil || c.NNZ() != 3 {
		t.Fatalf("got %v, %v", c, err)
	}
	// A name outside Table 1 found locally needs no group; not found, the
	// error says where it was looked for.
	os.WriteFile(filepath.Join(extra, "karate.mtx"), []byte(tinyMTX), 0o644)
	if c, _, err := LoadSuiteSparse("karate", WithDataDir(t.TempDir()), WithExtraDirs(extra), WithBaseURL(srv.URL)); err != nil || c.NNZ() != 3 {
		t.Errorf("karate without a group: %v, %v", c, err)
	}
	cache := t.TempDir()
	_, _, err = LoadSuiteSparse("west0479", WithDataDir(cache), WithExtraDirs(extra), WithBaseURL(srv.URL))
	if want := `unknown SuiteSparse matrix "west0479" (want one of bcspwr10, nopoly, pdb1HYS, rma10, cant, consph, cop20k_A, or GROUP/NAME): no west0479.mtx, west0479.mtx.gz or west0479/west0479.mtx in ` + cache + ", " + extra; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// A name one letter off a local matrix's is suggested, with its path.
	_, _, err = LoadSuiteSparse("karatee", WithDataDir(cache), WithExtraDirs(extra), WithBaseURL(srv.URL))
	if want := "; did you mean karate (" + filepath.Join(extra, "karate.mtx") + ")?"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("karatee: got %v, want it to end %q", err, want)
	}
	// The registry's dimensions are checked.
	os.WriteFile(filepath.Join(extra, "nopoly.mtx"), []byte(tinyMTX), 0o644)
	_, _, err = LoadSuiteSparse("nopoly", WithDataDir(t.TempDir()), WithExtraDirs(extra), Offline())
	if err == nil || !strings.Contains(err.Error(), "3 x 3 matrix, but Gaertner/nopoly is 10774 x 10774") {
		t.Errorf("got %v", err)
	}
}

func TestLoadSuiteSparseShared(t *testing.T) {
	dir := sharedDir(t)
	for _, m := range TableOne()[:2] {
		c, h, err := LoadSuiteSparse(m.Name, WithDataDir(t.TempDir()), WithExtraDirs(dir), Offline())
		if err != nil {
			t.Fatal(err)
		}
		if h.Rows != m.Rows || h.Entries != m.Stored || c.NNZ() != m.NNZ || h.Field != m.Field || h.Symmetry != m.Symmetry {
			t.Errorf("%s: %d rows, %d stored, %d expanded, %s %s; registry says %+v", m.Name, h.Rows, h.Entries, c.NNZ(), h.Field, h.Symmetry, m)
		}
	}
}

func TestLookupMatrix(t *testing.T) {
	for _, tt := range []struct{ in, path, err string }{
		{"cant", "Williams/cant", ""},
		{"COP20K_a", "Williams/cop20k_A", ""},
		{"Bova/rma10", "Bova/rma10", ""},
		{"HB/west0479", "HB/west0479", ""},
		{"west0479", "", `unknown SuiteSparse matrix "west0479" (want one of bcspwr10, nopoly, pdb1HYS, rma10, cant, consph, cop20k_A, or GROUP/NAME)`},
		{"../x/y", "", `unknown SuiteSparse matrix "../x/y" (want one of bcspwr10, nopoly, pdb1HYS, rma10, cant, consph, cop20k_A, or GROUP/NAME)`},
	} {
		m, err := LookupMatrix(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("LookupMatrix(%q): got %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || m.Path() != tt.path {
			t.Errorf("LookupMatrix(%q) = %s, %v; want %s", tt.in, m.Path(), err, tt.path)
		}
	}
	if got := tableOne[4].URL(""); got != "https://suitesparse-collection-website.herokuapp.com/MM/Williams/cant.tar.gz" {
		t.Errorf("URL %s", got)
	}
}
