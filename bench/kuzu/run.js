// Kùzu side of the Quiver benchmark harness (bench/).
//
// A line protocol on stdin/stdout so the Go harness can alternate the two
// engines query by query in one run: every input line is one JSON request,
// every output line one JSON answer.
//
//   {"op":"load","db":DIR,"persons":CSV,"knows":CSV}
//       -> {"ok":true,"nodes_ms":N,"edges_ms":N,"version":V}
//   {"op":"query","text":Q}
//       -> {"ok":true,"ms":N,"columns":[...],"rows":[[...],...]}
//   {"op":"quit"}
//
// A failure answers {"ok":false,"error":MESSAGE}. Times are wall-clock
// milliseconds measured here around the call, result materialised.
"use strict";

const kuzu = require("kuzu");
const readline = require("readline");
const { performance } = require("perf_hooks");

let db = null;
let conn = null;

function send(obj) {
  process.stdout.write(
    JSON.stringify(obj, (_, v) => (typeof v === "bigint" ? Number(v) : v)) + "\n"
  );
}

async function run(text) {
  const res = await conn.query(text);
  const rows = await res.getAll();
  const columns = await res.getColumnNames();
  res.close();
  return { columns, rows: rows.map((r) => columns.map((c) => r[c])) };
}

async function timed(text) {
  const t0 = performance.now();
  const out = await run(text);
  return { ms: performance.now() - t0, ...out };
}

async function handle(req) {
  switch (req.op) {
    case "load": {
      db = new kuzu.Database(req.db);
      conn = new kuzu.Connection(db);
      await run(
        "CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY (id))"
      );
      await run("CREATE REL TABLE KNOWS(FROM Person TO Person, since INT64)");
      const quote = (p) => "'" + p.replace(/'/g, "''") + "'";
      const nodes = await timed(`COPY Person FROM ${quote(req.persons)} (header=true)`);
      const edges = await timed(`COPY KNOWS FROM ${quote(req.knows)} (header=true)`);
      return { ok: true, nodes_ms: nodes.ms, edges_ms: edges.ms, version: kuzu.VERSION || "" };
    }
    case "query": {
      const r = await timed(req.text);
      return { ok: true, ms: r.ms, columns: r.columns, rows: r.rows };
    }
    case "quit":
      process.exit(0);
    default:
      return { ok: false, error: `unknown op ${req.op}` };
  }
}

async function main() {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let answer;
    try {
      answer = await handle(JSON.parse(line));
    } catch (e) {
      answer = { ok: false, error: String((e && e.message) || e) };
    }
    send(answer);
  }
}

main();
