// duckdb-query.mjs reads a Parquet trace with DuckDB and prints, as one JSON
// object, the DuckDB type of every column and every row with its values as
// text (chunk data as hex), so that a Go test can check that DuckDB sees
// what the sseaudit writer meant to write.
//
//   SSEAUDIT_NODE_MODULES=/path/to/node_modules node duckdb-query.mjs nested|flat FILE
import { createRequire } from 'node:module';
import path from 'node:path';

const modules = process.env.SSEAUDIT_NODE_MODULES || (process.env.NODE_PATH || '').split(path.delimiter)[0];
if (!modules) {
  console.error('set SSEAUDIT_NODE_MODULES (or NODE_PATH) to a node_modules directory holding @duckdb/node-api');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), 'resolver.js'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [layout, file] = process.argv.slice(2);
const src = `read_parquet('${file.replaceAll("'", "''")}')`;
const queries = {
  nested: `SELECT request_id, t0_ns::VARCHAR AS t0_ns, end_ns::VARCHAR AS end_ns, http_status::VARCHAR AS http_status,
             error, len(chunks)::VARCHAR AS n_chunks,
             list_transform(chunks, c -> c.t_ns::VARCHAR || ':' || hex(c.data)) AS chunks,
             list_transform(time_points_s, x -> x::VARCHAR) AS time_points_s,
             input_tokens::VARCHAR AS input_tokens, output_tokens::VARCHAR AS output_tokens
           FROM ${src}`,
  flat: `SELECT request_id, t0_ns::VARCHAR AS t0_ns, t_ns::VARCHAR AS t_ns, hex(data) AS data,
           http_status::VARCHAR AS http_status, error
         FROM ${src}`,
};
if (!queries[layout] || !file) {
  console.error('usage: duckdb-query.mjs nested|flat FILE');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const types = {};
for (const row of (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJson()) {
  types[row.column_name] = row.column_type;
}
const rows = (await con.runAndReadAll(queries[layout])).getRowObjectsJson();
const meta = {};
for (const row of (await con.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file.replaceAll("'", "''")}')`)).getRowObjectsJson()) {
  meta[row.k] = row.v;
}
console.log(JSON.stringify({ types, rows, meta }));
