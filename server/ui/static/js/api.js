// The JSON API, with the bearer token of `wrangler serve --auth` asked for once per browser tab.
//
// The token lives in sessionStorage: it survives reloads and navigation within the tab, is not shared with
// other tabs, and is gone when the tab closes. A 401 opens the token dialog (one dialog however many requests
// failed at once) and retries; a 403 is an answer (this token does not grant that namespace), not a prompt.

const TOKEN_KEY = "wrangler-lineage-token";

export class ApiError extends Error {
  constructor(status, body, url) {
    const detail = body && body.error ? body.error.message : `HTTP ${status}`;
    super(detail);
    this.status = status;
    this.body = body;
    this.url = url;
    this.parameter = body && body.error ? body.error.parameter : undefined;
    this.errors = body && body.error ? body.error.errors || [] : [];
  }
}

export function token() {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function forgetToken() {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage disabled: nothing kept */ }
  showAuthState();
}

function showAuthState() {
  const badge = document.getElementById("auth-state");
  if (!badge) return;
  badge.hidden = !token();
  if (badge.hidden || badge.querySelector("button")) return;
  const forget = document.createElement("button");
  forget.type = "button";
  forget.textContent = "forget";
  forget.addEventListener("click", () => {
    forgetToken();
    location.reload();
  });
  badge.replaceChildren("token set for this tab · ", forget);
}

let pendingPrompt = null;
let memoryToken = null;

/** Ask for a token (once, however many requests wait for it); resolves true when one was given. */
function askForToken(reason) {
  if (pendingPrompt) return pendingPrompt;
  const dialog = document.getElementById("token-dialog");
  const input = document.getElementById("token-input");
  const form = document.getElementById("token-form");
  const cancel = document.getElementById("token-cancel");
  document.getElementById("token-reason").textContent = reason;
  pendingPrompt = new Promise((resolve) => {
    const done = (given) => {
      form.removeEventListener("submit", onSubmit);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      pendingPrompt = null;
      showAuthState();
      resolve(given);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      const value = input.value.trim();
      if (!value) return;
      try {
        sessionStorage.setItem(TOKEN_KEY, value);
      } catch { /* storage disabled: the token lasts this page only */ memoryToken = value; }
      input.value = "";
      done(true);
    };
    const onCancel = (event) => {
      event.preventDefault();
      done(false);
    };
    form.addEventListener("submit", onSubmit);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    input.focus();
  });
  return pendingPrompt;
}

function buildUrl(path, query) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== null && value !== undefined && value !== "") url.searchParams.set(key, String(value));
  }
  return url;
}

/** One API call; JSON in and out. Throws ApiError for any answer that is not 2xx. */
export async function request(method, path, {query, body} = {}) {
  const url = buildUrl(path, query);
  for (let attempt = 0; ; attempt++) {
    const headers = {Accept: "application/json"};
    const bearer = token() || memoryToken;
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, {method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                       credentials: "same-origin"});
    const type = response.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await response.json().catch(() => null) : null;
    if (response.status === 401 && attempt < 3) {
      const reason = bearer
        ? "The token was not accepted. Enter a valid bearer token for this server."
        : "This server was started with --auth: enter your bearer token. It is kept for this browser tab only.";
      if (bearer) forgetToken();
      memoryToken = null;
      if (await askForToken(reason)) continue;
    }
    if (!response.ok) throw new ApiError(response.status, data, url.pathname);
    return data;
  }
}

const memo = new Map();

/** GET, remembered for the life of the page by URL (screens ask for the same lineage many times). */
export function get(path, query) {
  const key = buildUrl(path, query).toString();
  if (!memo.has(key)) {
    const promise = request("GET", path, {query});
    memo.set(key, promise);
    promise.catch(() => memo.delete(key));
  }
  return memo.get(key);
}

/** Forget remembered answers: a screen re-entered shows runs recorded since. */
export function forgetAnswers() {
  memo.clear();
}

export function post(path, body) {
  return request("POST", path, {body});
}

/** Every page of a paged list (follows next_cursor), up to `maxPages`. */
export async function getAll(path, query, listKey, maxPages = 20) {
  const items = [];
  let cursor = null;
  let cut = false;  // some page left out what the token may not read
  for (let page = 0; page < maxPages; page++) {
    const answer = await get(path, {...query, cursor});
    items.push(...answer[listKey]);
    cut = cut || Boolean(answer.cut);
    cursor = answer.next_cursor;
    if (!cursor) return {items, complete: true, cut};
  }
  return {items, complete: false, cut};
}

/** Path segments are names that may hold "/", "?" or "#": always encode them. */
export function seg(name) {
  return encodeURIComponent(name);
}

export function nsPath(ns) {
  return `/v3/namespaces/${seg(ns)}`;
}

export function datasetPath(ns, ds) {
  return `${nsPath(ns)}/datasets/${seg(ds)}`;
}

showAuthState();
