// The chat page: sign-in, the conversation list, streamed answers with tables, charts,
// confirmation cards and the trace. Everything is drawn with DOM nodes (never innerHTML),
// and every request goes to this server only. The words it shows are in text.js.
// At /embed it is the chat inside the host app's page (embed.js, docs/embed.md): signed in by the host's token.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { me: null, sessionId: null, busy: false, liveCard: null };
const EMBED = location.pathname === "/embed";
// A framed page may be refused its storage (third-party storage blocked): the page works without it.
const stored = {
  get: (key) => { try { return localStorage.getItem(key); } catch { return null; } },
  set: (key, value) => { try { localStorage.setItem(key, value); } catch { /* not kept */ } },
};
const asked = EMBED ? new URLSearchParams(location.search).get("lang") : null;
let lang = (["ja", "en"].includes(asked) && asked) || stored.get("concierge.lang")
  || (navigator.language.startsWith("ja") ? "ja" : "en");

const t = (key, ...args) => {
  const v = TEXT[lang][key];
  return typeof v === "function" ? v(...args) : v;
};
const label = (column) => LABELS[lang][column] || column;

// --- language ----------------------------------------------------------------
function applyLanguage() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of document.querySelectorAll(".lang-toggle")) node.textContent = lang === "ja" ? "English" : "日本語";
  if (company) showCompany();
  if (state.me) { showSetup(); showExamples(); }
}

for (const node of document.querySelectorAll(".lang-toggle")) {
  node.addEventListener("click", () => {
    lang = lang === "ja" ? "en" : "ja";
    stored.set("concierge.lang", lang);
    applyLanguage();
    // the open conversation drawn again: its captions, cards and trace in the new language (answers stay in
    // the language they were asked in)
    if (state.me && state.sessionId) openSession(state.sessionId);
    if (state.me) refreshSessions();
  });
}

// --- the server ----------------------------------------------------------------
class SignedOut extends Error {}

// Embedded: the session's signed value, kept in memory only and sent as a header (no cookie in another site's frame).
let session = null;
let sessionAnswered = false;  // a request of this session was answered: a 401 after it may sign in again
const sessionHeaders = () => (session ? { "X-Concierge-Session": session } : {});

// A 401 on a request that carried the current session: sign in again. Embedded, a request sent with no session
// (a sign-in under way, or the user signed out) asks for nothing, or two tokens would be asked for at once.
function refused(sent) {
  if (sent !== session) return;
  if (!EMBED) showSignIn();
  else if (sent !== null) askHostForToken();
}

async function api(path, { method = "GET", body } = {}) {
  const sent = session;
  const res = await fetch(path, {
    method,
    headers: { ...sessionHeaders(), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) { refused(sent); throw new SignedOut(); }
  if (sent === session) sessionAnswered = true;
  if (res.status === 204) return {};
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.detail || `${res.status} ${res.statusText}`);
  return data;
}

// POST, then read the server-sent events as they arrive.
async function stream(path, body, onEvent) {
  const sent = session;
  const res = await fetch(path, {
    method: "POST",
    headers: { ...sessionHeaders(), "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(body || {}),
  });
  if (res.status === 401) { refused(sent); throw new SignedOut(); }
  if (sent === session) sessionAnswered = true;
  if (!res.ok) {
    const data = await res.json().catch(() => ({}));
    throw new Error(data.detail || `${res.status} ${res.statusText}`);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let match;
    while ((match = /\r\n\r\n|\n\n|\r\r/.exec(buffer))) {
      const block = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      let type = "message";
      const data = [];
      for (const line of block.split(/\r\n|\n|\r/)) {
        if (line.startsWith("event:")) type = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(type, JSON.parse(data.join("\n")));
    }
  }
}

// --- sign-in -----------------------------------------------------------------
// The company's own sign-in (OpenID Connect), when the server has one: a link that leaves for it and comes back.
let company = null;

function showCompany() {
  const link = $("signin-company");
  link.hidden = !company;
  if (!company) return;
  link.textContent = t("signInWith", company.label);
  link.href = `${company.start}?next=${encodeURIComponent(location.pathname)}`;
}

function showSignIn() {
  state.me = null;
  $("app").hidden = true;
  $("signin").hidden = false;
  $("signin-name").focus();
  fetch("/api/sign-in-options").then((res) => (res.ok ? res.json() : {})).then((data) => {
    company = data.oidc || null;
    showCompany();
  }).catch(() => {});
}

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  try {
    const res = await fetch("/api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: $("signin-name").value.trim(), password: $("signin-password").value }),
    });
    if (!res.ok) {
      const wait = res.headers.get("Retry-After");
      $("signin-error").textContent = res.status === 429 ? t("tooManySignIns", wait) : t("badSignIn");
      return;
    }
    $("signin-password").value = "";
    await start(await res.json());
  } catch {
    $("signin-error").textContent = t("network");
  }
});

$("signout").addEventListener("click", async () => {
  await fetch("/api/logout", { method: "POST" });
  newChat();
  showSignIn();
});

async function start(me) {
  state.me = me;
  $("signin").hidden = true;
  $("embed-status").hidden = true;
  $("app").hidden = false;
  $("who").textContent = me.display_name;
  applyLanguage();
  newChat();
  await refreshSessions();
}

// What runs the answers and the demo clocks: for administrators only (staff need none of it).
function showSetup() {
  if (state.me.role !== "admin") { $("setup").textContent = ""; return; }
  const clocks = Object.entries(state.me.today).map(([c, d]) => `${c} ${d}`).join(" / ");
  const who = state.me.provider === "offline" ? t("offline") : `${state.me.provider}${state.me.model ? ` (${state.me.model})` : ""}`;
  $("setup").textContent = `${who} · ${t("today")} ${clocks}`;
}

const titleOf = (tool) => ((state.me && state.me.titles[tool]) || {})[lang] || tool;
const statusOf = (status) => t(`status_${status}`) || status;

// The requests the user's tools answer, as cards: every tool's first one at the start; after an answer, those of
// the other tools of its catalog.
function suggestions(exclude = []) {
  const out = [];
  for (const [tool, byLang] of Object.entries(state.me.examples || {})) {
    if (exclude.includes(tool)) continue;
    const said = byLang[lang] || [];
    if (said.length) out.push(said[0]);
  }
  return out;
}

function suggestionCards(texts, cls) {
  return el("ul", { class: cls }, texts.map((text) => el("li", {}, el("button", { type: "button", class: "suggestion", onclick: () => ask(text) }, text))));
}

function showExamples() {
  const list = $("examples");
  list.replaceChildren(...suggestionCards(suggestions().slice(0, 6), "examples").childNodes);
}

// --- conversations -------------------------------------------------------------
// Lists asked for one after another may come back in another order: only the newest asked is drawn, so a rename
// or a delete is never undone on screen by a list read before it.
let sessionsAsked = 0;

async function refreshSessions() {
  const list = $("sessions");
  const q = $("search").value.trim();
  const asked = ++sessionsAsked;
  let sessions;
  try { sessions = await api(`/api/sessions${q ? `?q=${encodeURIComponent(q)}` : ""}`); } catch (err) { if (err instanceof SignedOut) return; throw err; }
  if (asked !== sessionsAsked) return;
  list.replaceChildren();
  if (!sessions.length) list.append(el("li", { class: "muted" }, t(q ? "noMatches" : "noConversations")));
  for (const s of sessions) {
    const when = s.updated_at ? new Date(s.updated_at).toLocaleString(lang === "ja" ? "ja-JP" : "en-US") : "";
    const name = s.title || s.session_id;
    list.append(el("li", { class: "session" }, el("button", {
      type: "button", class: `open${s.session_id === state.sessionId ? " active" : ""}`, "data-session": s.session_id,
      onclick: () => openSession(s.session_id),
    }, el("span", { class: "title" }, name),
    el("span", { class: "when" }, when, s.pending ? el("span", { class: "waiting" }, ` · ${t("waiting")}`) : null)),
    el("button", { type: "button", class: "icon-action rename", "aria-label": t("renameOf", name), title: t("rename"), onclick: () => renameSession(s.session_id, name) }, "✎"),
    el("button", { type: "button", class: "icon-action delete", "aria-label": t("deleteOf", name), title: t("delete"), onclick: () => deleteSession(s.session_id, name) }, "✕")));
  }
}

async function renameSession(sessionId, name) {
  const title = (prompt(t("renamePrompt"), name) || "").trim();
  if (!title || title === name) return;
  try { await api(`/api/sessions/${encodeURIComponent(sessionId)}`, { method: "PATCH", body: { title } }); } catch (err) { if (err instanceof SignedOut) return; alert(err.message); }
  refreshSessions();
}

async function deleteSession(sessionId, name) {
  if (!confirm(t("deleteConfirm", name))) return;
  try { await api(`/api/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE" }); } catch (err) { if (err instanceof SignedOut) return; alert(err.message); }
  if (sessionId === state.sessionId) newChat();
  refreshSessions();
}

let searchTimer = null;
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(refreshSessions, 250);
});

function newChat() {
  state.sessionId = null;
  state.liveCard = null;
  const messages = $("messages");
  messages.replaceChildren($("welcome") || el("div"));
  $("welcome").hidden = false;
  $("sidebar").classList.remove("open");
  for (const b of document.querySelectorAll("#sessions button")) b.classList.remove("active");
  $("input").focus();
}

$("new-chat").addEventListener("click", newChat);
$("menu").addEventListener("click", () => $("sidebar").classList.toggle("open"));

async function openSession(sessionId) {
  $("sidebar").classList.remove("open");
  let data;
  try { data = await api(`/api/sessions/${encodeURIComponent(sessionId)}`); } catch (err) {
    if (!(err instanceof SignedOut)) alert(t("notFound"));
    return;
  }
  newChat();
  state.sessionId = sessionId;
  $("welcome").hidden = true;
  data.exchanges.forEach((exchange, i) => {
    addUserMessage(exchange.question);
    const pending = i === data.exchanges.length - 1 ? data.pending : null;
    renderTurn(addAssistantMessage(), { ...exchange, session_id: sessionId, pending }, false);
  });
  for (const b of document.querySelectorAll("#sessions button")) b.classList.toggle("active", b.dataset.session === sessionId);
  scrollDown();
}

// --- asking ----------------------------------------------------------------------
function addUserMessage(text) {
  $("welcome").hidden = true;
  $("messages").append(el("div", { class: "msg user" }, text));
}

function addAssistantMessage() {
  const box = el("div", { class: "msg assistant" });
  $("messages").append(box);
  return box;
}

function scrollDown() {
  const m = $("messages");
  m.scrollTop = m.scrollHeight;
}

function setBusy(busy) {
  state.busy = busy;
  $("send").disabled = busy;
}

async function ask(text) {
  text = text.trim();
  if (!text || state.busy) return;
  $("input").value = "";
  autosize();
  addUserMessage(text);
  const box = addAssistantMessage();
  await run(box, "/api/chat", { text, session_id: state.sessionId });
}

// Stream one turn into `box`: progress lines as they happen, then the answer (returned; null on error).
async function run(box, path, body) {
  let answered = null;
  setBusy(true);
  const progress = el("ul", { class: "progress" });
  box.append(progress);
  const lines = {};
  scrollDown();
  try {
    await stream(path, body, (type, data) => {
      if (type === "thinking") {
        progress.append(el("li", { class: "thinking" }, t("thinking")));
      } else if (type === "tool_start") {
        lines[data.id] = el("li", {}, `${titleOf(data.name)} ${t("calling")}`);
        progress.append(lines[data.id]);
      } else if (type === "tool_end") {
        const line = lines[data.id] || progress.appendChild(el("li"));
        const failed = data.status === "refused" || data.status === "error";
        line.className = failed ? "failed" : "done";
        line.textContent = `${titleOf(data.name)} · ${statusOf(data.status)} · ${t("rows", data.row_count)}`;
      } else if (type === "answer") {
        progress.remove();
        answered = data.turn;
        if (data.turn.settled && state.liveCard) state.liveCard.settle(data.turn.settled);
        renderTurn(box, data.turn);
        if (data.turn.session_id && data.turn.session_id !== state.sessionId) state.sessionId = data.turn.session_id;
      } else if (type === "error") {
        progress.remove();
        box.append(errorBlock(data.message));
      }
      scrollDown();
    });
  } catch (err) {
    if (!(err instanceof SignedOut)) box.append(errorBlock(err.message));
  } finally {
    setBusy(false);
    scrollDown();
  }
  refreshSessions();
  return answered;
}

// --- drawing a turn --------------------------------------------------------------
function renderTurn(box, turn, live = true) {
  box.dataset.session = turn.session_id || state.sessionId || "";
  if (turn.settled && state.liveCard) state.liveCard.settle(turn.settled);
  const blocks = (turn.calls || []).map(resultBlock).filter(Boolean);
  // A pending write's answer is its preview, which the card shows in full.
  if (!turn.pending) box.append(answerText(turn.answer || "", turn.ungrounded || [], blocks.length > 0));
  if (turn.ended) box.append(el("p", { class: `card-ended settled-${turn.ended}` }, t(`settled_${turn.ended}`)));
  box.append(...blocks);
  if (turn.pending) box.append(confirmCard(turn.pending, turn.session_id));
  if ((turn.calls || []).length || (turn.ungrounded || []).length) box.append(trace(turn));
  const used = (turn.calls || []).filter((c) => c.status === "ok").map((c) => c.name);
  if (used.length && !turn.pending && live) {
    for (const old of document.querySelectorAll(".followups")) old.remove();
    const next = suggestions(used).slice(0, 3);
    if (next.length) box.append(el("div", { class: "followups" }, el("span", { class: "muted" }, t("next")), suggestionCards(next, "chips")));
  }
}

// An error, set apart from answers: what went wrong and that nothing was lost.
// The answer as safe markdown drawn with DOM nodes (paragraphs, lists, headings, **bold**, `code`), with every
// number the grounding check could not find in a result marked. When the results are drawn as tables below it,
// a table written into the answer as text (| a | b | lines) is left out: the drawn tables come from the tools.
function answerText(text, ungrounded, tablesShown) {
  const node = el("div", { class: "answer" });
  const marks = ungrounded.filter(Boolean).sort((a, b) => b.length - a.length);
  let lines = text.split("\n");
  if (tablesShown) lines = lines.filter((line) => !/^\s*\|.*\|\s*$/.test(line) || marks.some((m) => line.includes(m)));
  let list = null;
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) node.append(el("p", {}, inline(paragraph.join("\n"), marks)));
    paragraph = [];
  };
  for (const line of lines) {
    const item = /^\s*(?:[-*・]|(\d+)[.)])\s+(.*)$/.exec(line);
    const heading = /^\s*#{1,4}\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const ordered = item[1] !== undefined;
      if (!list || (list.tagName === "OL") !== ordered) { list = el(ordered ? "ol" : "ul"); node.append(list); }
      list.append(el("li", {}, inline(item[2], marks)));
      continue;
    }
    list = null;
    if (heading) { flush(); node.append(el("p", { class: "heading" }, el("strong", {}, inline(heading[1], marks)))); }
    else if (!line.trim()) flush();
    else paragraph.push(line);
  }
  flush();
  return node;
}

// **bold** and `code` of one block of text, each ungrounded number inside it marked.
function inline(text, marks) {
  const out = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let at = 0;
  for (const found of text.matchAll(pattern)) {
    out.push(...marked(text.slice(at, found.index), marks));
    out.push(found[1] !== undefined ? el("strong", {}, marked(found[1], marks)) : el("code", {}, found[2]));
    at = found.index + found[0].length;
  }
  out.push(...marked(text.slice(at), marks));
  return out;
}

function marked(text, marks) {
  if (!marks.length || !text) return [text];
  const pattern = new RegExp(marks.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  const out = [];
  let at = 0;
  for (const found of text.matchAll(pattern)) {
    out.push(text.slice(at, found.index), el("mark", { class: "ungrounded", title: t("ungrounded") }, found[0]));
    at = found.index + found[0].length;
  }
  out.push(text.slice(at));
  return out;
}

function resultBlock(call) {
  const result = call.result || {};
  if (call.status !== "ok" || !(result.rows || []).length) return null;
  const block = el("div", { class: "result", "data-tool": call.name });
  const columns = result.columns && result.columns.length ? result.columns : Object.keys(result.rows[0]);
  const caption = [titleOf(call.name), t("rows", result.row_count)];
  if (result.truncated) caption.push(t("truncated", result.rows.length, result.row_count));
  const copied = el("span", { class: "copied muted", role: "status" });
  block.append(el("div", { class: "caption" }, el("span", {}, caption.join(" · ")),
    el("span", { class: "table-actions" },
      el("button", { type: "button", class: "small copy", onclick: async () => {
        await navigator.clipboard.writeText(tsv(columns, result.rows)).then(() => { copied.textContent = t("copiedNote"); }, () => { copied.textContent = t("copyFailed"); });
      } }, t("copy")),
      el("button", { type: "button", class: "small csv", onclick: () => download(`${call.name}.csv`, csv(columns, result.rows)) }, t("csv")),
      copied)));
  if (CHARTS[call.name] && window.Chart) block.append(chart(CHARTS[call.name](result.rows)));
  block.append(table(columns, result.rows));
  const totals = Object.entries(result.totals || {}).filter(([k]) => k !== "count");
  const summary = result.summary;
  if (totals.length || summary) {
    const parts = totals.map(([k, v]) => `${t("total")} ${label(k)}: ${formatValue(v)}`);
    if (summary) {
      parts.push(`${t("current")}: ${formatValue(summary.current_total)}`, `${t("previous")}: ${formatValue(summary.previous_total)}`,
        `${t("change")}: ${formatValue(summary.change)}${summary.change_pct === null ? "" : ` (${summary.change_pct.toFixed(1)}%)`}`);
    }
    block.append(el("div", { class: "totals" }, parts.join(" · ")));
  }
  return block;
}

// A table as text to paste (tab-separated) or to open in a spreadsheet (CSV with a BOM, so Excel reads UTF-8).
function tsv(columns, rows) {
  return [columns.map(label), ...rows.map((r) => columns.map((c) => cellText(r[c])))].map((line) => line.join("\t")).join("\n");
}

function csv(columns, rows) {
  const quoted = (v) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return "\ufeff" + [columns.map(label), ...rows.map((r) => columns.map((c) => cellText(r[c])))]
    .map((line) => line.map(quoted).join(",")).join("\r\n");
}

function cellText(v) {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function trace(turn) {
  const calls = turn.calls || [];
  const totalMs = calls.reduce((sum, c) => sum + (c.ms || 0), 0);
  const rows = calls.map((c) => el("tr", {},
    el("td", {}, titleOf(c.name), el("div", { class: "muted" }, c.name)),
    el("td", { class: "args" }, JSON.stringify(c.args, null, 1)),
    el("td", {}, statusOf(c.status), c.code ? ` (${c.code})` : "", c.message ? el("div", { class: "muted" }, c.message) : null,
      c.read_from ? el("div", { class: "muted read-from" }, c.read_from) : null),
    el("td", {}, c.result_id),
    el("td", { class: "num" }, c.row_count),
    el("td", { class: "num" }, formatValue(Math.round((c.ms || 0) * 10) / 10))));
  const details = el("details", { class: "trace" },
    el("summary", {}, `${t("trace")} · ${t("calls", calls.length)} · ${Math.round(totalMs * 10) / 10} ${t("ms")}`),
    calls.length ? el("div", { class: "table-wrap" }, el("table", { class: "data" },
      el("thead", {}, el("tr", {}, [t("tool"), t("args"), t("decision"), t("resultId"), t("rowCount"), t("ms")].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows))) : null,
    phases(turn.timings, calls));
  if ((turn.ungrounded || []).length) {
    details.append(el("p", { class: "ungrounded-list" }, t("ungrounded"), " ",
      turn.ungrounded.map((n) => [el("mark", { class: "ungrounded" }, n), " "])));
  }
  return details;
}

// Where the turn's time went: deciding (each model or planner request), each tool call, the first
// piece of the answer, the whole turn.
function phases(timings, calls) {
  if (!timings) return null;
  const ms = (v) => `${Math.round((v || 0) * 10) / 10} ${t("ms")}`;
  const parts = [`${t("decide")} ${(timings.model_ms || []).map((v) => Math.round(v * 10) / 10).join(" + ") || 0} ${t("ms")}`,
    ...calls.map((c) => `${titleOf(c.name)} ${ms(c.ms)}`)];
  if (timings.first_text_ms !== null && timings.first_text_ms !== undefined) parts.push(`${t("firstText")} ${ms(timings.first_text_ms)}`);
  parts.push(`${t("totalTime")} ${ms(timings.total_ms)}`);
  return el("p", { class: "phases muted" }, parts.join(" · "));
}

// A write waiting for the user's yes: nothing is written until it is confirmed, once, by the button or by a
// typed yes (はい, OK). What became of it comes from the server (`settled` of the turn that followed): the card
// then says so in place of its question, and loses its buttons.
function confirmCard(pending, sessionId) {
  const stateLine = el("p", { class: "state", role: "status" });
  const confirmButton = el("button", { type: "button", class: "primary confirm" }, t("confirm"));
  const cancelButton = el("button", { type: "button", class: "cancel" }, t("cancel"));
  const fields = pending.fields && pending.fields.length ? pending.fields
    : Object.entries(pending.preview || {}).map(([k, v]) => ({ label: label(k), value: formatValue(v) }));
  const question = el("p", { class: "question" }, pending.message || "");
  const card = el("div", { class: "confirm-card", "data-tool": pending.tool, "data-state": "waiting" },
    el("h3", {}, t("confirmTitle")),
    question,
    el("dl", {}, fields.map((f) => [el("dt", {}, f.label), el("dd", {}, f.value)])),
    pending.warning ? el("p", { class: "warning", role: "alert" }, pending.warning) : null,
    el("div", { class: "actions" }, confirmButton, cancelButton),
    stateLine);
  const live = { card, settle: (settled) => settleCard(card, settled) };
  state.liveCard = live;
  confirmButton.addEventListener("click", async () => {
    confirmButton.disabled = cancelButton.disabled = true;
    stateLine.textContent = t("working");
    const turn = await run(addAssistantMessage(), `/api/sessions/${encodeURIComponent(sessionId)}/confirm`, {});
    if (!turn) {
      confirmButton.disabled = cancelButton.disabled = false;
      stateLine.textContent = t("error");
    }
  });
  cancelButton.addEventListener("click", async () => {
    confirmButton.disabled = cancelButton.disabled = true;
    try {
      const turn = await api(`/api/sessions/${encodeURIComponent(sessionId)}/cancel`, { method: "POST", body: {} });
      renderTurn(addAssistantMessage(), turn);
    } catch (err) {
      if (err instanceof SignedOut) return;
      confirmButton.disabled = cancelButton.disabled = false;
      stateLine.textContent = `${t("error")}: ${err.message}`;
    }
    scrollDown();
    refreshSessions();
  });
  return card;
}

// The card as it ended: its heading says what happened, its question and buttons go.
function settleCard(card, settled) {
  if (!settled || card.dataset.state !== "waiting") return;
  card.dataset.state = settled;
  card.classList.add("done", `settled-${settled}`);
  card.querySelector("h3").textContent = t(`settled_${settled}`);
  for (const node of card.querySelectorAll(".question, .actions, .warning")) node.remove();
  card.querySelector(".state").textContent = t(`settledNote_${settled}`);
  if (state.liveCard && state.liveCard.card === card) state.liveCard = null;
}

// --- the composer ------------------------------------------------------------------
function autosize() {
  const input = $("input");
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight + 2, 160)}px`;
}

$("input").addEventListener("input", autosize);
$("input").addEventListener("keydown", (event) => {
  // Enter sends; Shift+Enter is a new line; Enter while an IME is composing Japanese only commits the text.
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
    event.preventDefault();
    ask($("input").value);
  }
});
$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  ask($("input").value);
});

// --- embedded in the host app's page ------------------------------------------------
// The host's element (embed.js) answers "token-needed" with a token posted to this origin; only the parent may
// send one, and the server checks the parent's origin is among the configured ones.
let hostOrigin = null;
let signingIn = false;  // from asking the host for a token until its exchange is answered

function embedStatus(message, error = "") {
  state.me = null;
  $("app").hidden = true;
  $("signin").hidden = true;
  $("embed-status").hidden = false;
  $("embed-message").textContent = message;
  $("embed-error").textContent = error;
}

function toHost(message) {
  if (window.parent !== window) window.parent.postMessage(message, hostOrigin || "*");
}

function askHostForToken() {
  if (signingIn) return;
  const again = session !== null;
  session = null;
  if (again && !sessionAnswered) { embedStatus("", t("embedEnded")); return; }  // a new session refused at once: no loop
  embedStatus(t("embedSigningIn"));
  signingIn = true;
  toHost({ type: "concierge:token-needed" });
}

async function exchange(token, origin) {
  hostOrigin = origin;
  try {
    await exchangeToken(token, origin);
  } finally {
    signingIn = false;
  }
}

async function exchangeToken(token, origin) {
  let res;
  try {
    res = await fetch("/api/embed/session", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token, origin }),
    });
  } catch {
    embedStatus(t("embedRefused"), t("network"));
    return;
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const said = (lang === "ja" && data.detail_ja) || (typeof data.detail === "string" ? data.detail : `${res.status} ${res.statusText}`);
    embedStatus(t("embedRefused"), said);
    toHost({ type: "concierge:refused", code: data.code || String(res.status), message: said });
    return;
  }
  session = data.session;
  sessionAnswered = false;
  await start(data.me);
  toHost({ type: "concierge:signed-in", name: data.me.name });
}

async function embedSignOut() {
  await fetch("/api/logout", { method: "POST", headers: sessionHeaders() }).catch(() => {});
  session = null;
  newChat();
  embedStatus(t("embedSignedOut"));
  toHost({ type: "concierge:signed-out" });
}

window.addEventListener("message", (event) => {
  if (!EMBED || window.parent === window || event.source !== window.parent) return;
  const data = event.data || {};
  if (data.type === "concierge:token" && typeof data.token === "string") exchange(data.token, event.origin);
  else if (data.type === "concierge:no-token") { signingIn = false; embedStatus(t("embedRefused"), t("embedNoToken")); }
  else if (data.type === "concierge:sign-out" && event.origin === hostOrigin) embedSignOut();
});

// --- start ---------------------------------------------------------------------------
applyLanguage();
if (EMBED) {
  document.body.classList.add("embed");
  if (window.parent === window) embedStatus("", t("embedAlone"));
  else askHostForToken();
} else {
  fetch("/api/me").then(async (res) => {
    if (res.ok) await start(await res.json());
    else showSignIn();
  }).catch(() => showSignIn());
}
