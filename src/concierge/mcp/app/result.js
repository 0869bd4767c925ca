// A tool result in an MCP host (MCP Apps, spec 2026-01-26): the web chat's table, totals and chart of a read, and
// its confirmation card of a write that waits for a yes, drawn with DOM nodes (never innerHTML). It talks to the
// host only, by JSON-RPC over postMessage: the card's confirm is a tools/call of the same tool with the same
// arguments and the confirmation token, which the host sends to the server. The words are the web chat's
// (text.js), in the language of the host's locale.
"use strict";

const PROTOCOL_VERSION = "2026-01-26";
const VIEW_KEY = "concierge/view"; // the result's _meta for the view: title, labels, a preview's card

const languageOf = (locale) => (String(locale || "").toLowerCase().startsWith("ja") ? "ja" : "en");
let lang = languageOf(navigator.language);
// host: what the host said it can do; input: the arguments of the call; items: the results shown, in order (a
// card's outcome follows it), each { result, settled, busy, note }.
const state = { host: {}, input: null, items: [] };
const view = document.getElementById("view");

const t = (key, ...args) => {
  const v = TEXT[lang][key];
  return typeof v === "function" ? v(...args) : v;
};
const viewOf = (result) => (result._meta && result._meta[VIEW_KEY]) || {};
const titleOf = (tool, about) => (about.title && about.title[lang]) || tool;

// A column's name: the web chat's, else the catalog's, else the column's own.
function label(column, about = {}) {
  const declared = about.labels && about.labels[column] && about.labels[column][lang];
  if (LABELS[lang][column]) return LABELS[lang][column];
  return declared ? declared.charAt(0).toUpperCase() + declared.slice(1) : column;
}

const textOf = (result) => (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// --- the host --------------------------------------------------------------------
const calls = new Map();
let lastId = 0;

function send(message) {
  window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
}

function notify(method, params) {
  send(params === undefined ? { method } : { method, params });
}

function request(method, params) {
  const id = ++lastId;
  send({ id, method, params });
  return new Promise((resolve, reject) => calls.set(id, { resolve, reject }));
}

window.addEventListener("message", (event) => {
  const message = event.data;
  if (event.source !== window.parent || !message || message.jsonrpc !== "2.0") return;
  if (message.method === undefined) answered(message);
  else if (message.id !== undefined) asked(message);
  else told(message.method, message.params || {});
});

function answered(response) {
  const call = calls.get(response.id);
  if (!call) return;
  calls.delete(response.id);
  if (response.error) call.reject(new Error(response.error.message));
  else call.resolve(response.result);
}

// What the host may ask: to tear the view down (it keeps nothing) and whether it is there.
function asked(message) {
  if (message.method === "ui/resource-teardown" || message.method === "ping") send({ id: message.id, result: {} });
  else send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
}

function told(method, params) {
  if (method === "ui/notifications/tool-input") {
    state.input = params.arguments || null;
  } else if (method === "ui/notifications/tool-result") {
    state.items = [{ result: params }];
    draw();
  } else if (method === "ui/notifications/host-context-changed") {
    useContext(params);
    draw();
  }
}

function useContext(context) {
  if (context.locale) lang = languageOf(context.locale);
  if (context.theme) document.documentElement.style.colorScheme = context.theme;
  document.documentElement.lang = lang;
}

// What the model should know of what the person did here, where the host takes it.
function tellModel(text) {
  if (!state.host.updateModelContext) return;
  request("ui/update-model-context", { content: [{ type: "text", text }] }).catch(() => {});
}

// The view's size, each time it changes, for the host to fit its frame to it.
function reportSize() {
  let last = "";
  const measure = () => {
    const root = document.documentElement;
    const height = root.style.height;
    root.style.height = "max-content";
    const size = { width: Math.ceil(window.innerWidth), height: Math.ceil(root.getBoundingClientRect().height) };
    root.style.height = height;
    if (JSON.stringify(size) !== last) {
      last = JSON.stringify(size);
      notify("ui/notifications/size-changed", size);
    }
  };
  const observer = new ResizeObserver(() => requestAnimationFrame(measure));
  observer.observe(document.documentElement);
  observer.observe(document.body);
}

async function start() {
  try {
    const init = await request("ui/initialize", {
      appInfo: { name: "concierge-result", version: "1.0.0" },
      appCapabilities: {},
      protocolVersion: PROTOCOL_VERSION,
    });
    state.host = init.hostCapabilities || {};
    useContext(init.hostContext || {});
    notify("ui/notifications/initialized");
    reportSize();
    draw();
  } catch (err) {
    view.replaceChildren(errorBlock(err.message));
  }
}

// --- drawing ---------------------------------------------------------------------
function draw() {
  for (const canvas of view.querySelectorAll("canvas")) {
    const drawn = window.Chart && window.Chart.getChart(canvas);
    if (drawn) drawn.destroy();
  }
  view.replaceChildren(...state.items.map(block));
}

function block(item) {
  const data = item.result.structuredContent;
  const about = viewOf(item.result);
  if (!data) return el("pre", { class: "plain" }, textOf(item.result));
  if (data.status === "confirm") return confirmCard(item, data, about);
  if (data.status === "refused" || data.status === "error") {
    return errorBlock((lang === "ja" && data.message_ja) || data.message || data.status);
  }
  return resultBlock(data, about)
    || el("p", { class: "result muted", "data-tool": data.tool }, `${titleOf(data.tool, about)} · ${t("rows", 0)}`);
}

function resultBlock(data, about) {
  const rows = data.rows || [];
  if (!rows.length) return null;
  const block = el("div", { class: "result", "data-tool": data.tool });
  const columns = data.columns && data.columns.length ? data.columns : Object.keys(rows[0]);
  const caption = [titleOf(data.tool, about), t("rows", data.row_count)];
  if (data.truncated) caption.push(t("truncated", rows.length, data.row_count));
  block.append(el("div", { class: "caption" }, el("span", {}, caption.join(" · "))));
  if (CHARTS[data.tool] && window.Chart) block.append(chart(CHARTS[data.tool](rows)));
  block.append(table(columns, rows, about));
  const totals = Object.entries(data.totals || {}).filter(([k]) => k !== "count");
  const summary = data.summary;
  if (totals.length || summary) {
    const parts = totals.map(([k, v]) => `${t("total")} ${label(k, about)}: ${formatValue(v)}`);
    if (summary) {
      parts.push(`${t("current")}: ${formatValue(summary.current_total)}`,
        `${t("previous")}: ${formatValue(summary.previous_total)}`,
        `${t("change")}: ${formatValue(summary.change)}${summary.change_pct === null ? "" : ` (${summary.change_pct.toFixed(1)}%)`}`);
    }
    block.append(el("div", { class: "totals" }, parts.join(" · ")));
  }
  return block;
}

// A write waiting for the person's yes: nothing is written until confirm, which calls the tool again through the
// host. Once settled, the card says what became of it in place of its question, and loses its buttons.
function confirmCard(item, data, about) {
  const said = (about.card && about.card[lang]) || {};
  const fields = said.fields && said.fields.length ? said.fields
    : Object.entries(data.preview || {}).map(([k, v]) => ({ label: label(k, about), value: formatValue(v) }));
  const settled = item.settled;
  const card = el("div", {
    class: `confirm-card${settled ? ` done settled-${settled}` : ""}`, "data-tool": data.tool,
    "data-state": settled || "waiting",
  }, el("h3", {}, settled ? t(`settled_${settled}`) : t("confirmTitle")));
  if (!settled) card.append(el("p", { class: "question" }, said.message || data.message || ""));
  card.append(el("dl", {}, fields.map((f) => [el("dt", {}, f.label), el("dd", {}, f.value)])));
  if (!settled) {
    if (said.warning) card.append(el("p", { class: "warning", role: "alert" }, said.warning));
    card.append(el("div", { class: "actions" },
      el("button", { type: "button", class: "primary confirm", disabled: item.busy, onclick: () => confirm(item, data) },
        t("confirm")),
      el("button", { type: "button", class: "cancel", disabled: item.busy, onclick: () => cancel(item, data) },
        t("cancel"))));
  }
  const note = settled ? item.note || t(`settledNote_${settled}`) : item.busy ? t("working") : item.note;
  card.append(el("p", { class: "state", role: "status" }, note || ""));
  return card;
}

async function confirm(item, data) {
  if (item.busy || item.settled) return;
  item.busy = true;
  item.note = "";
  draw();
  const args = { ...(state.input || data.args || {}), confirmation_token: data.confirmation_token };
  let outcome;
  try {
    outcome = await request("tools/call", { name: data.tool, arguments: args });
  } catch (err) {
    item.busy = false;
    item.note = `${t("error")}: ${err.message}`;
    draw();
    return;
  }
  const status = (outcome.structuredContent || {}).status;
  item.busy = false;
  item.settled = status === "ok" ? "confirmed" : status === "confirm" ? "changed" : "failed";
  state.items.push({ result: outcome });
  draw();
  tellModel(`The user confirmed ${data.tool} in the app. Its result:\n${textOf(outcome)}`);
}

function cancel(item, data) {
  if (item.busy || item.settled) return;
  item.settled = "cancelled";
  draw();
  tellModel(`The user cancelled ${data.tool} in the app: nothing was written.`);
}

start();
