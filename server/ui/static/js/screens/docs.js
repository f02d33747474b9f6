// /docs/reference: a compact API reference, drawn from the server's own /openapi.json (generated from the route
// table, so it always matches the code), inside the view so its calls use this tab's token; /docs is Swagger UI.
// No third-party renderer here: the document is OpenAPI 3.1 with JSON Schema 2020-12,
// which this page shows directly - operations by tag, parameters, bodies and answers with their schemas
// (references expandable), and a form to try a call with this tab's token.

import {ApiError, request} from "../api.js";
import {h} from "../dom.js";
import {code, headline, markReady, screen} from "./common.js";

const METHODS = ["get", "post", "put", "delete", "patch"];

function refName(ref) {
  return ref.split("/").pop();
}

function typeText(schema) {
  if (!schema || typeof schema !== "object") return "any";
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf) return schema.anyOf.map(typeText).join(" | ");
  if (schema.oneOf) return schema.oneOf.map(typeText).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.type === "array") return `${typeText(schema.items)}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(" | ");
  if (schema.type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object") {
    return `{string: ${typeText(schema.additionalProperties)}}`;
  }
  return schema.type || "object";
}

function constraints(schema) {
  const parts = [];
  for (const [key, label] of [["minimum", "≥"], ["maximum", "≤"], ["exclusiveMaximum", "<"], ["minLength", "min length"],
    ["maxLength", "max length"], ["maxItems", "max items"], ["pattern", "pattern"], ["default", "default"]]) {
    if (schema && schema[key] !== undefined) parts.push(`${label} ${typeof schema[key] === "string" ? schema[key] : JSON.stringify(schema[key])}`);
  }
  return parts.join(", ");
}

/** A schema as nested lists: properties with types; $refs open on demand (so cycles are fine). */
function schemaView(schema, components, depth = 0) {
  if (!schema || typeof schema !== "object") return h("span", {class: "muted"}, "any");
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const target = components[name];
    const body = h("div", {class: "schema-body"});
    const details = h("details", {class: "schema-ref"}, h("summary", {}, code(name)), body);
    details.addEventListener("toggle", () => {
      if (details.open && !body.firstChild) body.append(schemaView(target, components, depth + 1));
    }, {once: false});
    return details;
  }
  const variants = schema.anyOf || schema.oneOf;
  if (variants) {
    return h("div", {class: "schema-variants"}, h("span", {class: "muted"}, "one of:"),
      h("ul", {}, variants.map((variant) => h("li", {}, schemaView(variant, components, depth + 1)))));
  }
  if (schema.type === "array") {
    return h("div", {}, h("span", {class: "muted"}, "array of "), schemaView(schema.items, components, depth + 1));
  }
  const properties = schema.properties || {};
  const names = Object.keys(properties);
  if (!names.length) {
    return h("span", {}, code(typeText(schema)), schema.description ? ` — ${schema.description}` : "");
  }
  const required = new Set(schema.required || []);
  return h("table", {class: "schema"}, h("tbody", {}, names.map((name) => {
    const prop = properties[name];
    const nested = prop.$ref || prop.properties || (prop.type === "array" && prop.items && (prop.items.$ref || prop.items.properties));
    return h("tr", {},
      h("th", {scope: "row"}, code(name), required.has(name) ? h("span", {class: "required", title: "required"}, "*") : null),
      h("td", {}, code(typeText(prop))),
      h("td", {}, prop.description || "", constraints(prop) ? h("div", {class: "muted"}, constraints(prop)) : null,
        nested && depth < 6 ? schemaView(prop.type === "array" ? prop.items : prop, components, depth + 1) : null));
  })));
}

function tryForm(method, path, operation) {
  const inputs = new Map();
  const fields = (operation.parameters || []).map((param) => {
    const input = h("input", {type: "text", name: param.name, placeholder: param.in === "path" ? "required" : "",
                              "aria-label": `${param.name} (${param.in})`});
    inputs.set(param, input);
    return h("label", {}, code(param.name), ` (${param.in})`, input);
  });
  const body = operation.requestBody ? h("textarea", {rows: 6, class: "code", "aria-label": "Request body (JSON)"}, "{}") : null;
  const output = h("pre", {class: "answer", "aria-live": "polite"});
  const form = h("form", {class: "try"}, fields, body ? h("label", {}, "Body (JSON)", body) : null,
    h("button", {type: "submit"}, `Send ${method.toUpperCase()}`), output);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let url = path;
    const query = {};
    for (const [param, input] of inputs) {
      if (param.in === "path") url = url.replace(`{${param.name}}`, encodeURIComponent(input.value));
      else if (input.value) query[param.name] = input.value;
    }
    let payload;
    if (body) {
      try {
        payload = JSON.parse(body.value);
      } catch (error) {
        output.textContent = `The body is not JSON: ${error.message}`;
        return;
      }
    }
    output.textContent = "…";
    try {
      const answer = await request(method.toUpperCase(), url, {query, body: payload});
      output.textContent = JSON.stringify(answer, null, 2);
    } catch (error) {
      output.textContent = error instanceof ApiError ? `${error.status}\n${JSON.stringify(error.body, null, 2)}` : String(error);
    }
  });
  return h("details", {class: "try-it"}, h("summary", {}, "Try it"), form);
}

function operationView(method, path, operation, components) {
  const id = `op-${operation.operationId}`;
  const params = operation.parameters || [];
  return h("section", {class: "operation", id, "aria-labelledby": `${id}-title`},
    h("h3", {id: `${id}-title`}, h("span", {class: `method ${method}`}, method.toUpperCase()), " ", code(path)),
    h("p", {class: "summary"}, operation.summary, operation.security ? "" : h("span", {class: "tag"}, "no token")),
    operation.description ? h("p", {class: "description"}, operation.description) : null,
    params.length ? [h("h4", {}, "Parameters"), h("table", {class: "params"},
      h("thead", {}, h("tr", {}, ["Name", "In", "Type", "Description"].map((t) => h("th", {scope: "col"}, t)))),
      h("tbody", {}, params.map((p) => h("tr", {},
        h("th", {scope: "row"}, code(p.name), p.required ? h("span", {class: "required", title: "required"}, "*") : null),
        h("td", {}, p.in), h("td", {}, code(typeText(p.schema))),
        h("td", {}, p.description || "", constraints(p.schema) ? h("div", {class: "muted"}, constraints(p.schema)) : null)))))]
      : null,
    operation.requestBody ? [h("h4", {}, "Request body"),
      schemaView(operation.requestBody.content["application/json"].schema, components)] : null,
    h("h4", {}, "Answers"),
    h("dl", {class: "responses"}, Object.entries(operation.responses || {}).map(([status, response]) => {
      const content = response.content && response.content["application/json"];
      return [h("dt", {}, code(status), " ", response.description || ""),
        h("dd", {}, content ? schemaView(content.schema, components) : null)];
    })),
    tryForm(method, path, operation));
}

export async function renderDocs(main) {
  document.title = "API reference · wrangler-lineage";
  let documentBody;
  try {
    documentBody = await request("GET", "/openapi.json");
  } catch (error) {
    main.replaceChildren(screen("docs", headline("API reference"), h("p", {class: "notice error"}, error.message)));
    markReady(main);
    return;
  }
  const components = (documentBody.components || {}).schemas || {};
  const byTag = new Map();
  for (const [path, item] of Object.entries(documentBody.paths)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      const tag = (item[method].tags || ["other"])[0];
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([method, path, item[method]]);
    }
  }
  const tags = [...byTag.keys()];
  const toc = h("nav", {class: "toc", "aria-label": "Operations"}, h("ul", {}, tags.map((tag) => h("li", {},
    h("a", {href: `#tag-${tag}`}, tag),
    h("ul", {}, byTag.get(tag).map(([method, path, op]) => h("li", {},
      h("a", {href: `#op-${op.operationId}`, title: path}, h("span", {class: `method ${method}`}, method.toUpperCase()), " ",
        op.summary))))))));
  const security = (documentBody.components || {}).securitySchemes || {};
  main.replaceChildren(screen("docs",
    headline(documentBody.info.title, " API reference ", h("span", {class: "muted"}, `v${documentBody.info.version}`)),
    h("p", {class: "lead"}, documentBody.info.description),
    Object.keys(security).length ? h("p", {}, "Authentication: ", Object.values(security).map((scheme) =>
      `${scheme.scheme || scheme.type} — ${scheme.description || ""}`).join("; "),
    ". Calls from this page use the token given in this tab.") : null,
    h("p", {}, "The same document, as JSON: ", h("a", {href: "/openapi.json"}, code("/openapi.json")), "."),
    h("div", {class: "docs-layout"}, toc, h("div", {class: "operations"}, tags.map((tag) => h("section", {id: `tag-${tag}`},
      h("h2", {}, tag), byTag.get(tag).map(([method, path, op]) => operationView(method, path, op, components))))))));
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  markReady(main);
}
