// <concierge-chat>: the concierge chat inside the business's own web app (docs/embed.md).
//
//   <script src="CONCIERGE/embed.js" defer></script>     (CONCIERGE: concierge's address)
//   <concierge-chat token-url="/concierge-token" lang="ja"></concierge-chat>
//
// It frames concierge's /embed page. When that page asks for a sign-in token, the element takes a fresh one from
// `token-url` (a GET on the host's own server, answering the token as text or as {"token": ...}) or its `token`
// attribute, and posts it to concierge's origin only. `src` is concierge's address (default: where this script
// came from). Events on the element: concierge-signed-in {name}, concierge-error {code, message},
// concierge-token-needed (a `token` attribute was used already: set a fresh one). `signOut()` ends the session.
"use strict";

(() => {
  const here = document.currentScript && document.currentScript.src;

  class ConciergeChat extends HTMLElement {
    static get observedAttributes() { return ["token"]; }

    constructor() {
      super();
      this.onMessage = this.onMessage.bind(this);
      this.used = new Set();
      this.waiting = false;
    }

    connectedCallback() {
      window.addEventListener("message", this.onMessage);
      if (this.frame) return;
      const base = new URL(this.getAttribute("src") || here || "", document.baseURI);
      this.origin = base.origin;
      const page = new URL("/embed", base);
      const lang = this.getAttribute("lang") || document.documentElement.lang || navigator.language || "";
      page.searchParams.set("lang", lang.toLowerCase().startsWith("ja") ? "ja" : "en");
      const root = this.attachShadow({ mode: "open" });
      const css = ":host { display: block; height: 600px; } iframe { display: block; width: 100%; height: 100%; border: 0; }";
      if (root.adoptedStyleSheets !== undefined && window.CSSStyleSheet) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(css);
        root.adoptedStyleSheets = [sheet];
      } else {
        root.append(Object.assign(document.createElement("style"), { textContent: css }));
      }
      this.frame = document.createElement("iframe");
      this.frame.title = this.getAttribute("title") || "Concierge";
      this.frame.allow = "clipboard-write";
      this.frame.src = page.href;
      root.append(this.frame);
    }

    disconnectedCallback() {
      window.removeEventListener("message", this.onMessage);
    }

    attributeChangedCallback(name, _old, value) {
      if (name === "token" && value && this.waiting) this.sendToken();
    }

    onMessage(event) {
      if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== this.origin) return;
      const data = event.data || {};
      if (data.type === "concierge:token-needed") this.sendToken();
      else if (data.type === "concierge:signed-in") this.emit("concierge-signed-in", { name: data.name });
      else if (data.type === "concierge:refused") this.emit("concierge-error", { code: data.code, message: data.message });
    }

    async sendToken() {
      this.waiting = true;
      let token = null;
      try {
        token = await this.freshToken();
      } catch (err) {
        this.post({ type: "concierge:no-token", reason: "token-url" });
        this.emit("concierge-error", { code: "token_url", message: String(err && err.message ? err.message : err) });
        return;
      }
      if (!token || this.used.has(token)) {
        this.post({ type: "concierge:no-token", reason: token ? "used" : "none" });
        this.emit("concierge-token-needed", {});
        return;
      }
      this.waiting = false;
      this.used.add(token);
      this.post({ type: "concierge:token", token });
    }

    async freshToken() {
      const url = this.getAttribute("token-url");
      if (!url) return (this.getAttribute("token") || "").trim();
      const res = await fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json, text/plain" } });
      if (!res.ok) throw new Error(`${url}: ${res.status} ${res.statusText}`);
      const text = (await res.text()).trim();
      if (!text.startsWith("{")) return text;
      return (JSON.parse(text).token || "").trim();
    }

    signOut() {
      this.post({ type: "concierge:sign-out" });
    }

    post(message) {
      if (this.frame && this.frame.contentWindow) this.frame.contentWindow.postMessage(message, this.origin);
    }

    emit(name, detail) {
      this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
    }
  }

  if (!customElements.get("concierge-chat")) customElements.define("concierge-chat", ConciergeChat);
})();
