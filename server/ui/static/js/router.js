// Paths are the screens: every screen is a URL that can be shared, and history.pushState keeps the browser's
// back and forward buttons moving between screens (and between time ranges) without reloading the page.

import {seg} from "./api.js";

const ROUTES = [
  [/^\/$/, "home", []],
  [/^\/ui\/?$/, "home", []],
  [/^\/ui\/recipe\/?$/, "recipe", []],
  [/^\/docs\/reference\/?$/, "docs", []],
  [/^\/ui\/([^/]+)\/?$/, "namespace", ["ns"]],
  [/^\/ui\/([^/]+)\/datasets\/?$/, "namespace", ["ns"]],
  [/^\/ui\/([^/]+)\/datasets\/([^/]+)\/?$/, "dataset", ["ns", "ds"]],
  [/^\/ui\/([^/]+)\/datasets\/([^/]+)\/fields\/([^/]+)\/?$/, "field", ["ns", "ds", "field"]],
  [/^\/ui\/([^/]+)\/datasets\/([^/]+)\/columns\/([^/]+)\/?$/, "column", ["ns", "ds", "col"]],
  [/^\/ui\/([^/]+)\/runs\/([^/]+)\/?$/, "run", ["ns", "run"]],
];

/** The screen a path names, with its decoded parameters; null when no screen does. */
export function match(pathname) {
  for (const [pattern, name, keys] of ROUTES) {
    const found = pattern.exec(pathname);
    if (!found) continue;
    const params = {};
    try {
      keys.forEach((key, i) => { params[key] = decodeURIComponent(found[i + 1]); });
    } catch {
      return null;  // a malformed %-escape
    }
    return {name, params};
  }
  return null;
}

/** Screen paths, built from names (always encoded: a dataset may be called "a/b"). */
export const paths = {
  // a namespace called "recipe" would share the playground's address: it has the longer one
  namespace: (ns) => (ns === "recipe" ? "/ui/recipe/datasets" : `/ui/${seg(ns)}`),
  dataset: (ns, ds) => `/ui/${seg(ns)}/datasets/${seg(ds)}`,
  field: (ns, ds, field) => `/ui/${seg(ns)}/datasets/${seg(ds)}/fields/${seg(field)}`,
  column: (ns, ds, col) => `/ui/${seg(ns)}/datasets/${seg(ds)}/columns/${seg(col)}`,
  run: (ns, run) => `/ui/${seg(ns)}/runs/${seg(run)}`,
  recipe: () => "/ui/recipe",
  docs: () => "/docs/reference",
};

const RANGE_KEYS = ["start", "end"];

/** ``path`` with the current time range carried over, so following a link keeps the range. */
export function withRange(path, extra = {}) {
  const current = new URLSearchParams(location.search);
  const query = new URLSearchParams();
  for (const key of RANGE_KEYS) {
    if (current.has(key)) query.set(key, current.get(key));
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === null || value === undefined || value === "") query.delete(key);
    else query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

let renderCurrent = () => {};

export function onNavigate(render) {
  renderCurrent = render;
  window.addEventListener("popstate", () => renderCurrent());
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-nav]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;  // new tab or window
    const url = new URL(link.href, location.origin);
    if (url.origin !== location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}

/** Go to a screen: a new history entry (or replace the current one), then draw it. */
export function navigate(url, {replace = false} = {}) {
  const target = new URL(url, location.origin);
  const same = target.pathname + target.search + target.hash === location.pathname + location.search + location.hash;
  if (replace) history.replaceState(null, "", target);
  else if (!same) history.pushState(null, "", target);
  renderCurrent();
}

/** Change the query string in place (no new history entry), e.g. while typing in a search box. */
export function replaceQuery(values) {
  const url = new URL(location.href);
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === undefined || value === "") url.searchParams.delete(key);
    else url.searchParams.set(key, String(value));
  }
  history.replaceState(null, "", url);
}
