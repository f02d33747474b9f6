// / and /ui: go to a namespace - the one chosen last in this browser, else the one with the newest run.

import {get} from "../api.js";
import {h, notice} from "../dom.js";
import {navigate, paths} from "../router.js";
import {code, errorNotice, headline, markReady, screen} from "./common.js";

const LAST_NAMESPACE = "wrangler-lineage-namespace";

export function rememberNamespace(ns) {
  try {
    localStorage.setItem(LAST_NAMESPACE, ns);
  } catch { /* storage disabled */ }
}

export async function renderHome(main) {
  document.title = "wrangler-lineage";
  let answer;
  try {
    answer = await get("/v3/namespaces");
  } catch (error) {
    main.replaceChildren(screen("home", headline("Lineage"), errorNotice(error, "the namespaces")));
    markReady(main);
    return;
  }
  const names = answer.namespaces.map((ns) => ns.name);
  let chosen = null;
  try {
    chosen = localStorage.getItem(LAST_NAMESPACE);
  } catch { /* storage disabled */ }
  if (!names.includes(chosen)) {
    const newest = [...answer.namespaces].filter((ns) => ns.last_run)
      .sort((a, b) => b.last_run.start - a.last_run.start)[0];
    chosen = newest ? newest.name : names[0];
  }
  if (!main.isConnected) return;
  if (chosen) {
    navigate(paths.namespace(chosen) + location.search, {replace: true});
    return;
  }
  main.replaceChildren(screen("home", headline("No lineage recorded yet"),
    notice("info", "Nothing has been recorded in this store. Record a run, for example with ",
      code("wrangler run recipe.txt --input in.csv --output out.parquet --store lineage.db --namespace sales"),
      ", or POST one to ", code("/v3/namespaces/{ns}/lineage/runs"), ". Meanwhile, try the ",
      h("a", {href: paths.recipe(), "data-nav": true}, "recipe playground"), ".")));
  markReady(main);
}
