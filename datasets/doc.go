// Package datasets loads and makes the tensors nablasd computes on.
//
// It reads and writes Matrix Market files (.mtx and .mtx.gz, see
// ReadMatrixMarket and WriteMatrixMarket), knows the SuiteSparse matrices of
// Table 1 of the ∇SD paper and loads them from local directories or from the
// collection's archive (see TableOne and LoadSuiteSparse), and generates
// seeded synthetic vectors, matrices and order-3 tensors, including surrogates
// of the Table 1 matrices that are not available offline (see Generate,
// ParseSynthetic and Surrogate).
//
// Those tensors are returned as a *Coords: their shape and stored entries.
//
// It also reads and writes tensors as Arrow and Parquet tables (.parquet,
// .arrow, .arrows; see ReadTable, WriteTable and doc/formats.md), straight
// into the storage formats of package formats, and runs grouped batch jobs
// over tables keyed by a column (see OpenGroups and Job), streaming them
// with memory bounded by the largest group. For distributed runners it
// reads tables in splits (a Parquet row group, an Arrow file) and builds a
// group's tensor from chunks gathered from any splits (see OpenSplits),
// and writes groups' results in a Job's layout (see CreateGroupTable).
// Every table it writes carries checksums, verified as it is read, so that
// a damaged byte is an error naming the file and column; another writer's
// file is verified where it has page checksums and checked for its
// structure (doc/checksums.md). Of the project it imports only formats.
package datasets
