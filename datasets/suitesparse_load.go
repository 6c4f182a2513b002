package datasets

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// LoadOption configures LoadSuiteSparse and FetchSuiteSparse.
type LoadOption func(*loadConfig)

type loadConfig struct {
	dataDir   string
	extraDirs []string
	baseURL   string
	progress  io.Writer
	client    *http.Client
	offline   bool
	sha256    string
	// unknown is LookupMatrix's error for a name without a group that is
	// not in Table 1: it cannot be downloaded
	unknown error
}

// WithDataDir sets the cache directory (default DataDir()).
func WithDataDir(dir string) LoadOption { return func(c *loadConfig) { c.dataDir = dir } }

// WithExtraDirs adds directories searched, after the cache, for NAME.mtx
// and NAME.mtx.gz.
func WithExtraDirs(dirs ...string) LoadOption {
	return func(c *loadConfig) { c.extraDirs = append(c.extraDirs, dirs...) }
}

// WithBaseURL downloads from base instead of DefaultBaseURL.
func WithBaseURL(base string) LoadOption { return func(c *loadConfig) { c.baseURL = base } }

// WithProgress draws download progress on w.
func WithProgress(w io.Writer) LoadOption { return func(c *loadConfig) { c.progress = w } }

// WithHTTPClient downloads with client instead of http.DefaultClient.
func WithHTTPClient(client *http.Client) LoadOption {
	return func(c *loadConfig) { c.client = client }
}

// Offline forbids downloading: a matrix not found locally is an error.
func Offline() LoadOption { return func(c *loadConfig) { c.offline = true } }

// WithSHA256 sets the expected SHA-256 (hex) of the matrix's Matrix Market
// text, overriding KnownSHA256.
func WithSHA256(sum string) LoadOption {
	return func(c *loadConfig) { c.sha256 = strings.ToLower(sum) }
}

// DataDir returns the cache directory of downloaded matrices: $NABLASD_DATA
// if set, otherwise "nablasd" in the user's cache directory.
func DataDir() (string, error) {
	if d := os.Getenv("NABLASD_DATA"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: set NABLASD_DATA (%v)", err)
	}
	return filepath.Join(d, "nablasd"), nil
}

// LoadSuiteSparse loads a SuiteSparse matrix by name (see LookupMatrix).
// It looks for NAME.mtx, NAME.mtx.gz or NAME/NAME.mtx in the cache
// directory and then in the extra directories; when none is there it
// downloads GROUP/NAME.tar.gz into the cache (see FetchSuiteSparse). A
// file with a NAME.sha256 beside it, written at download, is checked
// against it while it is read, and so is any file when an expected
// checksum is known (WithSHA256, KnownSHA256).
func LoadSuiteSparse(name string, opts ...LoadOption) (*Coords, *Header, error) {
	m, cfg, err := loadSetup(name, opts)
	if err != nil {
		return nil, nil, err
	}
	p, err := fetch(m, cfg)
	if err != nil {
		return nil, nil, err
	}
	want := cfg.sha256
	if want == "" {
		want = KnownSHA256[m.Name]
	}
	sidecar := filepath.Join(filepath.Dir(p), m.Name+".sha256")
	if b, err := os.ReadFile(sidecar); err == nil && want == "" {
		if f := strings.Fields(string(b)); len(f) > 0 {
			want = strings.ToLower(f[0])
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var h hash.Hash
	if want != "" {
		h = sha256.New()
	}
	c, hdr, err := readMatrixMarketHashed(f, filepath.Base(p), inputSize(f), h)
	if err != nil {
		return nil, nil, err
	}
	if h != nil {
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			return nil, nil, fmt.Errorf("%s: sha256 mismatch: got %s, want %s (delete the file and %s to download it again)", p, got, want, sidecar)
		}
	}
	if m.Rows > 0 && (hdr.Rows != m.Rows || hdr.Cols != m.Cols) {
		return nil, nil, fmt.Errorf("%s: %d x %d matrix, but %s is %d x %d", p, hdr.Rows, hdr.Cols, m.Path(), m.Rows, m.Cols)
	}
	return c, hdr, nil
}

// FetchSuiteSparse returns the path of a local copy of the named matrix,
// downloading it into the cache directory first if there is none: the
// archive's NAME/NAME.mtx is written atomically as NAME.mtx, with the
// SHA-256 of its text in NAME.sha256.
func FetchSuiteSparse(name string, opts ...LoadOption) (string, error) {
	m, cfg, err := loadSetup(name, opts)
	if err != nil {
		return "", err
	}
	return fetch(m, cfg)
}

func loadSetup(name string, opts []LoadOption) (Matrix, *loadConfig, error) {
	m, err := LookupMatrix(name)
	cfg := &loadConfig{}
	if err != nil {
		if strings.Contains(name, "/") || !validName(name) {
			return m, nil, err
		}
		// a name outside Table 1 without its group: found locally, or an
		// error saying where it was looked for
		m, cfg.unknown = Matrix{Name: name}, err
	}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.dataDir == "" {
		if cfg.dataDir, err = DataDir(); err != nil {
			return m, nil, err
		}
	}
	return m, cfg, nil
}

// fetch finds the matrix locally or downloads it.
func fetch(m Matrix, cfg *loadConfig) (string, error) {
	var tried []string
	for _, dir := range append([]string{cfg.dataDir}, cfg.extraDirs...) {
		for _, f := range []string{m.Name + ".mtx", m.Name + ".mtx.gz", filepath.Join(m.Name, m.Name+".mtx")} {
			p := filepath.Join(dir, f)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
		tried = append(tried, dir)
	}
	where := fmt.Sprintf("no %s.mtx, %s.mtx.gz or %s/%s.mtx in %s", m.Name, m.Name, m.Name, m.Name, strings.Join(tried, ", "))
	switch {
	case cfg.unknown != nil:
		if name, path := nearestLocal(m.Name, append([]string{cfg.dataDir}, cfg.extraDirs...)); name != "" {
			return "", fmt.Errorf("%v: %s; did you mean %s (%s)?", cfg.unknown, where, name, path)
		}
		return "", fmt.Errorf("%v: %s", cfg.unknown, where)
	case cfg.offline:
		return "", fmt.Errorf("%s: %s, and downloading is off", m.Path(), where)
	}
	p, err := download(m, cfg)
	if err != nil {
		return "", fmt.Errorf("%s: %s, and %w", m.Path(), where, err)
	}
	return p, nil
}

// nearestLocal returns the matrix in dirs (NAME.mtx, NAME.mtx.gz or
// NAME/NAME.mtx) whose name is closest to name, and its path, or "" when
// none is close (sdql.Suggest).
func nearestLocal(name string, dirs []string) (string, string) {
	paths := map[string]string{}
	var names []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			n, p := "", filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if st, err := os.Stat(filepath.Join(p, e.Name()+".mtx")); err == nil && st.Mode().IsRegular() {
					n, p = e.Name(), filepath.Join(p, e.Name()+".mtx")
				}
			case strings.HasSuffix(e.Name(), ".mtx.gz"):
				n = strings.TrimSuffix(e.Name(), ".mtx.gz")
			case strings.HasSuffix(e.Name(), ".mtx"):
				n = strings.TrimSuffix(e.Name(), ".mtx")
			}
			if n != "" && paths[n] == "" {
				paths[n] = p
				names = append(names, n)
			}
		}
	}
	if s := sdql.Suggest(name, names); s != "" {
		return s, paths[s]
	}
	return "", ""
}

// download fetches GROUP/NAME.tar.gz and extracts NAME.mtx into the cache.
func download(m Matrix, cfg *loadConfig) (_ string, err error) {
	url := m.URL(cfg.baseURL)
	defer func() {
		if err != nil {
			err = fmt.Errorf("download %s: %w", url, err)
		}
	}()
	if err := os.MkdirAll(cfg.dataDir, 0o755); err != nil {
		return "", err
	}
	client := cfg.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	pr := newProgressReader(resp.Body, cfg.progress, m.Name+".tar.gz", resp.ContentLength)
	zr, err := gzip.NewReader(pr)
	if err != nil {
		return "", archiveError(err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return "", fmt.Errorf("archive has no %s/%s.mtx", m.Name, m.Name)
		}
		if err != nil {
			return "", archiveError(err)
		}
		if hdr.Typeflag != tar.TypeReg || path.Clean(hdr.Name) != m.Name+"/"+m.Name+".mtx" {
			continue
		}
		dst := filepath.Join(cfg.dataDir, m.Name+".mtx")
		h := sha256.New()
		err = WriteFileAtomic(dst, func(w io.Writer) error {
			if _, err := io.Copy(io.MultiWriter(w, h), tr); err != nil {
				return archiveError(err)
			}
			sum := hex.EncodeToString(h.Sum(nil))
			want := cfg.sha256
			if want == "" {
				want = KnownSHA256[m.Name]
			}
			if want != "" && sum != want {
				return fmt.Errorf("sha256 mismatch for %s.mtx: got %s, want %s", m.Name, sum, want)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		pr.draw(true)
		sum := hex.EncodeToString(h.Sum(nil))
		side := filepath.Join(cfg.dataDir, m.Name+".sha256")
		err = WriteFileAtomic(side, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "%s  %s.mtx\n", sum, m.Name)
			return err
		})
		return dst, err
	}
}

// archiveError words an error of reading the downloaded archive.
func archiveError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated archive: unexpected end of data")
	}
	return fmt.Errorf("corrupt archive: %v", err)
}
