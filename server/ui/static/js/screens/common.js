// Pieces every screen uses: links that keep the time range, breadcrumbs, headings, error notices.

import {forgetToken} from "../api.js";
import {h, notice} from "../dom.js";
import {paths, withRange} from "../router.js";

/** An in-app link: keeps the time range and moves without reloading the page. */
export function link(path, text, attrs = {}) {
  return h("a", {href: withRange(path), "data-nav": true, ...attrs}, text);
}

export function breadcrumb(ns, ...rest) {
  const items = [h("li", {}, link(paths.namespace(ns), ns))];
  for (const [path, text] of rest) items.push(h("li", {}, path ? link(path, text) : h("span", {"aria-current": "page"}, text)));
  return h("nav", {class: "breadcrumb", "aria-label": "Breadcrumb"}, h("ol", {}, items));
}

export function screen(kind, ...children) {
  return h("section", {class: `screen ${kind}`}, ...children);
}

/** What went wrong, in words: a missing token, a token for another namespace, nothing found, or the error. */
export function errorNotice(error, what = "this") {
  if (error && error.status === 403) {
    return notice("error", `Your token does not grant access to ${what}. `,
      h("button", {type: "button", onclick: () => { forgetToken(); location.reload(); }}, "Use another token"));
  }
  if (error && error.status === 401) return notice("error", "This server needs a token, and none was given.");
  if (error && error.status === 404) return notice("error", `Not found: ${error.message}`);
  return notice("error", `Could not load ${what}: ${error && error.message ? error.message : error}`);
}

export function headline(text, ...rest) {
  return h("h1", {tabindex: -1}, text, ...rest);
}

export function code(text) {
  return h("code", {}, text);
}

/** "3 fields", "1 field". */
export function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Tell tests and `chromium --dump-dom` that the screen's data is drawn - unless the user has moved on and
 * `host` (the screen's own element, see app.js) is no longer on the page. */
export function markReady(host) {
  if (host.isConnected) document.body.dataset.ready = "true";
}

/** Said wherever an answer was cut at the namespaces the token may not read (the API's `cut`). */
export function cutNotice() {
  return notice("info", "Some lineage goes through namespaces your token may not read: it is left out here.");
}
