// Shared page code of jitgames serve: the API call, the four buttons, the keys.
// A game's script calls JG.start({newGame, render}) once; see docs/web.md.
"use strict";
const JG = (() => {
  const game = document.body.dataset.game;
  const data = JSON.parse(document.getElementById("page-data").textContent || "{}");
  const statusEl = document.getElementById("status");
  const messageEl = document.getElementById("message");
  const coachEl = document.getElementById("coach");
  let gameId = null;
  let busy = false;
  let options = null;

  function status(text) { statusEl.textContent = text; }
  function coach(text) { coachEl.textContent = text; }
  function message(text, kind) {
    messageEl.textContent = text || "";
    messageEl.className = kind || (text ? "refused" : "");
  }

  // POST /api/<game>/<action>; resolves to the answer ({ok, id, state, ...}).
  // A refusal (ok false) is shown in #message and still resolves (with its state);
  // an HTTP error rejects after showing its message.
  async function api(action, body) {
    const payload = Object.assign({}, body || {});
    if (action !== "new") payload.id = gameId;
    const response = await fetch(`/api/${game}/${action}`, {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(payload)});
    let answer;
    try { answer = await response.json(); }
    catch (err) { answer = {ok: false, error: `the server answered ${response.status}`}; }
    if (!response.ok) {
      message(answer.error || `error ${response.status}`, "error");
      throw new Error(answer.error || String(response.status));
    }
    if (answer.id) gameId = answer.id;
    if (!answer.ok) message(answer.error, "refused");
    return answer;
  }

  // Run one action at a time (a double click does not send two moves).
  async function act(action, body) {
    if (busy) return null;
    busy = true;
    document.body.classList.add("busy");
    try {
      const answer = await api(action, body);
      if (answer.ok) message(answer.message || "", answer.message ? "info" : "");
      if (answer.state) options.render(answer.state, answer, action);
      return answer;
    } catch (err) {
      return null;
    } finally {
      busy = false;
      document.body.classList.remove("busy");
    }
  }

  function start(opts) {
    options = opts;
    const buttons = Object.assign({
      hint: () => act("hint"), best: () => act("best"), undo: () => act("undo"),
      new: () => opts.newGame()}, opts.buttons || {});
    for (const [id, handler] of Object.entries(buttons)) {
      const el = document.getElementById(id);
      if (el) el.addEventListener("click", handler);
    }
    const keys = Object.assign({h: "hint", b: "best", u: "undo", Backspace: "undo",
                                n: "new"}, opts.keys || {});
    document.addEventListener("keydown", (event) => {
      const t = event.target;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT"))
        return;
      if (event.key === "?") {
        const rules = document.getElementById("rules");
        rules.open = !rules.open;
        event.preventDefault();
        return;
      }
      const id = keys[event.key];
      if (id) {
        const el = document.getElementById(id);
        if (el && !el.disabled) { el.click(); event.preventDefault(); }
      }
    });
    return opts.newGame();
  }

  // SVG drawing shared by the game pages: an element with attributes, appended to
  // parent; a text element holding value at (x, y).
  const SVG_NS = "http://www.w3.org/2000/svg";
  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  function svgText(parent, x, y, value, attrs) {
    const node = svg("text", Object.assign({x, y}, attrs || {}), parent);
    node.textContent = value;
    return node;
  }

  return {game, data, api, act, start, status, coach, message, svg, svgText,
          get id() { return gameId; }};
})();
