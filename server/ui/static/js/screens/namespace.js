// /ui/{ns}: the namespace's datasets that a run in the time range wrote or read, with their last run,
// searchable by name.

import {get, nsPath} from "../api.js";
import {debounce, h, timeEl} from "../dom.js";
import {paths, replaceQuery} from "../router.js";
import {apiRange, currentRange, rangePicker} from "../timerange.js";
import {code, cutNotice, errorNotice, headline, link, markReady, screen} from "./common.js";
import {rememberNamespace} from "./home.js";

function row(ns, item) {
  const run = item.last_run;
  const role = item.written && item.read ? "written and read" : item.written ? "written" : "read";
  return h("tr", {},
    h("th", {scope: "row"}, link(paths.dataset(ns, item.name), item.name, {class: "dataset-link"})),
    h("td", {class: "num"}, String(item.fields)),
    h("td", {}, role),
    h("td", {}, link(paths.run(run.namespace, run.run_id), run.run_id), " ", h("span", {class: "muted"},
      `${item.last_role} by ${run.program}`)),
    h("td", {}, timeEl(run.start)));
}

export async function renderNamespace(main, {ns}) {
  document.title = `${ns} · lineage`;
  rememberNamespace(ns);
  const search = new URLSearchParams(location.search).get("q") || "";
  const body = h("tbody");
  const status = h("p", {class: "muted", "aria-live": "polite"});
  const cutBox = h("div");
  const more = h("button", {type: "button", hidden: true}, "Show more datasets");
  const box = h("input", {type: "search", value: search, placeholder: "Search datasets by name",
                          "aria-label": "Search datasets by name", id: "dataset-search"});
  let cursor = null;
  let generation = 0;

  async function load(reset) {
    const mine = ++generation;
    if (reset) cursor = null;
    let answer;
    try {
      answer = await get(`${nsPath(ns)}/datasets`, {...apiRange(), search: box.value.trim() || null, limit: 100, cursor});
    } catch (error) {
      if (mine === generation) body.replaceChildren(h("tr", {}, h("td", {colspan: 5}, errorNotice(error, `namespace ${ns}`))));
      markReady(main);
      return;
    }
    if (mine !== generation) return;
    if (reset) body.replaceChildren();
    body.append(...answer.datasets.map((item) => row(ns, item)));
    cursor = answer.next_cursor;
    more.hidden = !cursor;
    const shown = body.querySelectorAll("tr").length;
    cutBox.replaceChildren(answer.cut ? cutNotice() : "");
    status.textContent = shown === 0
      ? `No dataset was written or read in this namespace in the range (${currentRange().label || "custom"}).`
      : `${shown} dataset${shown === 1 ? "" : "s"}${cursor ? " so far" : ""}.`;
    markReady(main);
  }

  box.addEventListener("input", debounce(() => {
    if (!main.isConnected) return;
    replaceQuery({q: box.value.trim() || null});
    load(true);
  }, 200));
  more.addEventListener("click", () => load(false));

  main.replaceChildren(screen("namespace",
    h("div", {class: "heading-row"}, headline("Datasets in ", code(ns)), rangePicker()),
    h("p", {class: "lead"}, "Each dataset a run wrote or read in the time range, with its newest run. Open one to see ",
      "its fields and where they come from."),
    h("div", {class: "search-row"}, box),
    h("table", {class: "list datasets"},
      h("caption", {class: "visually-hidden"}, `Datasets of namespace ${ns}`),
      h("thead", {}, h("tr", {}, ["Dataset", "Fields", "Role", "Last run", "When"].map((t) => h("th", {scope: "col"}, t)))),
      body),
    status, more, cutBox));
  await load(true);
}
