// EXPLAIN and PROFILE as a plan tree. EXPLAIN's plan is a tree of
// operators with estimates; PROFILE's operators come in pre-order (the
// root, then each input's subtree, as EXPLAIN's children), so the
// profile is laid on the tree by that order. The costliest operators are
// marked: for PROFILE by their share of the time and of the db hits, for
// EXPLAIN by their share of the estimated cost.

function preorder(node, out = []) {
  out.push(node);
  (node.children || []).forEach((c) => preorder(c, out));
  return out;
}

// attach lays profile operators on the plan's nodes when they match one
// for one by name; answers whether they did.
export function attach(plan, operators) {
  const nodes = preorder(plan);
  if (!operators || nodes.length !== operators.length) return false;
  for (let i = 0; i < nodes.length; i++) if (nodes[i].operator !== operators[i].name) return false;
  nodes.forEach((n, i) => (n.profile = operators[i]));
  return true;
}

function num(x, digits = 1) {
  if (x === undefined || x === null) return "";
  return Number.isInteger(x) ? x.toLocaleString("en") : x.toLocaleString("en", { maximumFractionDigits: digits });
}

// render draws plan (with profile laid on it, or a flat operator list when
// it could not be) into root.
export function render(root, plan, profile) {
  root.replaceChildren();
  const summary = document.createElement("p");
  summary.className = "plan-summary";
  if (!plan && profile) {
    // no tree: the operators as PROFILE lists them
    plan = null;
  }
  const nodes = plan ? preorder(plan) : [];
  const laid = plan && profile ? attach(plan, profile.operators) : false;
  const totalTime = laid ? nodes.reduce((s, n) => s + (n.profile.time_ms || 0), 0) : 0;
  const totalHits = laid ? nodes.reduce((s, n) => s + (n.profile.db_hits || 0), 0) : 0;
  const totalCost = nodes.reduce((s, n) => s + (n.estimated_cost || 0), 0);
  summary.textContent = profile
    ? `PROFILE: ${num(profile.total_time_ms, 3)} ms in all, ${num(totalHits)} db hits`
    : `EXPLAIN: estimated cost ${num(totalCost)}, ${num(plan ? plan.estimated_rows : 0)} rows`;
  root.append(summary);
  const draw = (node) => {
    const li = document.createElement("li");
    const box = document.createElement("div");
    box.className = "op";
    box.dataset.operator = node.operator;
    const name = document.createElement("strong");
    name.textContent = node.operator;
    box.append(name);
    if (node.details) {
      const d = document.createElement("code");
      d.textContent = node.details;
      box.append(" ", d);
    }
    const facts = document.createElement("div");
    facts.className = "op-facts";
    const items = [`est. rows ${num(node.estimated_rows)}`, `est. cost ${num(node.estimated_cost)}`];
    if (node.index_used) items.push(`index ${node.index_used}`);
    let share = totalCost > 0 ? (node.estimated_cost || 0) / totalCost : 0;
    if (node.profile) {
      const p = node.profile;
      items.push(`rows ${num(p.rows_processed)}`, `time ${num(p.time_ms, 3)} ms`, `db hits ${num(p.db_hits)}`);
      share = Math.max(totalTime > 0 ? (p.time_ms || 0) / totalTime : 0, totalHits > 0 ? (p.db_hits || 0) / totalHits : 0);
    }
    facts.textContent = items.join(" · ");
    box.append(facts);
    // A strategy EXPLAIN named that a guard turned down as it ran.
    for (const f of (node.profile && node.profile.fallbacks) || []) {
      const fb = document.createElement("div");
      fb.className = "op-fallback";
      fb.textContent = `fell back: ${f}`;
      box.append(fb);
    }
    if (nodes.length > 1 && share >= 0.4) box.classList.add("op-hot");
    else if (nodes.length > 1 && share >= 0.2) box.classList.add("op-warm");
    li.append(box);
    if (node.children && node.children.length) {
      const ul = document.createElement("ul");
      node.children.forEach((c) => ul.append(draw(c)));
      li.append(ul);
    }
    return li;
  };
  const tree = document.createElement("ul");
  tree.className = "plan-tree";
  if (plan) tree.append(draw(plan));
  else if (profile) {
    for (const o of profile.operators) tree.append(draw({ operator: o.name, profile: o, children: [] }));
  }
  root.append(tree);
}
