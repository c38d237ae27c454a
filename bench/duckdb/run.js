// DuckDB side of the Quiver benchmark harness (bench/).
//
// The same line protocol as bench/kuzu/run.js, so the Go harness
// (bench/duckdb.go) alternates the engines query by query in one run:
// every input line is one JSON request, every output line one JSON answer.
//
//   {"op":"load","db":FILE,"ddl":[STMT,...],"nodes":[STMT,...],"rels":[STMT,...]}
//       -> {"ok":true,"nodes_ms":N,"edges_ms":N,"version":V}
//   {"op":"query","text":SQL}
//       -> {"ok":true,"ms":N,"columns":[...],"types":[...],"rows":[[...],...]}
//   {"op":"quit"}
//
// A failure answers {"ok":false,"error":MESSAGE}. Times are wall-clock
// milliseconds measured here around the call, result materialised
// (runAndReadAll reads every chunk).
//
// "load" opens a new database file FILE (DuckDB in this process, default
// threads), runs the CREATE TABLE statements of "ddl" untimed, then the
// COPY … FROM statements of "nodes" and of "rels": nodes_ms and edges_ms
// are the sums of their times. The Go harness builds the statements
// (bench/duckdb.go).
//
// Rows are getRowsJson's: BIGINT and HUGEINT come as decimal strings (a
// JSON number would lose digits past 2^53), DOUBLE as numbers, VARCHAR as
// strings, lists as arrays. "types" names each column's DuckDB type, so
// the harness reads the strings of integer columns back as integers.
"use strict";

const { DuckDBInstance, version } = require("@duckdb/node-api");
const { serve } = require("../lineproto.js");
const { performance } = require("perf_hooks");

let instance = null;
let conn = null;

async function run(text) {
  const reader = await conn.runAndReadAll(text);
  return {
    columns: reader.columnNames(),
    types: reader.columnTypes().map(String),
    rows: reader.getRowsJson(),
  };
}

async function timed(text) {
  const t0 = performance.now();
  const out = await run(text);
  return { ms: performance.now() - t0, ...out };
}

async function handle(req) {
  switch (req.op) {
    case "load": {
      instance = await DuckDBInstance.create(req.db);
      conn = await instance.connect();
      for (const stmt of req.ddl) await run(stmt);
      let nodesMS = 0;
      let edgesMS = 0;
      for (const stmt of req.nodes) nodesMS += (await timed(stmt)).ms;
      for (const stmt of req.rels) edgesMS += (await timed(stmt)).ms;
      return { ok: true, nodes_ms: nodesMS, edges_ms: edgesMS, version: version() };
    }
    case "query": {
      const r = await timed(req.text);
      return { ok: true, ms: r.ms, columns: r.columns, types: r.types, rows: r.rows };
    }
    case "quit":
      if (conn) conn.closeSync();
      if (instance) instance.closeSync();
      process.exit(0);
    default:
      return { ok: false, error: `unknown op ${req.op}` };
  }
}

serve(handle);
