// The DuckDB end of TestDuckDBFit (duckdb_fit_test.go): a real client
// writes the Parquet inputs of a grouped fit, one file per group for the
// fits of each group alone, and reads the outputs.
//
//   node duckdb_fit.cjs NODE_MODULES make DIR    writes DIR/A.parquet, y.parquet, x0.parquet
//                                                and DIR/groups/g=G/{A,y}.parquet
//   node duckdb_fit.cjs NODE_MODULES check DIR   compares DIR/fit.parquet with DIR/single.csv
//                                                and checks the gradient at the fit, printing
//                                                one JSON object
'use strict';
const path = require('path');
const [modules, mode, dir] = process.argv.slice(2);
const { DuckDBInstance } = require(path.join(modules, '@duckdb', 'node-api'));

const q = (s) => "'" + path.join(dir, s).replace(/'/g, "''") + "'";

// GROUPS users, each with up to ROWS samples of FEATURES features (about
// three set a sample), labels 0 or 1: values from a hash, so that every
// run writes the same tables.
const GROUPS = 1200, ROWS = 24, FEATURES = 6;

async function main() {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  if (mode === 'make') {
    await con.run(`
      CREATE TABLE A AS
        SELECT DISTINCT g::INTEGER AS g, r::BIGINT AS row, (hash(g, r, k) % ${FEATURES})::BIGINT AS col,
               (hash(g, r, k, 1) % 200)::DOUBLE / 100 - 1 AS val
        FROM range(1, ${GROUPS + 1}) t(g), range(0, ${ROWS}) s(r), range(0, 3) u(k)
        WHERE hash(g, r) % 5 <> 0;
      CREATE TABLE A1 AS SELECT g, row, col, sum(val) AS val FROM A GROUP BY ALL;
      CREATE TABLE y AS
        SELECT g::INTEGER AS g, r::BIGINT AS i, (hash(g, r, 7) % 2)::DOUBLE AS val
        FROM range(1, ${GROUPS + 1}) t(g), range(0, ${ROWS}) s(r);
      CREATE TABLE x0 AS SELECT i::BIGINT AS i, 0.0::DOUBLE AS val FROM range(0, ${FEATURES}) s(i);
      COPY (SELECT * FROM A1 ORDER BY g, row, col) TO ${q('A.parquet')}
        (FORMAT PARQUET, KV_METADATA {'nablasd.shape': '${ROWS},${FEATURES}'});
      COPY (SELECT * FROM y ORDER BY g, i) TO ${q('y.parquet')}
        (FORMAT PARQUET, KV_METADATA {'nablasd.shape': '${ROWS}'});
      COPY (SELECT * FROM x0 ORDER BY i) TO ${q('x0.parquet')} (FORMAT PARQUET);
      COPY (SELECT * FROM A1 ORDER BY g, row, col) TO ${q('groups/A')} (FORMAT PARQUET, PARTITION_BY (g));
      COPY (SELECT * FROM y ORDER BY g, i) TO ${q('groups/y')} (FORMAT PARQUET, PARTITION_BY (g));
    `);
    const n = (await con.runAndReadAll(`SELECT count(DISTINCT g)::DOUBLE AS n FROM A1`)).getRowObjects()[0].n;
    console.log(JSON.stringify({ groups: n }));
    return;
  }
  const fit = `(SELECT * FROM ${q('fit.parquet')})`;
  const single = `(SELECT * FROM read_csv(${q('single.csv')}, header = true,
      columns = {'g': 'INTEGER', 'i0': 'BIGINT', 'val': 'DOUBLE', 'loss': 'DOUBLE', 'iterations': 'BIGINT'}))`;
  // every row of either: the grouped fit's value, loss and iterations
  // against the fit of the group alone
  const cmp = (await con.runAndReadAll(`
    SELECT count(*)::DOUBLE AS rows, count(DISTINCT f.g)::DOUBLE AS groups,
           count(*) FILTER (WHERE f.val IS NULL OR s.val IS NULL)::DOUBLE AS missing,
           count(*) FILTER (WHERE f.val <> s.val OR f.loss <> s.loss OR f.iterations <> s.iterations)::DOUBLE AS unequal,
           coalesce(max(abs(f.val - s.val)), 0)::DOUBLE AS maxdiff,
           count(*) FILTER (WHERE f.status <> 'converged')::DOUBLE AS notconverged,
           count(*) FILTER (WHERE f.param <> 'x')::DOUBLE AS otherparam
    FROM ${fit} f FULL JOIN ${single} s ON f.g = s.g AND f.i0 = s.i0`)).getRowObjects()[0];
  // the gradient of the ridge logistic loss at the fit, computed in SQL:
  // Aᵀ(σ(Ax) − y) + λx, its largest magnitude over every group
  const grad = (await con.runAndReadAll(`
    WITH x AS (SELECT g, i0 AS j, val AS v FROM ${fit}),
         z AS (SELECT y.g, y.i, coalesce(sum(A.val * x.v), 0) AS z, any_value(y.val) AS y
               FROM ${q('y.parquet')} y
               LEFT JOIN ${q('A.parquet')} A ON A.g = y.g AND A.row = y.i
               LEFT JOIN x ON x.g = A.g AND x.j = A.col
               GROUP BY ALL),
         r AS (SELECT g, i, 1 / (1 + exp(-z)) - y AS r FROM z),
         g AS (SELECT x.g, x.j, 0.1 * any_value(x.v) + coalesce(sum(A.val * r.r), 0) AS d
               FROM x LEFT JOIN ${q('A.parquet')} A ON A.g = x.g AND A.col = x.j
               LEFT JOIN r ON r.g = A.g AND r.i = A.row
               GROUP BY ALL)
    SELECT max(abs(d))::DOUBLE AS maxgrad FROM g`)).getRowObjects()[0];
  console.log(JSON.stringify({ ...cmp, ...grad }));
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
