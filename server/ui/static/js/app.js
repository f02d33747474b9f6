// The web view's entry point: reads the path, draws that screen, and redraws on every navigation.

import {forgetAnswers, get} from "./api.js";
import {h, notice} from "./dom.js";
import {match, navigate, onNavigate, paths, withRange} from "./router.js";
import {renderColumn} from "./screens/column.js";
import {renderDataset} from "./screens/dataset.js";
import {renderDocs} from "./screens/docs.js";
import {renderField} from "./screens/field.js";
import {renderHome} from "./screens/home.js";
import {renderNamespace} from "./screens/namespace.js";
import {renderRecipe} from "./screens/recipe.js";
import {renderRun} from "./screens/run.js";

const SCREENS = {
  home: renderHome, namespace: renderNamespace, dataset: renderDataset, field: renderField, column: renderColumn,
  run: renderRun, recipe: renderRecipe, docs: renderDocs,
};

const main = document.getElementById("main");
let namespacesLoaded = false;

async function fillNamespaces(current) {
  const select = document.getElementById("namespace-select");
  if (!namespacesLoaded) {
    namespacesLoaded = true;
    select.addEventListener("change", () => navigate(withRange(paths.namespace(select.value))));
    try {
      const answer = await get("/v3/namespaces");
      select.replaceChildren(...answer.namespaces.map((ns) => h("option", {value: ns.name}, ns.name)));
    } catch {
      select.closest("label").hidden = true;  // the screens say what went wrong
    }
  }
  if (current && ![...select.options].some((option) => option.value === current)) {
    select.append(h("option", {value: current}, current));
  }
  if (current) select.value = current;
}

async function render() {
  const route = match(location.pathname);
  forgetAnswers();
  document.body.dataset.screen = route ? route.name : "missing";
  delete document.body.dataset.ready;
  delete document.body.dataset.settled;
  if (!route) {
    document.title = "Not found · wrangler-lineage";
    main.replaceChildren(notice("error", "No screen has this address. ", h("a", {href: "/", "data-nav": true}, "Start again")));
    document.body.dataset.ready = "true";
    return;
  }
  fillNamespaces(route.params.ns);
  // each screen draws into an element of its own: a screen still loading when the user moves on keeps
  // drawing into an element no longer on the page, never over the next screen
  const host = h("div", {class: "screen-host"});
  main.replaceChildren(host);
  try {
    await SCREENS[route.name](host, route.params);
  } catch (error) {
    host.replaceChildren(notice("error", `This screen failed: ${error.message}`));
    console.error(error);
  }
  const heading = main.querySelector("h1");
  if (heading && document.activeElement === document.body) heading.focus({preventScroll: true});
}

onNavigate(render);
render();
