// Kùzu's COPY … TO beside `quiver export` (docs/export.md, "Memory and
// speed"; bench/README.md, "Export"): loads the Person/KNOWS data set of
// DATA (persons.csv, knows.csv, as `quiverbench gen` writes them) into a
// new database with COPY … FROM, then writes both tables with COPY (MATCH
// …) TO, as Parquet and as CSV, into OUT, printing each statement's
// wall time and the files' bytes, and the Person statement's alone
// (the query bench/README.md's COPY … TO row compares with Quiver's).
//
//   node bench/kuzu/copyto.js DATA OUT      (after make bench-kuzu)
"use strict";

const kuzu = require("kuzu");
const fs = require("fs");
const path = require("path");
const { performance } = require("perf_hooks");

async function timed(conn, text) {
  const t0 = performance.now();
  const r = await conn.query(text);
  (Array.isArray(r) ? r : [r]).forEach((x) => x.close());
  return (performance.now() - t0) / 1000;
}

async function main() {
  const [data, out] = process.argv.slice(2).map((p) => path.resolve(p));
  if (!data || !out) throw new Error("usage: node copyto.js DATA OUT");
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, "files"), { recursive: true });
  const conn = new kuzu.Connection(new kuzu.Database(path.join(out, "db")));
  await timed(conn, "CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY (id))");
  await timed(conn, "CREATE REL TABLE KNOWS(FROM Person TO Person, since INT64)");
  const load = (await timed(conn, `COPY Person FROM '${data}/persons.csv' (header=true)`)) +
    (await timed(conn, `COPY KNOWS FROM '${data}/knows.csv' (header=true)`));
  console.log(`copy from: ${load.toFixed(2)} s`);
  for (const ext of ["parquet", "csv"]) {
    const f = (name) => path.join(out, "files", `${name}.${ext}`);
    const p = await timed(conn, `COPY (MATCH (p:Person) RETURN p.id, p.name, p.age, p.city) TO '${f("persons")}'`);
    const k = await timed(conn, `COPY (MATCH (a:Person)-[k:KNOWS]->(b:Person) RETURN a.id, b.id, k.since) TO '${f("knows")}'`);
    const pb = fs.statSync(f("persons")).size;
    const bytes = pb + fs.statSync(f("knows")).size;
    console.log(`copy to ${ext}: ${(p + k).toFixed(2)} s, ${(bytes / 1e6).toFixed(1)} MB`);
    console.log(`  persons alone: ${p.toFixed(2)} s, ${(pb / 1e6).toFixed(1)} MB`);
  }
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
