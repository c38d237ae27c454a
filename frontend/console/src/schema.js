// The schema sidebar: labels and relationship types with their counts,
// property keys, indexes and constraints, read in two batches (one
// request each, so the console costs the rate limit little). Clicking an
// entry puts a sample query in the editor. It also feeds the editor's
// completion.

import { request } from "./api.js";
import { vocabulary } from "./editor.js";

export function quoteName(name) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : "`" + name.replace(/`/g, "``") + "`";
}

async function batch(queries) {
  const a = await request("POST", "/api/v1/batch", { queries: queries.map((q) => ({ query: q })), transaction: false });
  return a.results.map((r) => (r.status === "success" ? r.data : []));
}

// load reads the schema; answers {labels:[{name,count}], types, keys,
// indexes, constraints, functions}.
export async function load() {
  const [labels, types, keys, functions, indexes, constraints] = await batch([
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
    "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey",
    "SHOW FUNCTIONS",
    "CALL db.indexes() YIELD name, type, label, properties RETURN name, type, label, properties",
    "CALL db.constraints() YIELD name, type, label, properties RETURN name, type, label, properties",
  ]);
  const s = {
    labels: labels.map((r) => ({ name: r.label, count: null })),
    types: types.map((r) => ({ name: r.relationshipType, count: null })),
    keys: keys.map((r) => r.propertyKey),
    functions: functions.map((r) => ({ name: r.name, signature: r.signature })),
    indexes,
    constraints,
  };
  const shown = [...s.labels.slice(0, 100), ...s.types.slice(0, 100)];
  if (shown.length) {
    const counts = await batch(
      shown.map((e, i) =>
        i < Math.min(s.labels.length, 100)
          ? `MATCH (n:${quoteName(e.name)}) RETURN count(n) AS c`
          : `MATCH ()-[r:${quoteName(e.name)}]->() RETURN count(r) AS c`,
      ),
    );
    shown.forEach((e, i) => (e.count = counts[i].length ? counts[i][0].c : null));
  }
  vocabulary.labels = s.labels.map((l) => l.name);
  vocabulary.types = s.types.map((t) => t.name);
  vocabulary.keys = s.keys;
  vocabulary.functions = s.functions;
  return s;
}

function section(title, items) {
  const h = document.createElement("h3");
  h.textContent = title;
  const ul = document.createElement("ul");
  if (!items.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "none";
    ul.append(li);
  }
  for (const [text, count, sample] of items) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip";
    b.textContent = text;
    b.dataset.sample = sample;
    li.append(b);
    if (count !== null && count !== undefined) {
      const c = document.createElement("span");
      c.className = "count";
      c.textContent = Number(count).toLocaleString("en");
      li.append(c);
    }
    ul.append(li);
  }
  return [h, ul];
}

// render draws the sidebar; insert(text) receives a sample query.
export function render(root, s, insert) {
  const q = quoteName;
  root.replaceChildren(
    ...section("Labels", s.labels.map((l) => [":" + l.name, l.count, `MATCH (n:${q(l.name)}) RETURN n LIMIT 25`])),
    ...section("Relationship types", s.types.map((t) => [":" + t.name, t.count, `MATCH p = ()-[:${q(t.name)}]->() RETURN p LIMIT 25`])),
    ...section("Property keys", s.keys.map((k) => [k, null, `MATCH (n) WHERE n.${q(k)} IS NOT NULL RETURN n.${q(k)} AS ${q(k)}, n LIMIT 25`])),
    ...section("Indexes", s.indexes.map((i) => [`${i.name} (${i.label} ${i.properties})`, null, "SHOW INDEXES"])),
    ...section("Constraints", s.constraints.map((c) => [`${c.name} (${c.type} ${c.label} ${c.properties})`, null, "SHOW CONSTRAINTS"])),
  );
  root.onclick = (e) => {
    const b = e.target.closest("button[data-sample]");
    if (b) insert(b.dataset.sample);
  };
}
