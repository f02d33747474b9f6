// Building DOM and SVG from data without innerHTML: every name from the store is set as text, never parsed
// as markup, so a dataset called "<img onerror=…>" is shown, not run.

const SVG_NS = "http://www.w3.org/2000/svg";

function applyAttributes(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "text") {
      el.textContent = String(value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function appendChildren(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h("a", {href: "/x", class: "y"}, "text", otherNode). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  applyAttributes(el, attrs);
  appendChildren(el, children);
  return el;
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  applyAttributes(el, attrs);
  appendChildren(el, children);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/** Epoch seconds as a short local date and time. */
export function when(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  const date = new Date(seconds * 1000);
  return date.toLocaleString(undefined, {year: "numeric", month: "short", day: "numeric", hour: "2-digit",
                                         minute: "2-digit"});
}

/** A <time> element for epoch seconds, with the ISO form for machines and screen readers. */
export function timeEl(seconds) {
  if (seconds === null || seconds === undefined) return h("span", {}, "—");
  return h("time", {datetime: new Date(seconds * 1000).toISOString()}, when(seconds));
}

/** A message block for errors and empty states. */
export function notice(kind, ...children) {
  return h("div", {class: `notice ${kind}`, role: kind === "error" ? "alert" : "status"}, ...children);
}

/** Text width in CSS pixels for the graph's font, measured once per string. */
const widths = new Map();
let context = null;
export function textWidth(text, font = "13px system-ui, sans-serif") {
  const key = font + "\u0000" + text;
  let width = widths.get(key);
  if (width === undefined) {
    context = context || document.createElement("canvas").getContext("2d");
    context.font = font;
    width = context.measureText(text).width;
    widths.set(key, width);
  }
  return width;
}

/** Run fn at most once per `delay` ms of quiet. */
export function debounce(fn, delay) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), delay);
  };
}
