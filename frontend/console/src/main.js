// The Quiver web console: the page's wiring. Each concern lives in its
// own module (editor, table, graph, plan, schema, server, auth,
// transactions, history, api); this one connects them to the page.

import * as api from "./api.js";
import * as auth from "./auth.js";
import * as editor from "./editor.js";
import * as history from "./history.js";
import * as plan from "./plan.js";
import * as schema from "./schema.js";
import * as server from "./server.js";
import { Table, toCSV, toJSON } from "./table.js";
import { GraphView, hasGraph } from "./graph.js";
import { Transactions } from "./transactions.js";

const $ = (id) => document.getElementById(id);

// Problems the page meets are counted where tests (and people) can see
// them: a CSP violation or an uncaught error marks the body.
const problems = [];
function problem(text) {
  problems.push(text);
  document.body.dataset.problems = String(problems.length);
  console.error("console:", text);
}
document.addEventListener("securitypolicyviolation", (e) => problem("CSP violation: " + e.violatedDirective + " " + e.blockedURI));
window.addEventListener("error", (e) => problem("error: " + e.message));
window.addEventListener("unhandledrejection", (e) => problem("unhandled: " + (e.reason && e.reason.message)));

const EXPAND_LIMIT = 100;
const SHOW_RUNNING_AFTER = 2000; // ms: a query running longer shows its time and Cancel

const state = {
  fields: [],
  rows: [],
  tab: "table",
  graphStale: false,
  running: null, // {controller, started, timer}
};

const table = new Table($("table"));
const graph = new GraphView($("graph"), {
  status: $("graph-status"),
  caption: $("caption"),
  details: $("details"),
  expand: async (id) => {
    const rows = [];
    await api.query("/api/v1/query", { query: "MATCH (n)-[r]-(m) WHERE id(n) = $id RETURN r, m LIMIT $limit", parameters: { id, limit: EXPAND_LIMIT } }, undefined, () => {}, (rs) => rows.push(...rs));
    return rows;
  },
});
const tx = new Transactions((id) => {
  $("tx-state").textContent = id ? "in transaction " + id.slice(0, 8) + "…" : "";
  $("commit").hidden = $("rollback").hidden = !id;
  document.body.dataset.transaction = id || "";
});

const initial = history.list()[0] || "MATCH (n) RETURN n LIMIT 25";
const view = editor.createEditor($("editor"), initial, () => run("run"));

function fillHistory() {
  const sel = $("history");
  const opts = [new Option("History…", "")];
  for (const h of history.list()) opts.push(new Option(h.length > 80 ? h.slice(0, 80) + "…" : h, h));
  sel.replaceChildren(...opts);
}
$("history").addEventListener("change", (e) => {
  if (e.target.value) editor.setText(view, e.target.value);
  e.target.value = "";
});
fillHistory();

function showTab(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === tab);
  $("table").hidden = tab !== "table";
  $("graph-pane").hidden = tab !== "graph";
  $("plan").hidden = tab !== "plan";
  if (tab === "graph" && state.graphStale) {
    state.graphStale = false;
    graph.show(state.rows);
  }
  if (tab === "table") table.render(true);
}
for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => showTab(b.dataset.tab));
$("fit").addEventListener("click", () => graph.cy && graph.cy.fit(undefined, 20));

function setError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    box.textContent = "";
    delete box.dataset.status;
    delete box.dataset.code;
    return;
  }
  const where = err.details && err.details.position ? ` (line ${err.details.position.line}, column ${err.details.position.column})` : "";
  const hint = err.details && err.details.suggestion ? `; did you mean ${err.details.suggestion}?` : "";
  box.textContent = (err.status ? `${err.status} ${err.code} ${err.category}: ` : "") + err.message + where + hint;
  box.dataset.status = String(err.status || "");
  box.dataset.code = err.code || "";
  box.hidden = false;
}

function startRunning() {
  const controller = new AbortController();
  const started = performance.now();
  const r = { controller, started, timer: 0 };
  r.timer = setInterval(() => {
    const ms = performance.now() - started;
    if (ms >= SHOW_RUNNING_AFTER) {
      $("running").hidden = false;
      $("elapsed").textContent = `running for ${(ms / 1000).toFixed(1)} s`;
    }
  }, 200);
  state.running = r;
  document.body.dataset.state = "running";
  return r;
}

function stopRunning(r) {
  clearInterval(r.timer);
  $("running").hidden = true;
  if (state.running === r) state.running = null;
}

$("cancel").addEventListener("click", () => {
  if (state.running) state.running.controller.abort();
});

function parameters() {
  const text = $("params").value.trim();
  if (!text) return {};
  const p = JSON.parse(text);
  if (!p || typeof p !== "object" || Array.isArray(p)) throw new Error("the parameters must be a JSON object");
  return p;
}

const PREFIX = /^\s*(EXPLAIN|PROFILE)\b/i;

// run runs the editor's statement: mode is run, explain or profile.
async function run(mode) {
  if (state.running) return;
  const text = editor.text(view).trim();
  if (!text) return;
  const m = PREFIX.exec(text);
  if (m) mode = m[1].toLowerCase();
  const statement = m ? text.slice(m[0].length) : text;
  editor.closePopups(view);
  editor.clearError(view);
  setError(null);
  let params;
  try {
    params = parameters();
  } catch (e) {
    setError({ message: "parameters: " + e.message });
    return;
  }
  history.add(text);
  fillHistory();
  const r = startRunning();
  const summary = $("summary");
  summary.textContent = "running…";
  summary.dataset.state = "running";
  state.fields = [];
  state.rows = [];
  let firstRows = null;
  table.reset([]);
  try {
    let path = mode === "explain" ? "/api/v1/query/explain" : mode === "profile" ? "/api/v1/query/profile" : "/api/v1/query";
    const body = { query: statement, parameters: params };
    if ($("tx-toggle").checked) {
      path = await tx.path();
      if (mode !== "run") body[mode] = true;
    }
    let tree = null;
    if (mode === "profile") {
      // PROFILE lists operators in pre-order; EXPLAIN's tree gives them
      // their places.
      tree = await api.request("POST", "/api/v1/query/explain", { query: statement, parameters: params }, r.controller.signal).then((a) => a.plan, () => null);
    }
    const rest = await api.query(
      path,
      body,
      r.controller.signal,
      (fields) => {
        state.fields = fields;
        table.reset(fields);
      },
      (rows) => {
        if (firstRows === null) {
          firstRows = performance.now() - r.started;
          document.body.dataset.firstRowsMs = String(Math.round(firstRows));
        }
        for (const x of rows) state.rows.push(x);
        table.append(rows);
      },
    );
    const ms = performance.now() - r.started;
    const md = rest.metadata || {};
    const n = state.rows.length;
    const parts = [`${n.toLocaleString("en")} row${n === 1 ? "" : "s"}`, `${ms.toFixed(0)} ms`];
    if (md.execution_time_ms !== undefined) parts.push(`server ${md.execution_time_ms} ms`);
    const writes = ["nodes_created", "relationships_created", "properties_set", "labels_added", "nodes_deleted", "relationships_deleted", "properties_removed", "labels_removed"].filter((k) => md[k]);
    if (writes.length) parts.push(writes.map((k) => `${k.replace(/_/g, " ")} ${md[k]}`).join(", "));
    summary.textContent = parts.join(" · ");
    summary.dataset.rows = String(n);
    summary.dataset.state = "done";
    if (rest.plan) {
      plan.render($("plan"), rest.plan, null);
      showTab("plan");
    } else if (rest.profile) {
      plan.render($("plan"), tree, rest.profile);
      showTab("plan");
    } else if (hasGraph(state.rows)) {
      state.graphStale = true;
      showTab("graph");
    } else {
      state.graphStale = false;
      showTab("table");
    }
    if (writes.length) refreshSide();
  } catch (e) {
    summary.dataset.state = "failed";
    if (e.name === "AbortError") {
      summary.textContent = `cancelled after ${((performance.now() - r.started) / 1000).toFixed(1)} s`;
      summary.dataset.state = "cancelled";
    } else {
      summary.textContent = `${state.rows.length.toLocaleString("en")} rows before the error`;
      setError(e);
      if (e.details && e.details.position) editor.showError(view, e.message, e.details.position);
      if (e.status === 401) showLogin();
    }
  } finally {
    stopRunning(r);
    document.body.dataset.state = "idle";
  }
}

$("run").addEventListener("click", () => run("run"));
$("explain").addEventListener("click", () => run("explain"));
$("profile").addEventListener("click", () => run("profile"));

async function endTransaction(what) {
  setError(null);
  try {
    const a = await (what === "commit" ? tx.commit() : tx.rollback());
    $("summary").textContent = a ? a.status.replace("_", " ") : "";
    if (what === "commit") refreshSide();
  } catch (e) {
    setError(e);
  }
}
$("commit").addEventListener("click", () => endTransaction("commit"));
$("rollback").addEventListener("click", () => endTransaction("rollback"));
$("tx-toggle").addEventListener("change", (e) => {
  if (!e.target.checked && tx.id) endTransaction("rollback");
});

function copy(text) {
  navigator.clipboard.writeText(text).then(
    () => ($("summary").textContent += " · copied"),
    (e) => setError({ message: "copy failed: " + e.message }),
  );
}
function download(text, type, name) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
$("copy-csv").addEventListener("click", () => copy(toCSV(state.fields, state.rows)));
$("copy-json").addEventListener("click", () => copy(toJSON(state.fields, state.rows)));
$("download-csv").addEventListener("click", () => download(toCSV(state.fields, state.rows), "text/csv", "result.csv"));
$("download-json").addEventListener("click", () => download(toJSON(state.fields, state.rows), "application/json", "result.json"));

async function refreshSchema() {
  try {
    const s = await schema.load();
    schema.render($("schema"), s, (q) => editor.setText(view, q));
    $("schema").dataset.loaded = "true";
  } catch (e) {
    $("schema").textContent = e.message;
    if (e.status === 401) showLogin();
  }
}
async function refreshStatus() {
  try {
    const st = await server.load($("status"));
    $("server-line").textContent = `${st.version} · ${(st.statistics.total_nodes || 0).toLocaleString("en")} nodes`;
  } catch (e) {
    $("status").textContent = e.message;
  }
}
function refreshSide() {
  refreshSchema();
  refreshStatus();
}
$("schema-refresh").addEventListener("click", refreshSchema);
$("status-refresh").addEventListener("click", refreshStatus);

function showLogin() {
  $("login").hidden = false;
  $("login-user").focus();
}

$("login-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  $("login-error").hidden = true;
  try {
    await auth.login($("login-user").value, $("login-password").value);
    $("login-password").value = "";
    $("login").hidden = true;
    refreshSide();
  } catch (err) {
    $("login-error").textContent = err.message;
    $("login-error").hidden = false;
  }
});
$("logout").addEventListener("click", async () => {
  await auth.logout().catch(() => {});
  state.rows = [];
  table.reset([]);
  $("schema").replaceChildren();
  $("status").replaceChildren();
  $("summary").textContent = "logged out";
  showLogin();
});
auth.watch((s) => {
  $("user").textContent = s ? "user " + s.user : "";
  $("user").dataset.user = s ? s.user : "";
  $("logout").hidden = !s;
});

async function start() {
  if (await auth.authRequired()) showLogin();
  else refreshSide();
  document.body.dataset.ready = "true";
  view.focus();
}
start();
