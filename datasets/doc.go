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
// Every tensor is returned as a *Coords: its shape and its stored entries.
// The package imports nothing else of the project.
package datasets
