// duckdb-sql.mjs runs each SQL statement given as an argument with DuckDB, in
// the current directory, and prints one JSON array: for each statement, its
// rows as objects (BIGINT as text, DOUBLE as numbers), so that a Go test can
// run the README's DuckDB recipe for real.
//
//   SSEAUDIT_NODE_MODULES=/path/to/node_modules node duckdb-sql.mjs 'SELECT ...' ...
import { createRequire } from 'node:module';
import path from 'node:path';

const modules = process.env.SSEAUDIT_NODE_MODULES;
if (!modules) {
  console.error('set SSEAUDIT_NODE_MODULES to a node_modules directory holding @duckdb/node-api');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), 'resolver.js'));
const { DuckDBInstance } = require('@duckdb/node-api');

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const results = [];
for (const sql of process.argv.slice(2)) {
  results.push((await con.runAndReadAll(sql)).getRowObjectsJson());
}
console.log(JSON.stringify(results));
