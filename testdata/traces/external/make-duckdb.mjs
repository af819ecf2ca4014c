// make-duckdb.mjs writes the DuckDB-made Parquet fixtures that the Parquet
// reader (trace/parquetfile) must read to exact values:
//
//   duckdb-nested.parquet  nested layout: chunks as DuckDB's 3-level LIST
//   duckdb-flat.parquet    flat layout: one row a chunk, INT64 http_status
//
// Both hold the same four requests: r0 streams two chunks, one of them not
// UTF-8 (a blob literal); r1 has an empty chunks list; r2 failed with error
// text and no response; r3 got a 500 with one chunk. Extra columns: model
// (VARCHAR) and attempt (BIGINT).
//
// Run from anywhere, pointing at a node_modules holding @duckdb/node-api:
//
//   SSEAUDIT_NODE_MODULES=~/.cache/sseaudit-node/node_modules node make-duckdb.mjs [outdir]
//
// (NODE_PATH works too; ESM imports ignore it, so the module is resolved
// from that directory explicitly.)
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const modules = process.env.SSEAUDIT_NODE_MODULES || (process.env.NODE_PATH || '').split(path.delimiter)[0];
if (!modules) {
  console.error('set SSEAUDIT_NODE_MODULES (or NODE_PATH) to a node_modules directory holding @duckdb/node-api');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), 'resolver.js'));
const { DuckDBInstance } = require('@duckdb/node-api');

const outDir = process.argv[2] || path.dirname(fileURLToPath(import.meta.url));
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const meta = (source) => `KV_METADATA {'sseaudit.schema_version': '1', 'sseaudit.source': ${quote(source)}, 'sseaudit.max_concurrency': '2'}`;

const nested = String.raw`
SELECT * FROM (VALUES
  ('r0', 1000000000::BIGINT, 1350000000::BIGINT, 200::INTEGER, NULL::VARCHAR,
   [{'t_ns': 1200000000::BIGINT, 'data': 'data: {"choices":[{"delta":{"content":"Hi"}}]}\x0A\x0A'::BLOB},
    {'t_ns': 1350000000::BIGINT, 'data': '\xFF\xFEdata: [DONE]\x00'::BLOB}]::STRUCT(t_ns BIGINT, data BLOB)[],
   [1.0, 1.2, 1.35]::DOUBLE[], 12::BIGINT, 2::BIGINT, 'model-a', 1::BIGINT),
  ('r1', 2000000000::BIGINT, 2100000000::BIGINT, 200::INTEGER, NULL::VARCHAR,
   []::STRUCT(t_ns BIGINT, data BLOB)[], NULL::DOUBLE[], NULL::BIGINT, NULL::BIGINT, 'model-a', 1::BIGINT),
  ('r2', 3000000000::BIGINT, NULL::BIGINT, NULL::INTEGER, 'read tcp: connection reset by peer',
   NULL::STRUCT(t_ns BIGINT, data BLOB)[], NULL::DOUBLE[], NULL::BIGINT, NULL::BIGINT, NULL::VARCHAR, 2::BIGINT),
  ('r3', 4000000000::BIGINT, 4000000500::BIGINT, 500::INTEGER, NULL::VARCHAR,
   [{'t_ns': 4000000400::BIGINT, 'data': '{"error":"overloaded"}'::BLOB}]::STRUCT(t_ns BIGINT, data BLOB)[],
   []::DOUBLE[], NULL::BIGINT, NULL::BIGINT, 'model-b', NULL::BIGINT)
) t(request_id, t0_ns, end_ns, http_status, error, chunks, time_points_s, input_tokens, output_tokens, model, attempt)`;

// The flat layout of the same requests, one row a chunk; http_status as
// BIGINT, as some writers store it.
const flat = `
SELECT request_id, t0_ns, c.t_ns AS t_ns, c.data AS data, end_ns, http_status::BIGINT AS http_status, error,
       input_tokens, output_tokens, model, attempt
FROM (SELECT *, row_number() OVER () AS req_no FROM (${nested}))
LEFT JOIN LATERAL (SELECT unnest(CASE WHEN len(chunks) > 0 THEN chunks ELSE [NULL] END) AS c,
                          unnest(range(greatest(len(chunks), 1))) AS chunk_no) ON true
ORDER BY req_no, chunk_no`;

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (const [name, query] of [['duckdb-nested.parquet', nested], ['duckdb-flat.parquet', flat]]) {
  const out = path.join(outDir, name);
  await con.run(`COPY (${query}) TO ${quote(out)} (FORMAT parquet, ${meta('duckdb ' + name)})`);
  console.log('wrote', out);
}
