// The time range, as CDAP's lineage view offers it (last hour / day / week / custom), kept in the query string
// as the API's own `start` and `end` (epoch seconds or now-1h style), so a shared link shows the same window.

import {h} from "./dom.js";
import {navigate} from "./router.js";

export const PRESETS = [
  {key: "1h", label: "Last hour", start: "now-1h", end: "now"},
  {key: "1d", label: "Last day", start: "now-1d", end: "now"},
  {key: "7d", label: "Last week", start: "now-7d", end: "now"},
  {key: "30d", label: "Last 30 days", start: "now-30d", end: "now"},
  {key: "all", label: "All time", start: "0", end: null},
];
const DEFAULT = PRESETS[2];

/** The range in the URL: {start, end, preset} where preset is null for a custom range. */
export function currentRange() {
  const query = new URLSearchParams(location.search);
  if (!query.has("start") && !query.has("end")) return {...DEFAULT, preset: DEFAULT.key};
  const start = query.get("start") || "0";
  const end = query.get("end");
  const preset = PRESETS.find((p) => p.start === start && (p.end || null) === (end || null));
  return {start, end, preset: preset ? preset.key : null, label: preset ? preset.label : "Custom range"};
}

/** The range as API query parameters. */
export function apiRange() {
  const {start, end} = currentRange();
  return end ? {start, end} : {start};
}

function toInput(value) {
  if (value === null || value === undefined) return "";
  const seconds = /^\d+$/.test(value) ? Number(value) : relativeSeconds(value);
  if (seconds === null) return "";
  const date = new Date(seconds * 1000);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60000);
  return local.toISOString().slice(0, 16);
}

const UNITS = {s: 1, m: 60, h: 3600, d: 86400, w: 604800};

function relativeSeconds(text) {
  const found = /^now((?:[+-]\d+[smhdw])*)$/.exec(text);
  if (!found) return null;
  let seconds = Math.floor(Date.now() / 1000);
  for (const [, sign, count, unit] of found[1].matchAll(/([+-])(\d+)([smhdw])/g)) {
    seconds += (sign === "-" ? -1 : 1) * Number(count) * UNITS[unit];
  }
  return seconds;
}

function fromInput(text) {
  if (!text) return null;
  const millis = new Date(text).getTime();
  return Number.isFinite(millis) ? String(Math.floor(millis / 1000)) : null;
}

function go(start, end) {
  const url = new URL(location.href);
  url.searchParams.set("start", start);
  if (end) url.searchParams.set("end", end);
  else url.searchParams.delete("end");
  navigate(url.pathname + url.search + url.hash);
}

/** The picker: a preset list, and two date-time fields for a custom range. */
export function rangePicker() {
  const range = currentRange();
  const from = h("input", {type: "datetime-local", "aria-label": "From", value: toInput(range.start)});
  const to = h("input", {type: "datetime-local", "aria-label": "To (exclusive)", value: toInput(range.end || "now")});
  const apply = h("button", {type: "submit"}, "Apply");
  const custom = h("form", {class: "custom-range", hidden: range.preset !== null}, from, " – ", to, " ", apply);
  custom.addEventListener("submit", (event) => {
    event.preventDefault();
    const start = fromInput(from.value);
    const end = fromInput(to.value);
    if (start !== null && end !== null && Number(start) <= Number(end)) go(start, end);
  });
  const select = h("select", {"aria-label": "Time range", id: "time-range"},
    PRESETS.map((p) => h("option", {value: p.key, selected: p.key === range.preset}, p.label)),
    h("option", {value: "custom", selected: range.preset === null}, "Custom…"));
  select.addEventListener("change", () => {
    if (select.value === "custom") {
      custom.hidden = false;
      from.focus();
      return;
    }
    const preset = PRESETS.find((p) => p.key === select.value);
    go(preset.start, preset.end);
  });
  return h("div", {class: "range-picker"}, h("label", {}, "Time range ", select), custom);
}
