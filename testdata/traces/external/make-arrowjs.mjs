// make-arrowjs.mjs writes arrowjs-nested.arrow: a small nested-layout
// sseaudit trace made by apache-arrow (JavaScript), so that the Go reader is
// tested on a file another Arrow implementation wrote; and
// trace/arrowfile/testdata/arrowjs-dict.arrow, the same rows with request_id
// and error dictionary-encoded (apache-arrow JS leaves the schema message out
// of a file, and a file with dictionaries is then read without the mapping;
// a reader's test file, not a trace for every tool's goldens).
//
//   NODE_PATH=~/.cache/sseaudit-node/node_modules node make-arrowjs.mjs
//
// The module is found through NODE_PATH (or ARROW_JS_MODULES, a
// node_modules directory), since ES modules ignore NODE_PATH themselves.
// The expected Go values are in trace/arrowfile/arrowjs_test.go: change both.

import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const modules = process.env.ARROW_JS_MODULES || (process.env.NODE_PATH || '').split(':')[0];
if (!modules) {
  throw new Error('set NODE_PATH (or ARROW_JS_MODULES) to the node_modules directory holding apache-arrow');
}
const require = createRequire(join(modules, 'noop.js'));
const arrow = require('apache-arrow');
const { Field, Schema, Utf8, Int64, Int32, Binary, List, Struct, Table, RecordBatch,
  Dictionary, makeData, vectorFromArray, tableToIPC } = arrow;

const chunkType = new Struct([
  new Field('t_ns', new Int64(), false),
  new Field('data', new Binary(), false),
]);
const fields = [
  new Field('request_id', new Utf8(), false),
  new Field('t0_ns', new Int64(), false),
  new Field('end_ns', new Int64(), true),
  new Field('http_status', new Int32(), true),
  new Field('error', new Utf8(), true),
  new Field('chunks', new List(new Field('item', chunkType, true)), true),
  new Field('note', new Utf8(), true),
];
const metadata = new Map([
  ['sseaudit.schema_version', '1'],
  ['sseaudit.max_concurrency', '2'],
  ['sseaudit.source', 'make-arrowjs.mjs'],
]);

const enc = new TextEncoder();
const rows = [
  { request_id: 'js-0', t0_ns: 1000n, end_ns: 1400n, http_status: 200, error: null,
    chunks: [
      { t_ns: 1200n, data: enc.encode('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n') },
      { t_ns: 1300n, data: Uint8Array.from([0xff, 0xfe, 0x00, 0x41, 0xc3]) },
      { t_ns: 1400n, data: enc.encode('data: [DONE]\n\n') },
    ],
    note: 'first' },
  { request_id: 'js-1', t0_ns: 2000n, end_ns: null, http_status: null, error: null,
    chunks: null, note: null },
  { request_id: 'js-2', t0_ns: 3000n, end_ns: 3050n, http_status: null,
    error: 'connection refused', chunks: [], note: 'ünïcode' },
];

function write(out, fields) {
  const schema = new Schema(fields, metadata);
  const columns = fields.map((f) => vectorFromArray(rows.map((r) => r[f.name]), f.type));
  const data = makeData({
    type: new Struct(fields),
    length: rows.length,
    nullCount: 0,
    children: columns.map((c) => c.data[0]),
  });
  const table = new Table([new RecordBatch(schema, data)]);
  writeFileSync(out, tableToIPC(table, 'file'));
  console.log(`wrote ${out}: ${table.numRows} rows`);
}

const here = dirname(fileURLToPath(import.meta.url));
write(join(here, 'arrowjs-nested.arrow'), fields);
const dictOf = (f, id) => new Field(f.name, new Dictionary(new Utf8(), new Int32(), id), f.nullable);
write(join(here, '../../../trace/arrowfile/testdata/arrowjs-dict.arrow'), fields.map((f) => (f.name === 'request_id' ? dictOf(f, 0) : f.name === 'error' ? dictOf(f, 1) : f)));
