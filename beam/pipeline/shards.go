package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/datasets"
)

// The output of a grouped job
//
// A grouped job writes its results as Parquet shards in the directory
// job.Out, part-SSSSS-of-NNNNN.parquet, a group's rows in the shard its
// key hashes to, each shard in key order and written like nablasd's
// single-machine output (datasets.GroupTable: the same columns, the key
// first, the same metadata). Every shard and the manifest are written to a
// temporary file and renamed. The manifest, manifest.json, is written
// last, when every shard is complete: a reader should trust the shards it
// lists (DuckDB: read_parquet of their paths, or 'OUT/*.parquet').

// ManifestName is the manifest's file name in a grouped job's output.
const ManifestName = "manifest.json"

// ShardName is the file name of shard i of n.
func ShardName(i, n int) string { return fmt.Sprintf("part-%05d-of-%05d.parquet", i, n) }

// Manifest describes a grouped job's output.
type Manifest struct {
	Version  int               `json:"nablasd_manifest"`
	Key      string            `json:"key"`
	Order    int               `json:"order"`
	Format   string            `json:"format,omitempty"` // the results' storage format
	Shape    []int             `json:"shape"`            // the elementwise largest of the groups' shapes
	Groups   int64             `json:"groups"`
	Rows     int64             `json:"rows"` // without empty groups' marker rows
	Metadata map[string]string `json:"metadata"`
	Shards   []ShardInfo       `json:"shards"`
}

// ShardInfo describes one shard.
type ShardInfo struct {
	File     string `json:"file"`
	Groups   int64  `json:"groups"`
	Rows     int64  `json:"rows"`
	Bytes    int64  `json:"bytes"`
	FirstKey string `json:"first_key"`
	LastKey  string `json:"last_key"`
	Format   string `json:"format,omitempty"`
	Shape    []int  `json:"shape"`
}

// writeShardFn writes one shard: its groups' results, in key order.
type writeShardFn struct {
	Job Job
	key *datasets.SplitTable // a grouped table, for the key column's type
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int64, results func(*[]byte) bool, emit func([]byte)) error {
	info, err := f.write(ctx, int(shard), results)
	if err != nil {
		return inputError(err)
	}
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

func (f *writeShardFn) write(ctx context.Context, shard int, results func(*[]byte) bool) (*ShardInfo, error) {
	if f.key == nil {
		st, err := f.Job.Tables[0].open(f.Job.Key)
		if err != nil {
			return nil, err
		}
		f.key = st
	}
	var rs []*result
	var b []byte
	for results(&b) {
		r, err := decodeResult(b)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b *result) int { return a.key.Compare(b.key) })
	info := &ShardInfo{File: ShardName(shard, f.Job.Shards)}
	path := filepath.Join(f.Job.Out, info.File)
	var gt *datasets.GroupTable
	var err error
	if f.Job.Fit != nil {
		gt, err = datasets.CreateRowsTable(path, f.key.KeyField(), batch.FitColumns(f.Job.Order), f.Job.Meta)
	} else {
		gt, err = datasets.CreateGroupTable(path, f.key.KeyField(), f.Job.Order, f.Job.Meta)
	}
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if i > 0 && r.key == rs[i-1].key {
			gt.Abort()
			return nil, fmt.Errorf("internal error: nablasd-beam: group %s twice", r.key)
		}
		if r.rows != nil {
			rec, err := decodeRows(r.rows)
			if err == nil {
				var n int64
				n, err = gt.WriteRows(r.key, rec)
				rec.Release()
				info.Rows += n
			}
			if err != nil {
				gt.Abort()
				return nil, err
			}
			continue
		}
		n, err := gt.Write(r.key, r.value)
		if err != nil {
			gt.Abort()
			return nil, err
		}
		info.Rows += n
		if t := r.value.Tensor; t != nil {
			info.Shape = maxShape(info.Shape, t.Shape)
			if info.Format == "" {
				info.Format = t.Format.Name()
			}
		}
	}
	if err := gt.Close(); err != nil {
		return nil, err
	}
	info.Groups = int64(len(rs))
	if len(rs) > 0 {
		info.FirstKey, info.LastKey = rs[0].key.String(), rs[len(rs)-1].key.String()
	}
	if st, err := os.Stat(path); err == nil {
		info.Bytes = st.Size()
	}
	cShards.Inc(ctx, 1)
	cRowsOut.Inc(ctx, info.Rows)
	cBytesOut.Inc(ctx, info.Bytes)
	return info, nil
}

func (f *writeShardFn) StartBundle(ctx context.Context, _ func([]byte)) {
	announce(ctx, cShards, cRowsOut, cBytesOut)
}

func (f *writeShardFn) Teardown() {
	if f.key != nil {
		f.key.Close()
	}
}

// maxShape is the elementwise largest of two shapes (nil: none yet).
func maxShape(a, b []int) []int {
	if a == nil {
		return append([]int(nil), b...)
	}
	for m := range min(len(a), len(b)) {
		a[m] = max(a[m], b[m])
	}
	return a
}

// collectFn gathers the shards' descriptions, one JSON object a line.
type collectFn struct{}

func (collectFn) CreateAccumulator() string               { return "" }
func (collectFn) AddInput(acc string, info []byte) string { return acc + string(info) + "\n" }
func (collectFn) MergeAccumulators(a, b string) string    { return a + b }
func (collectFn) ExtractOutput(acc string) string         { return acc }

// manifestFn writes the manifest once every shard is written.
type manifestFn struct {
	Job Job
}

func (f *manifestFn) ProcessElement(ctx context.Context, lines string) error {
	m := &Manifest{Version: 1, Key: f.Job.Key, Order: f.Job.Order, Metadata: f.Job.Meta, Shards: []ShardInfo{}}
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		if line == "" {
			continue
		}
		var s ShardInfo
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return err
		}
		m.Shards = append(m.Shards, s)
		m.Groups += s.Groups
		m.Rows += s.Rows
		if s.Shape != nil {
			m.Shape = maxShape(m.Shape, s.Shape)
		}
		if m.Format == "" {
			m.Format = s.Format
		}
	}
	slices.SortFunc(m.Shards, func(a, b ShardInfo) int { return strings.Compare(a.File, b.File) })
	if m.Shape == nil {
		m.Shape = []int{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the program's text as written: <i, r>
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	return inputError(writeFileAtomic(filepath.Join(f.Job.Out, ManifestName), buf.Bytes()))
}

// writeFileAtomic writes a file through a temporary file renamed when
// complete.
func writeFileAtomic(path string, b []byte) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, b, 0o666); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// ReadManifest reads a grouped job's manifest from its output directory.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ManifestName), err)
	}
	return &m, nil
}
