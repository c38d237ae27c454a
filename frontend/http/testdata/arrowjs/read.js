// Decodes Arrow IPC streams with the apache-arrow package and prints,
// per file named on the command line, one JSON line:
//   {"fields": [[name, quiver.type, Arrow type], ...], "rows": [[cell, ...], ...]}
// Cells keep the Arrow value exactly, tagged by its physical type (64-bit
// integers as decimal text), so that the Go test turns them into Quiver's
// JSON form itself: this script only reads the stream.
'use strict';
const fs = require('node:fs');
const { RecordBatchReader, Type } = require('apache-arrow');

function valid(data, i) {
  return data.typeId === Type.Union || data.getValid(i);
}

function int64(lo, hi) {
  return ((BigInt(hi) << 32n) | BigInt(lo >>> 0)).toString();
}

function cell(data, i) {
  if (!valid(data, i)) return null;
  const t = data.type, k = data.offset + i;
  switch (t.typeId) {
    case Type.Null: return null;
    case Type.Bool: return ((data.values[k >> 3] >> (k & 7)) & 1) === 1;
    case Type.Int:
      if (t.bitWidth === 64) return { i: data.values[k].toString() };
      return { i32: data.values[k] };
    case Type.Float: {
      const f = data.values[k];
      return { f: Number.isFinite(f) ? f : null };
    }
    case Type.Utf8:
      return Buffer.from(data.values.subarray(data.valueOffsets[k], data.valueOffsets[k + 1])).toString('utf8');
    case Type.Date: return { date: data.values[k] };
    case Type.Time: return { t64: data.values[k].toString() };
    case Type.Timestamp: return { ts: data.values[k].toString() };
    case Type.Interval: {
      const v = data.values;
      return { mdn: [v[4 * k], v[4 * k + 1], int64(v[4 * k + 2], v[4 * k + 3])] };
    }
    case Type.List: {
      const out = [];
      for (let j = data.valueOffsets[k]; j < data.valueOffsets[k + 1]; j++) out.push(cell(data.children[0], j));
      return { list: out };
    }
    case Type.Map: {
      const entries = data.children[0], out = [];
      for (let j = data.valueOffsets[k]; j < data.valueOffsets[k + 1]; j++) {
        out.push([cell(entries.children[0], j), cell(entries.children[1], j)]);
      }
      return { map: out };
    }
    case Type.Struct: {
      const out = {};
      t.children.forEach((f, c) => { out[f.name] = cell(data.children[c], i); });
      return { struct: out };
    }
    case Type.Union: {
      const code = data.typeIds[k];
      const child = data.children[t.typeIdToChildIndex[code]];
      return { u: code, v: cell(child, data.valueOffsets[k]) };
    }
  }
  throw new Error('no reading of Arrow type ' + t);
}

for (const file of process.argv.slice(2)) {
  const reader = RecordBatchReader.from(fs.readFileSync(file));
  const rows = [];
  let fields = null;
  for (const batch of reader) {
    fields = fields || batch.schema.fields.map(f => [f.name, f.metadata.get('quiver.type'), String(f.type)]);
    for (let i = 0; i < batch.numRows; i++) {
      rows.push(batch.data.children.map(col => cell(col, i)));
    }
  }
  if (!fields) fields = reader.schema.fields.map(f => [f.name, f.metadata.get('quiver.type'), String(f.type)]);
  process.stdout.write(JSON.stringify({ fields, rows }) + '\n');
}
