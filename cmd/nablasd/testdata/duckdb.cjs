// The DuckDB end of TestDuckDB (duckdb_test.go): a real client writes the
// Parquet inputs of a grouped job and checks nablasd's outputs against the
// same quantities computed in SQL.
//
//   node duckdb.cjs NODE_MODULES make DIR    writes DIR/A.parquet, b.parquet, x.parquet
//   node duckdb.cjs NODE_MODULES check DIR   compares DIR/g.parquet and DIR/r.parquet,
//                                            printing one JSON object
'use strict';
const path = require('path');
const [modules, mode, dir] = process.argv.slice(2);
const { DuckDBInstance } = require(path.join(modules, '@duckdb', 'node-api'));

const q = (s) => "'" + path.join(dir, s).replace(/'/g, "''") + "'";

async function main() {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  if (mode === 'make') {
    // 40 graphs of about 110 random entries each over 60 nodes (coordinates
    // may repeat: nablasd sums them, and so does the SQL below), values
    // from a hash so that every run writes the same tables; b has a graph
    // (41) that A lacks. A and b are written in no order of the key (a
    // hash's order, the same in every run): nablasd sorts them.
    await con.run(`
      CREATE TABLE A AS
        SELECT g::INTEGER AS graph, (hash(g, k, 1) % 60)::BIGINT AS row, (hash(g, k, 2) % 60)::BIGINT AS col,
               (hash(g, k, 3) % 1000)::DOUBLE / 100 - 5 AS val
        FROM range(1, 41) t(g), range(0, 150) s(k) WHERE hash(g, k) % 4 <> 0;
      CREATE TABLE b AS
        SELECT g::INTEGER AS graph, i::BIGINT AS i, (hash(g, i, 4) % 100)::DOUBLE / 10 AS val
        FROM range(1, 42) t(g), range(0, 60) s(i) WHERE hash(g, i, 5) % 3 = 0;
      CREATE TABLE x AS SELECT i::BIGINT AS i, (i % 7)::DOUBLE / 2 + 0.5 AS val FROM range(0, 60) s(i);
      COPY (SELECT * FROM A ORDER BY hash(graph, row, col, val)) TO ${q('A.parquet')}
        (FORMAT PARQUET, KV_METADATA {'nablasd.shape': '60,60'});
      COPY (SELECT * FROM b ORDER BY hash(graph, i, val)) TO ${q('b.parquet')} (FORMAT PARQUET);
      COPY (SELECT * FROM x ORDER BY i) TO ${q('x.parquet')} (FORMAT PARQUET);
    `);
    return;
  }
  // Compare an output with the expected values: every (graph, i0) of
  // either, a missing value being zero.
  const compare = async (out, want) => {
    const reader = await con.runAndReadAll(`
      WITH want AS (${want}),
           got AS (SELECT graph, i0, val AS v FROM ${q(out)})
      SELECT count(*)::DOUBLE AS rows,
             count(DISTINCT got.graph)::DOUBLE AS groups,
             coalesce(max(abs(coalesce(got.v, 0) - coalesce(want.v, 0)) / greatest(1, abs(coalesce(want.v, 0)))), 0)::DOUBLE AS maxdiff,
             count(*) FILTER (WHERE got.v IS NULL)::DOUBLE AS missing
      FROM got FULL JOIN want ON got.graph = want.graph AND got.i0 = want.i0`);
    return reader.getRowObjects()[0];
  };
  const A = `(SELECT * FROM ${q('A.parquet')})`;
  const b = `(SELECT * FROM ${q('b.parquet')})`;
  const x = `(SELECT * FROM ${q('x.parquet')})`;
  const result = {
    // d/dx sum(A·x) per graph: the column sums of the graph's A.
    smvm: await compare('g.parquet', `SELECT graph, col AS i0, sum(val) AS v FROM ${A} GROUP BY ALL`),
    // d/dx ½‖Ax − b‖² per graph: Aᵀ(Ax − b).
    lsq: await compare('r.parquet', `
      WITH ax AS (SELECT A.graph, A.row, sum(A.val * x.val) AS v FROM ${A} A JOIN ${x} x ON A.col = x.i GROUP BY ALL),
           d AS (SELECT ax.graph, ax.row, ax.v - coalesce(b.val, 0) AS d
                 FROM ax LEFT JOIN ${b} b ON ax.graph = b.graph AND ax.row = b.i)
      SELECT A.graph, A.col AS i0, sum(A.val * d.d) AS v
      FROM ${A} A JOIN d ON A.graph = d.graph AND A.row = d.row GROUP BY ALL`),
    graphsA: (await con.runAndReadAll(`SELECT count(DISTINCT graph)::DOUBLE AS n FROM ${A}`)).getRowObjects()[0].n,
    graphsAb: (await con.runAndReadAll(`SELECT count(*)::DOUBLE AS n FROM (SELECT graph FROM ${A} UNION SELECT graph FROM ${b})`)).getRowObjects()[0].n,
  };
  console.log(JSON.stringify(result));
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
