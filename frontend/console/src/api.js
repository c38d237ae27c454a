// The console's only way to the server: the documented /api/v1 endpoints.
// Every request carries the bearer token when one is held (auth.js), and
// a query's rows are read as they arrive (readResult), so that the first
// rows of a large result show before its last have come.

let tokenSource = () => null;

// setTokenSource names the function that answers the current access token.
export function setTokenSource(fn) {
  tokenSource = fn;
}

// ApiError is an error answer of the server, in the contract's shape.
export class ApiError extends Error {
  constructor(status, error) {
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "";
    this.category = error.category || "";
    this.details = error.details || {};
  }
}

function headers(json) {
  const h = {};
  if (json) h["Content-Type"] = "application/json";
  const t = tokenSource();
  if (t) h.Authorization = "Bearer " + t;
  return h;
}

async function failure(resp) {
  let body = null;
  try {
    body = await resp.json();
  } catch (e) {
    // not JSON: a proxy's page, say
  }
  return new ApiError(resp.status, (body && body.error) || { message: `HTTP ${resp.status} ${resp.statusText}` });
}

// request sends a JSON request and answers the JSON body, or throws an
// ApiError.
export async function request(method, path, body, signal) {
  const resp = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    credentials: "omit",
    cache: "no-store",
  });
  if (!resp.ok) throw await failure(resp);
  return resp.json();
}

// query runs a statement at path (/api/v1/query, …/profile, a
// transaction's query) and calls onSchema(fields) once and onRows(rows)
// as rows arrive; it answers the rest of the body (metadata, profile). A
// failure after rows were sent (the body's trailing "error") is thrown as
// an ApiError, the rows already delivered staying delivered. Aborting
// signal closes the connection, which cancels the query on the server.
export async function query(path, body, signal, onSchema, onRows) {
  const resp = await fetch(path, {
    method: "POST",
    headers: headers(true),
    body: JSON.stringify(body),
    signal,
    credentials: "omit",
    cache: "no-store",
  });
  if (!resp.ok) throw await failure(resp);
  const reader = new ResultReader(onSchema, onRows);
  const decoder = new TextDecoder();
  const stream = resp.body.getReader();
  for (;;) {
    const { done, value } = await stream.read();
    if (done) break;
    reader.push(decoder.decode(value, { stream: true }));
  }
  reader.push(decoder.decode());
  const rest = reader.end();
  if (rest.error) throw new ApiError(resp.status, rest.error);
  return rest;
}

// ResultReader splits a result body ({"schema":…,"data":[…],…}) as it
// arrives: the schema as soon as "data" opens, then whole rows in batches,
// then the object of the keys after data. Rows are parsed a batch at a
// time by JSON.parse; the scanner only finds where each row ends.
export class ResultReader {
  constructor(onSchema, onRows) {
    this.onSchema = onSchema;
    this.onRows = onRows;
    this.head = ""; // the text before the data array, then after it
    this.state = "head"; // head, rows, tail, whole
    this.depth = 0; // nesting inside the data array
    this.inString = false;
    this.escape = false;
    this.rowText = ""; // complete rows not yet parsed, comma separated
    this.partial = ""; // the row being scanned
  }

  push(text) {
    if (this.state === "head" || this.state === "tail" || this.state === "whole") {
      this.head += text;
      if (this.state === "head") this.findData();
      return;
    }
    this.scanRows(text);
  }

  // findData looks for the data array at the top level of the body.
  findData() {
    let depth = 0;
    let inString = false;
    let escape = false;
    const s = this.head;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (inString) {
        if (escape) escape = false;
        else if (c === "\\") escape = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') {
        if (depth === 1 && s.startsWith('"data"', i)) {
          let j = i + 6;
          while (j < s.length && /\s/.test(s[j])) j++;
          if (j >= s.length) return; // wait for more
          if (s[j] === ":") {
            j++;
            while (j < s.length && /\s/.test(s[j])) j++;
            if (j >= s.length) return;
            if (s[j] === "[") {
              const before = s.slice(0, i).replace(/,\s*$/, "");
              const head = JSON.parse(before + "}");
              this.onSchema((head.schema && head.schema.fields) || head.schema || []);
              this.head = "";
              this.state = "rows";
              this.scanRows(s.slice(j + 1));
              return;
            }
          }
        }
        inString = true;
      } else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
    }
  }

  scanRows(s) {
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === "\\") this.escape = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (c === '"') this.inString = true;
      else if (c === "{" || c === "[") this.depth++;
      else if (c === "}" || c === "]") {
        if (this.depth === 0) {
          // the data array closes
          this.partial += s.slice(start, i);
          this.flushRow();
          this.flush();
          this.state = "tail";
          this.head = "{" + s.slice(i + 1).replace(/^\s*,/, "");
          return;
        }
        this.depth--;
      } else if (c === "," && this.depth === 0) {
        this.partial += s.slice(start, i);
        this.flushRow();
        start = i + 1;
      }
    }
    this.partial += s.slice(start);
    this.flush();
  }

  flushRow() {
    const row = this.partial.trim();
    this.partial = "";
    if (row === "") return;
    this.rowText = this.rowText === "" ? row : this.rowText + "," + row;
  }

  flush() {
    if (this.rowText === "") return;
    const rows = JSON.parse("[" + this.rowText + "]");
    this.rowText = "";
    this.onRows(rows);
  }

  // end answers the keys that followed data (metadata, profile, or a late
  // error), or the whole body when it had no data array (explain).
  end() {
    if (this.state === "rows") {
      this.flush();
      throw new Error("the result ended inside its rows");
    }
    if (this.state === "head") {
      const whole = JSON.parse(this.head);
      if (whole.schema) this.onSchema(whole.schema.fields || whole.schema);
      if (Array.isArray(whole.data)) this.onRows(whole.data);
      return whole;
    }
    this.flush();
    return JSON.parse(this.head);
  }
}
