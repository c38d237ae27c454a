// Login when the server runs with --auth-enabled: the token flow of
// /api/v1/auth/token. The tokens live in sessionStorage (this tab only,
// gone with it) and are sent in the Authorization header; never in a
// cookie, which the API would not accept anyway, so the server's
// cross-site rules stay as they are. The access token is refreshed a
// minute before it expires.

import { request, setTokenSource } from "./api.js";

const KEY = "quiver.console.session";
let session = load();
let timer = null;
let onChange = () => {};

function load() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY)) || null;
  } catch (e) {
    return null;
  }
}

function store(s) {
  session = s;
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
  schedule();
  onChange(s);
}

setTokenSource(() => (session ? session.access : null));

// user answers the logged-in user's name, or null.
export function user() {
  return session ? session.user : null;
}

// watch calls fn(session or null) at every login, refresh and logout.
export function watch(fn) {
  onChange = fn;
  schedule();
}

function fromAnswer(name, a) {
  return { user: name, access: a.access_token, refresh: a.refresh_token, expires: Date.now() + a.expires_in * 1000 };
}

export async function login(name, password) {
  const a = await request("POST", "/api/v1/auth/token", { username: name, password });
  store(fromAnswer(name, a));
}

export async function refresh() {
  if (!session) return;
  try {
    const a = await request("POST", "/api/v1/auth/refresh", { refresh_token: session.refresh });
    store(fromAnswer(session.user, a));
  } catch (e) {
    store(null); // spent, revoked or expired: log in again
  }
}

export async function logout() {
  try {
    if (session) await request("POST", "/api/v1/auth/logout");
  } finally {
    store(null);
  }
}

function schedule() {
  clearTimeout(timer);
  if (!session) return;
  const wait = Math.max(session.expires - Date.now() - 60000, 1000);
  timer = setTimeout(refresh, Math.min(wait, 2 ** 31 - 1));
}

// authRequired asks the server whether it wants credentials: the status
// endpoint answers 401 without them when authentication is on. A held
// session whose access token has lapsed (a reload after a sleep) is
// refreshed first.
export async function authRequired() {
  const probe = () => fetch("/api/v1/status", { headers: session ? { Authorization: "Bearer " + session.access } : {}, credentials: "omit", cache: "no-store" });
  let resp = await probe();
  if (resp.status === 401 && session) {
    await refresh();
    if (session) resp = await probe();
  }
  if (resp.status === 401 && session) store(null);
  return resp.status === 401;
}
