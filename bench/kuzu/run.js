// Kùzu side of the Quiver benchmark harness (bench/).
//
// A line protocol on stdin/stdout so the Go harness can alternate the two
// engines query by query in one run: every input line is one JSON request,
// every output line one JSON answer.
//
//   {"op":"load","db":DIR,"ddl":[STMT,...],"nodes":[COPY,...],"rels":[COPY,...]}
//       -> {"ok":true,"nodes_ms":N,"edges_ms":N,"version":V}
//   {"op":"open","db":DIR}        (a database "load" made, after a restart)
//       -> {"ok":true,"version":V}
//   {"op":"query","text":Q}
//       -> {"ok":true,"ms":N,"columns":[...],"rows":[[...],...]}
//   {"op":"writes","db":DIR,"n":N,"warmup":W,"mode":"async"|"sync"}
//       -> {"ok":true,"commits":N,"ms":N,"lat_us":[...],"count":N,"version":V}
//   {"op":"vector","db":DIR,"files":[IDS,EMB],"dim":D,"metric":M,"index":{...},
//    "queries":[[...],...],"k":K,"efs":[EF,...]}
//       -> {"ok":true,"load_ms":N,"build_ms":N,"rss_mb":N,"points":[{"ef":EF,"ms":N,"ids":[[...],...]}],"version":V}
//   {"op":"quit"}
//
// A failure answers {"ok":false,"error":MESSAGE}. Times are wall-clock
// milliseconds measured here around the call, result materialised.
//
// "load" opens a new database at DIR, runs the CREATE NODE/REL TABLE
// statements of "ddl" untimed, then the COPY … FROM statements of "nodes"
// and of "rels" in order: nodes_ms and edges_ms are the sums of their
// times (the Go harness builds the statements from its data set
// description, bench/dataset.go).
//
// "vector" opens a new database at DIR with node table
// V(id INT64, embedding FLOAT[D], PRIMARY KEY (id)), COPYs the NumPy
// column files into it (COPY … BY COLUMN: ids int64, embeddings float32
// of shape (N, D); load_ms), builds the vector index (CREATE_VECTOR_INDEX with metric M
// and the "index" options as named arguments: mu, ml, efc, …; build_ms),
// then per ef runs every query one after the other with
// QUERY_VECTOR_INDEX(…, K, efs := EF) (ms: all of them) and returns the
// ids found. Kùzu 0.11.3 links its vector extension statically: nothing
// is downloaded. rss_mb is the process's resident set after the build.
//
// "writes" creates a new database at DIR holding one node table
// W(id INT64, c INT64, PRIMARY KEY (id)) (Kùzu's node tables need a
// primary key) and runs W untimed, then N timed auto-commit statements
// CREATE (:W {id: $id, c: $c}) one after the other on one connection, as
// a prepared statement with parameters (conn.prepare once, then
// conn.execute per statement, awaited; "sync" uses conn.executeSync, which
// skips the hop to Node's thread pool). lat_us are the timed statements'
// latencies in microseconds, ms their total; count is count(*) of W
// afterwards (W + N when every statement committed). The database is
// closed before answering.
"use strict";

const kuzu = require("kuzu");
const { serve } = require("../lineproto.js");
const { performance } = require("perf_hooks");

let db = null;
let conn = null;

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

async function writes(req) {
  const wdb = new kuzu.Database(req.db);
  const wconn = new kuzu.Connection(wdb);
  try {
    (await wconn.query("CREATE NODE TABLE W(id INT64, c INT64, PRIMARY KEY (id))")).close();
    const ps = await wconn.prepare("CREATE (:W {id: $id, c: $c})");
    if (!ps.isSuccess()) throw new Error(ps.getErrorMessage());
    const sync = req.mode === "sync";
    const one = async (id) => {
      const params = { id, c: id % 1000 };
      const r = sync ? wconn.executeSync(ps, params) : await wconn.execute(ps, params);
      r.close();
    };
    const warmup = req.warmup || 0;
    for (let i = 0; i < warmup; i++) await one(i);
    const lat = new Array(req.n);
    const t0 = performance.now();
    for (let i = 0; i < req.n; i++) {
      const t = performance.now();
      await one(warmup + i);
      lat[i] = Math.round((performance.now() - t) * 1000);
    }
    const ms = performance.now() - t0;
    const res = await wconn.query("MATCH (w:W) RETURN count(*) AS n");
    const count = (await res.getAll())[0].n;
    res.close();
    return { ok: true, commits: req.n, ms, lat_us: lat, count, version: kuzu.VERSION || "" };
  } finally {
    await wconn.close();
    await wdb.close();
  }
}

async function vector(req) {
  const vdb = new kuzu.Database(req.db);
  const vconn = new kuzu.Connection(vdb);
  const q = async (text) => {
    const res = await vconn.query(text);
    const rows = await res.getAll();
    res.close();
    return rows;
  };
  try {
    await q(`CREATE NODE TABLE V(id INT64, embedding FLOAT[${req.dim}], PRIMARY KEY (id))`);
    let t0 = performance.now();
    await q(`COPY V FROM (${req.files.map((f) => `'${f}'`).join(", ")}) BY COLUMN`);
    const loadMS = performance.now() - t0;
    const opts = Object.entries(req.index || {}).map(([k, v]) => `, ${k} := ${v}`).join("");
    t0 = performance.now();
    await q(`CALL CREATE_VECTOR_INDEX('V', 'v_embedding', 'embedding', metric := '${req.metric}'${opts})`);
    const buildMS = performance.now() - t0;
    const rssMB = process.memoryUsage().rss / (1 << 20);
    const points = [];
    for (const ef of req.efs) {
      const stmt = await vconn.prepare(
        `CALL QUERY_VECTOR_INDEX('V', 'v_embedding', $q, ${req.k}, efs := ${ef}) RETURN node.id AS id ORDER BY distance`);
      const ids = [];
      t0 = performance.now();
      for (const qv of req.queries) {
        const res = await vconn.execute(stmt, { q: qv });
        const rows = await res.getAll();
        res.close();
        ids.push(rows.map((r) => r.id));
      }
      points.push({ ef, ms: performance.now() - t0, ids });
    }
    return { ok: true, load_ms: loadMS, build_ms: buildMS, rss_mb: rssMB, points, version: kuzu.VERSION || "" };
  } finally {
    await vdb.close();
  }
}

async function handle(req) {
  switch (req.op) {
    case "load": {
      db = new kuzu.Database(req.db);
      conn = new kuzu.Connection(db);
      for (const stmt of req.ddl) await run(stmt);
      let nodesMS = 0;
      let edgesMS = 0;
      for (const stmt of req.nodes) nodesMS += (await timed(stmt)).ms;
      for (const stmt of req.rels) edgesMS += (await timed(stmt)).ms;
      return { ok: true, nodes_ms: nodesMS, edges_ms: edgesMS, version: kuzu.VERSION || "" };
    }
    case "open": {
      db = new kuzu.Database(req.db);
      conn = new kuzu.Connection(db);
      return { ok: true, version: kuzu.VERSION || "" };
    }
    case "query": {
      const r = await timed(req.text);
      return { ok: true, ms: r.ms, columns: r.columns, rows: r.rows };
    }
    case "writes":
      return await writes(req);
    case "vector":
      return await vector(req);
    case "quit":
      process.exit(0);
    default:
      return { ok: false, error: `unknown op ${req.op}` };
  }
}

serve(handle);
