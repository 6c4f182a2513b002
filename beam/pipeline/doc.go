// Package pipeline builds nablasd's batch jobs as Apache Beam pipelines
// (see the README's "Running on a cluster"): a grouped job (--group-by)
// reads its tables in splits, keys their rows by the group key, groups
// them, runs the compiled per-group step once per group and writes Parquet
// shards and a manifest; a row-partitioned job (--partition-rows) reads its
// big input in splits, keys its rows by row block, runs the program or its
// gradient on each block and adds the partial results with a CombineFn
// (the semiring's +). Both share their per-group step with nablasd's
// single-machine jobs (package batch) and so give the same results.
package pipeline
