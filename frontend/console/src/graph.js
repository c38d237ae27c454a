// The graph view: the nodes, relationships and paths found in a result's
// rows, drawn with cytoscape. Nodes are coloured by their first label and
// captioned by a property the user picks; a click shows an element's
// properties, a double-click (double tap) fetches its neighbours
// (expand), and the layout is cytoscape's cose, fit for a few thousand
// elements. The drawn counts are kept in the status line's data-nodes and
// data-edges, read from cytoscape itself.

import cytoscape from "cytoscape";

const palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

function isNode(v) {
  return v && typeof v === "object" && "id" in v && Array.isArray(v.labels) && "properties" in v;
}
function isRel(v) {
  return v && typeof v === "object" && "id" in v && typeof v.type === "string" && "start" in v && "end" in v;
}
function isPath(v) {
  return v && typeof v === "object" && Array.isArray(v.nodes) && Array.isArray(v.relationships);
}

// collect walks values (lists and maps too) for graph elements.
export function collect(rows, nodes = new Map(), rels = new Map()) {
  const walk = (v, depth) => {
    if (!v || typeof v !== "object" || depth > 8) return;
    if (isNode(v)) nodes.set(v.id, v);
    else if (isRel(v)) rels.set(v.id, v);
    else if (isPath(v)) {
      v.nodes.forEach((n) => nodes.set(n.id, n));
      v.relationships.forEach((r) => rels.set(r.id, r));
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else Object.values(v).forEach((x) => walk(x, depth + 1));
  };
  for (const r of rows) walk(r, 0);
  return { nodes, rels };
}

export function hasGraph(rows) {
  const limit = Math.min(rows.length, 200);
  for (let i = 0; i < limit; i++) {
    const { nodes, rels } = collect([rows[i]]);
    if (nodes.size || rels.size) return true;
  }
  return false;
}

export class GraphView {
  // expand(nodeId) answers rows holding the node's neighbours.
  constructor(root, { status, caption, details, expand }) {
    this.root = root;
    this.status = status;
    this.captionSelect = caption;
    this.details = details;
    this.expandFn = expand;
    this.colours = new Map();
    this.cy = null;
    caption.addEventListener("change", () => this.recaption());
  }

  colour(label) {
    if (!this.colours.has(label)) this.colours.set(label, palette[this.colours.size % palette.length]);
    return this.colours.get(label);
  }

  elements(nodes, rels) {
    const els = [];
    const have = (id) => nodes.has(id) || (this.cy && this.cy.getElementById("n" + id).nonempty());
    for (const n of nodes.values()) {
      if (this.cy && this.cy.getElementById("n" + n.id).nonempty()) continue;
      const label = n.labels[0] || "";
      els.push({ group: "nodes", data: { id: "n" + n.id, raw: n, colour: this.colour(label), caption: this.captionOf(n) } });
    }
    for (const r of rels.values()) {
      if (this.cy && this.cy.getElementById("r" + r.id).nonempty()) continue;
      for (const end of [r.start, r.end]) {
        if (!have(end)) {
          // an endpoint the rows did not hold: drawn bare
          const bare = { id: end, labels: [], properties: {} };
          nodes.set(end, bare);
          els.push({ group: "nodes", data: { id: "n" + end, raw: bare, colour: "#999", caption: String(end) } });
        }
      }
      els.push({ group: "edges", data: { id: "r" + r.id, source: "n" + r.start, target: "n" + r.end, raw: r, caption: r.type } });
    }
    return els;
  }

  captionOf(n) {
    const key = this.captionSelect.value;
    if (key && n.properties && key in n.properties) return String(n.properties[key]);
    for (const k of ["name", "title", "caption"]) if (n.properties && k in n.properties) return String(n.properties[k]);
    return (n.labels[0] || "") + " " + n.id;
  }

  // show draws the elements of rows, replacing what was drawn.
  show(rows) {
    const { nodes, rels } = collect(rows);
    if (this.cy) this.cy.destroy();
    this.cy = cytoscape({
      container: this.root,
      elements: [],
      wheelSensitivity: 0.3,
      minZoom: 0.05,
      maxZoom: 4,
      style: [
        { selector: "node", style: { "background-color": "data(colour)", label: "data(caption)", "font-size": 10, color: "#222", "text-valign": "bottom", "text-halign": "center", width: 22, height: 22 } },
        { selector: "edge", style: { width: 1.5, "line-color": "#aab", "target-arrow-color": "#aab", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(caption)", "font-size": 8, color: "#667", "text-rotation": "autorotate" } },
        { selector: ":selected", style: { "border-width": 3, "border-color": "#222", "line-color": "#222", "target-arrow-color": "#222" } },
      ],
    });
    this.cy.add(this.elements(nodes, rels));
    this.cy.on("tap", "node, edge", (e) => this.showDetails(e.target.data("raw"), e.target.isNode()));
    this.cy.on("dbltap", "node", (e) => this.expand(e.target));
    this.fillCaptionKeys(nodes);
    this.layout();
  }

  fillCaptionKeys(nodes) {
    const keys = new Set();
    for (const n of nodes.values()) Object.keys(n.properties || {}).forEach((k) => keys.add(k));
    const current = this.captionSelect.value;
    const opts = [new Option("(automatic)", "")];
    [...keys].sort().forEach((k) => opts.push(new Option(k, k)));
    this.captionSelect.replaceChildren(...opts);
    if (keys.has(current)) this.captionSelect.value = current;
  }

  recaption() {
    if (!this.cy) return;
    this.cy.nodes().forEach((n) => {
      if (n.data("raw").labels.length || Object.keys(n.data("raw").properties).length) n.data("caption", this.captionOf(n.data("raw")));
    });
  }

  // layout runs cytoscape's force-directed cose. Its repulsion is over all
  // pairs of nodes, so each iteration costs n²: graphs of some hundreds of
  // nodes get fewer iterations, cooling faster, and past 1,000 nodes the
  // concentric layout (hubs in the middle, by degree) takes over, which
  // costs n (cose took 5 to 17 s for 2,000 nodes in headless chromium).
  layout(around) {
    const n = this.cy.nodes().length;
    const opts =
      n > 1000
        ? { name: "concentric", animate: false, concentric: (node) => node.degree(), levelWidth: () => 2, minNodeSpacing: 4 }
        : n > 400
          ? { name: "cose", animate: false, numIter: Math.max(60, Math.round(80000 / n)), coolingFactor: 0.9, initialTemp: 400, randomize: !around, nodeRepulsion: () => 4000, idealEdgeLength: () => 40 }
          : { name: "cose", animate: false, numIter: 1000, nodeRepulsion: () => 8000, idealEdgeLength: () => 60, randomize: !around };
    const done = () => {
      // a handful of nodes is not blown up to fill the pane
      if (this.cy.zoom() > 1.5) {
        this.cy.zoom(1.5);
        this.cy.center();
      }
      this.count();
      this.status.dataset.layout = "done";
      this.status.dataset.layoutMs = String(Math.round(performance.now() - t0));
    };
    const t0 = performance.now();
    this.status.dataset.layout = "running";
    this.cy.one("layoutstop", done);
    this.cy.layout(opts).run();
    this.count();
  }

  count() {
    const nodes = this.cy ? this.cy.nodes().length : 0;
    const edges = this.cy ? this.cy.edges().length : 0;
    this.status.dataset.nodes = String(nodes);
    this.status.dataset.edges = String(edges);
    this.status.textContent = `${nodes} nodes, ${edges} relationships`;
  }

  showDetails(raw, node) {
    const title = node ? "(" + raw.id + (raw.labels || []).map((l) => ":" + l).join("") + ")" : "[" + raw.id + ":" + raw.type + "] " + raw.start + " → " + raw.end;
    const dl = document.createElement("dl");
    for (const [k, v] of Object.entries(raw.properties || {})) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = typeof v === "object" ? JSON.stringify(v) : String(v);
      dl.append(dt, dd);
    }
    const h = document.createElement("h3");
    h.textContent = title;
    this.details.replaceChildren(h, dl);
    this.details.hidden = false;
  }

  // expand adds a node's neighbours, skipping what is drawn already.
  async expand(target) {
    const id = target.data("raw").id;
    this.status.textContent = "expanding " + id + "…";
    try {
      const rows = await this.expandFn(id);
      const { nodes, rels } = collect(rows);
      const added = this.cy.add(this.elements(nodes, rels));
      added.nodes().forEach((n) => n.position({ x: target.position("x") + (Math.random() - 0.5) * 120, y: target.position("y") + (Math.random() - 0.5) * 120 }));
      this.fillCaptionKeys(new Map(this.cy.nodes().map((n) => [n.data("raw").id, n.data("raw")])));
      this.layout(true);
    } catch (e) {
      this.status.textContent = "expand failed: " + e.message;
    }
  }
}
