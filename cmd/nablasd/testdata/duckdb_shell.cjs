// A small stand-in for DuckDB's shell, for the documentation's examples
// (docs_test.go): `duckdb -c SQL` runs SQL (several statements allowed)
// in an in-memory database, in the working directory, and prints the rows
// of the last statement, a header of column names first, columns
// separated by " | ".
//
//   node duckdb_shell.cjs NODE_MODULES -c SQL
'use strict';
const path = require('path');
const [modules, flag, sql] = process.argv.slice(2);
const { DuckDBInstance } = require(path.join(modules, '@duckdb', 'node-api'));

async function main() {
  if (flag !== '-c' || !sql) {
    throw new Error('usage: duckdb -c SQL');
  }
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const reader = await con.runAndReadAll(sql);
  const names = reader.columnNames();
  if (names.length === 0) {
    return;
  }
  const lines = [names.join(' | ')];
  for (const row of reader.getRows()) {
    lines.push(row.map((v) => String(v)).join(' | '));
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  process.stderr.write('duckdb: ' + err.message + '\n');
  process.exit(1);
});
