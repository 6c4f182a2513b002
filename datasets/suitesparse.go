package datasets

import (
	"fmt"
	"strings"
)

// DefaultBaseURL is the SuiteSparse Matrix Collection's Matrix Market
// archive: a matrix GROUP/NAME is at DefaultBaseURL + "/GROUP/NAME.tar.gz".
const DefaultBaseURL = "https://suitesparse-collection-website.herokuapp.com/MM"

// Matrix describes a matrix of the SuiteSparse Matrix Collection.
type Matrix struct {
	Group, Name string
	Rows, Cols  int
	Stored      int    // entries in the Matrix Market file (the lower triangle of symmetric ones)
	NNZ         int    // entries after symmetric expansion, explicit zeros included
	Field       string // Matrix Market field: "real", "integer" or "pattern"
	Symmetry    string // Matrix Market symmetry: "general" or "symmetric"
	Kind        string // the collection's problem kind
	// Source says where the numbers come from: "verified" when checked
	// against a copy of the file (shared/datasets/suitesparse/SOURCES.md),
	// otherwise the paper's Table 1 and the collection's published
	// statistics, not checked offline.
	Source string
}

// Path returns "GROUP/NAME".
func (m Matrix) Path() string { return m.Group + "/" + m.Name }

// URL returns where the matrix's Matrix Market archive is under base
// (DefaultBaseURL when empty).
func (m Matrix) URL(base string) string {
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimSuffix(base, "/") + "/" + m.Group + "/" + m.Name + ".tar.gz"
}

// Diagonal returns the number of stored diagonal entries the counts imply
// for a symmetric matrix (2*Stored - NNZ), and 0 for others.
func (m Matrix) Diagonal() int {
	if m.Symmetry != "symmetric" {
		return 0
	}
	return 2*m.Stored - m.NNZ
}

const (
	sourceVerified = "verified"
	sourcePaper    = "paper Table 1 and collection statistics (unverified offline)"
)

// tableOne lists the matrices of Table 1 of the ∇SD paper.
var tableOne = []Matrix{
	{"HB", "bcspwr10", 5300, 5300, 13571, 21842, "pattern", "symmetric", "power network problem", sourceVerified},
	{"Gaertner", "nopoly", 10774, 10774, 40808, 70842, "integer", "symmetric", "undirected weighted graph", sourceVerified},
	{"Williams", "pdb1HYS", 36417, 36417, 2190591, 4344765, "real", "symmetric", "weighted undirected graph", sourcePaper},
	{"Bova", "rma10", 46835, 46835, 2374001, 2374001, "real", "general", "computational fluid dynamics problem", sourcePaper},
	{"Williams", "cant", 62451, 62451, 2034917, 4007383, "real", "symmetric", "2D/3D problem (finite element)", sourcePaper},
	{"Williams", "consph", 83334, 83334, 3046907, 6010480, "real", "symmetric", "2D/3D problem (finite element)", sourcePaper},
	{"Williams", "cop20k_A", 121192, 121192, 1362087, 2624331, "real", "symmetric", "2D/3D problem (finite element)", sourcePaper},
}

// KnownSHA256 maps a matrix name to the SHA-256 of NAME.mtx as extracted
// from the collection's NAME.tar.gz, where known. No entry is filled in:
// none could be checked offline, and a checksum is never guessed. Without
// one, the checksum of the first download is recorded in the cache and
// later loads are checked against it.
var KnownSHA256 = map[string]string{
	"bcspwr10": "",
	"nopoly":   "",
	"pdb1HYS":  "",
	"rma10":    "",
	"cant":     "",
	"consph":   "",
	"cop20k_A": "",
}

// TableOne returns the matrices of Table 1 of the ∇SD paper, in its order.
func TableOne() []Matrix { return append([]Matrix(nil), tableOne...) }

// LookupMatrix returns the Table 1 matrix called name (case-insensitive,
// with or without its group). Any other "GROUP/NAME" gives a Matrix with
// only its group and name known.
func LookupMatrix(name string) (Matrix, error) {
	group, base, hasGroup := strings.Cut(name, "/")
	if !hasGroup {
		base, group = group, ""
	}
	for _, m := range tableOne {
		if strings.EqualFold(m.Name, base) && (group == "" || strings.EqualFold(m.Group, group)) {
			return m, nil
		}
	}
	if hasGroup && validName(group) && validName(base) {
		return Matrix{Group: group, Name: base}, nil
	}
	names := make([]string, len(tableOne))
	for i, m := range tableOne {
		names[i] = m.Name
	}
	return Matrix{}, fmt.Errorf("unknown SuiteSparse matrix %q (want one of %s, or GROUP/NAME)", name, strings.Join(names, ", "))
}

// validName reports whether s can be a collection group or matrix name:
// letters, digits, '_', '-' and '.', not starting with '.'.
func validName(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
