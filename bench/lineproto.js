// The line protocol of the benchmark harness's peer runners
// (bench/kuzu/run.js, bench/duckdb/run.js; the Go side is
// bench/noderunner.go): every input line is one JSON request, every output
// line one JSON answer. serve reads the requests in order, awaits
// handle(request) for each and writes its answer; a request that throws
// answers {"ok":false,"error":MESSAGE}.
"use strict";

const readline = require("readline");

// BigInt values (Kùzu's INT64) are written as numbers.
function send(obj) {
  process.stdout.write(
    JSON.stringify(obj, (_, v) => (typeof v === "bigint" ? Number(v) : v)) + "\n"
  );
}

async function serve(handle) {
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

module.exports = { serve, send };
