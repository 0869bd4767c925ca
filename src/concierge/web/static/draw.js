// Drawing a tool result, shared by the chat page (app.js) and the MCP Apps view (mcp/app/result.js): DOM nodes
// (never innerHTML), the result's table, its chart where the tool has one, an error. The page's own script gives
// `lang`, `t` (its words) and `label(column, about)` (a column's name), which these read when they draw.
"use strict";

const CHARTS = {
  daily_sales: (rows) => ({
    type: "line",
    height: 260,
    data: {
      labels: rows.map((r) => r.date),
      datasets: [{ label: label("amount"), data: rows.map((r) => r.amount), borderColor: "#1f6feb",
        backgroundColor: "rgba(31,111,235,0.12)", fill: true, pointRadius: 2, tension: 0.2 }],
    },
    options: { scales: { y: { beginAtZero: true, ticks: { callback: (v) => yen(v) } } } },
  }),
  compare_periods: (rows) => ({
    type: "bar",
    height: Math.max(160, rows.length * 22 + 60),
    data: {
      labels: rows.map((r) => r.product),
      datasets: [{ label: label("change"), data: rows.map((r) => r.change),
        backgroundColor: rows.map((r) => (r.change < 0 ? "#d9534f" : "#3b82f6")) }],
    },
    options: { indexAxis: "y", scales: { x: { beginAtZero: true, ticks: { callback: (v) => yen(v, true) } } } },
  }),
};

// An amount on a chart's axis: ¥1,200 / 1,200円, with its sign where it is a change (+¥300).
function yen(value, signed = false) {
  const n = Number(value);
  const text = Math.abs(n).toLocaleString(lang === "ja" ? "ja-JP" : "en-US");
  const sign = n < 0 ? "-" : signed && n > 0 ? "+" : "";
  return lang === "ja" ? `${sign}${text}円` : `${sign}¥${text}`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

function formatValue(v) {
  if (typeof v === "number") return v.toLocaleString(lang === "ja" ? "ja-JP" : "en-US");
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function table(columns, rows, about) {
  const head = el("tr", {}, columns.map((c) => el("th", { scope: "col" }, label(c, about))));
  const body = rows.map((row) => el("tr", {}, columns.map((c) => {
    const v = row[c];
    const cls = typeof v === "number" ? (v < 0 ? "num neg" : "num") : "";
    return el("td", { class: cls }, formatValue(v));
  })));
  return el("div", { class: "table-wrap" }, el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body)));
}

function chart(spec) {
  const canvas = el("canvas", { role: "img", "aria-label": spec.data.datasets[0].label });
  const box = el("div", { class: "chart-box" }, canvas);
  box.style.height = `${spec.height}px`;
  // Drawn after the box is in the page, so Chart.js can measure it.
  requestAnimationFrame(() => new window.Chart(canvas, {
    type: spec.type,
    data: spec.data,
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      ...spec.options,
    },
  }));
  return box;
}

function errorBlock(message) {
  return el("div", { class: "answer error", role: "alert" }, el("strong", {}, t("errorTitle")), " ", message);
}
