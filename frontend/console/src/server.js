// The server panel: version, uptime, counts and storage from
// GET /api/v1/status.

import { request } from "./api.js";

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i ? n.toFixed(1) : String(n)) + " " + units[i];
}

function duration(s) {
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return (d ? d + "d " : "") + (d || h ? h + "h " : "") + m + "m " + (s % 60) + "s";
}

export async function load(root) {
  const st = await request("GET", "/api/v1/status");
  const stats = st.statistics || {};
  const storage = st.storage || {};
  const rows = [
    ["version", st.version],
    ["uptime", duration(st.uptime_seconds || 0)],
    ["role", st.role],
    ["nodes", (stats.total_nodes || 0).toLocaleString("en")],
    ["relationships", (stats.total_relationships || 0).toLocaleString("en")],
    ["queries/s", stats.queries_per_second],
    ["connections", stats.active_connections],
    ["storage used", bytes(storage.used_bytes || 0)],
    ["disk free", bytes(storage.free_bytes || 0) + " of " + bytes(storage.total_bytes || 0)],
  ];
  const dl = document.createElement("dl");
  for (const [k, v] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v === undefined || v === null ? "" : String(v);
    dd.dataset.field = k;
    dl.append(dt, dd);
  }
  root.replaceChildren(dl);
  return st;
}
