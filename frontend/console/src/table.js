// The results table. Only the rows in view (and a few around them) are in
// the DOM: a spacer gives the scroll area the height of every row, and
// the visible slice is placed by a transform, so a result of 100k rows
// scrolls as smoothly as one of ten. Rows may keep arriving while it
// shows; copy and download answer CSV or JSON.

const ROW = 26; // px, the height of a row (console.css agrees)
const OVERSCAN = 10;

// format renders a value of a cell as text.
export function format(v) {
  if (v === null || v === undefined) return "null";
  if (typeof v !== "object") return String(v);
  if (Array.isArray(v)) return "[" + v.map(format).join(", ") + "]";
  if ("labels" in v && "id" in v && "properties" in v) return "(" + v.id + v.labels.map((l) => ":" + l).join("") + " " + JSON.stringify(v.properties) + ")";
  if ("type" in v && "start" in v && "end" in v) return "[" + v.id + ":" + v.type + " " + JSON.stringify(v.properties) + "]";
  if ("nodes" in v && "relationships" in v) return "path of " + v.relationships.length + " hops";
  return JSON.stringify(v);
}

function csvCell(v) {
  const s = typeof v === "string" ? v : v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

export function toCSV(fields, rows) {
  const names = fields.map((f) => f.name);
  const lines = [names.map(csvCell).join(",")];
  for (const r of rows) lines.push(names.map((n) => csvCell(r[n])).join(","));
  return lines.join("\r\n") + "\r\n";
}

export function toJSON(fields, rows) {
  return JSON.stringify(rows, null, 1);
}

export class Table {
  constructor(root) {
    this.root = root;
    this.fields = [];
    this.rows = [];
    this.head = document.createElement("div");
    this.head.className = "t-head";
    this.scroller = document.createElement("div");
    this.scroller.className = "t-scroll";
    this.spacer = document.createElement("div");
    this.spacer.className = "t-spacer";
    this.body = document.createElement("div");
    this.body.className = "t-body";
    this.scroller.append(this.spacer, this.body);
    root.append(this.head, this.scroller);
    this.first = -1;
    this.last = -1;
    this.scroller.addEventListener("scroll", () => this.render(false));
    new ResizeObserver(() => this.render(true)).observe(this.scroller);
  }

  reset(fields) {
    this.fields = fields;
    this.rows = [];
    this.head.replaceChildren();
    const cols = `repeat(${Math.max(fields.length, 1)}, minmax(8rem, 1fr))`;
    this.head.style.gridTemplateColumns = cols;
    this.cols = cols;
    for (const f of fields) {
      const c = document.createElement("div");
      c.className = "t-cell";
      c.textContent = f.name;
      c.title = f.type || "";
      this.head.append(c);
    }
    this.scroller.scrollTop = 0;
    this.render(true);
  }

  append(rows) {
    for (const r of rows) this.rows.push(r);
    this.render(true);
  }

  // render draws the rows in view; force redraws them even when the
  // slice has not moved (new rows, new columns).
  render(force) {
    this.spacer.style.height = this.rows.length * ROW + "px";
    this.root.dataset.rows = String(this.rows.length);
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    if (!force && first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) {
      const row = document.createElement("div");
      row.className = "t-row";
      row.style.gridTemplateColumns = this.cols;
      const r = this.rows[i];
      for (const f of this.fields) {
        const c = document.createElement("div");
        c.className = "t-cell";
        const s = format(r[f.name]);
        c.textContent = s.length > 500 ? s.slice(0, 500) + "…" : s;
        if (s.length > 40) c.title = s.length > 4000 ? s.slice(0, 4000) + "…" : s;
        row.append(c);
      }
      frag.append(row);
    }
    this.body.style.transform = `translateY(${first * ROW}px)`;
    this.body.replaceChildren(frag);
  }
}
