// The history of queries run, kept across reloads in localStorage (the
// texts only; parameters and results stay in the page).

const KEY = "quiver.console.history";
const MAX = 200;

export function list() {
  try {
    const h = JSON.parse(localStorage.getItem(KEY));
    return Array.isArray(h) ? h.filter((x) => typeof x === "string") : [];
  } catch (e) {
    return [];
  }
}

export function add(text) {
  const h = list().filter((x) => x !== text);
  h.unshift(text);
  try {
    localStorage.setItem(KEY, JSON.stringify(h.slice(0, MAX)));
  } catch (e) {
    // storage full or off: the history is a convenience
  }
}
