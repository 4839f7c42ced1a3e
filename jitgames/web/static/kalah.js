// The Kalah page: the board drawn in SVG from the server's state; moves by click or by
// typing a pit number; sowing animated stone by stone (skippable); Hint, Best move,
// Values, Undo, New game. The server's model decides everything (see kalah.py).
"use strict";
(() => {
  const STEP = 74, R = 30, STORE_W = 74, MARGIN = 16, GAP = 12;
  const TOP_Y = 96, BOTTOM_Y = 214, HEIGHT = 300;
  const svg = document.getElementById("kalah-board");
  const $ = (id) => document.getElementById(id);
  let state = null;
  let shown = null;        // the board drawn now (during an animation: a step of it)
  let marks = {};          // {hint: [pits], values: {pit: value}, from: pit, at: pit}
  let animation = 0;       // bumped to cancel a running animation
  let animating = false;

  const el = JG.svg;
  const text = (parent, x, y, value, attrs) =>   // centred on x
    JG.svgText(parent, x, y, value, Object.assign({"text-anchor": "middle"}, attrs || {}));
  const sideOf = (m, i) => (i <= m ? "south" : "north");
  const numberOf = (m, i) => (i < m ? i + 1 : i - m);
  const pitX = (m, i) => {       // centre of pit i (South left to right, North right to left)
    const column = i < m ? i : 2 * m - i;
    return MARGIN + STORE_W + GAP + STEP / 2 + column * STEP;
  };
  const width = (m) => 2 * (MARGIN + STORE_W + GAP) + m * STEP;

  function stones(g, cx, cy, count) {
    // up to 12 stones drawn as dots around the count
    const shownCount = Math.min(count, 12);
    for (let k = 0; k < shownCount; k++) {
      const angle = (2 * Math.PI * k) / shownCount - Math.PI / 2;
      el("circle", {cx: cx + 20 * Math.cos(angle), cy: cy + 20 * Math.sin(angle), r: 4.2,
                    class: "stone"}, g);
    }
  }

  function draw(board) {
    shown = board;
    const m = state.pits;
    const w = width(m);
    svg.setAttribute("viewBox", `0 0 ${w} ${HEIGHT}`);
    svg.replaceChildren();
    el("rect", {x: 2, y: 2, width: w - 4, height: HEIGHT - 4, rx: 22, class: "wood"}, svg);
    const mover = state.over ? null : state.player;
    text(svg, w / 2, 24, `North${state.people.includes("north") ? " (you)" : " (computer)"}` +
         " \u2014 North's pits, sown right to left", {class: `row-label north${mover === "north" ? " moving" : ""}`});
    text(svg, w / 2, HEIGHT - 12, `South${state.people.includes("south") ? " (you)" : " (computer)"}` +
         " \u2014 South's pits, sown left to right", {class: `row-label south${mover === "south" ? " moving" : ""}`});
    // stores: North's on the left, South's on the right
    for (const [side, index, x] of [["north", 2 * m + 1, MARGIN],
                                    ["south", m, w - MARGIN - STORE_W]]) {
      const g = el("g", {class: `store ${side}`, "data-store": side,
                         "data-stones": board[index], "data-index": index}, svg);
      el("rect", {x, y: 52, width: STORE_W, height: HEIGHT - 104, rx: 30}, g);
      text(g, x + STORE_W / 2, 80, side === "north" ? "North's" : "South's", {class: "store-label"});
      text(g, x + STORE_W / 2, 96, "store", {class: "store-label"});
      text(g, x + STORE_W / 2, HEIGHT / 2 + 18, board[index], {class: "store-count"});
      if (marks.at === index) g.classList.add("landing");
      g.addEventListener("click", () => move({pit: index}));   // refused with the reason
    }
    const values = marks.values || {};
    for (let i = 0; i < 2 * m + 1; i++) {
      if (i === m) continue;
      const side = sideOf(m, i);
      const cx = pitX(m, i), cy = side === "south" ? BOTTOM_Y : TOP_Y;
      const g = el("g", {class: `pit ${side}`, "data-pit": i, "data-stones": board[i],
                         "data-number": numberOf(m, i), tabindex: "0", role: "button",
                         "aria-label": `${side === "south" ? "South" : "North"}'s pit ` +
                                       `${numberOf(m, i)}: ${board[i]} stones`}, svg);
      el("circle", {cx, cy, r: R, class: "hole"}, g);
      stones(g, cx, cy, board[i]);
      text(g, cx, cy + 7, board[i], {class: "count"});
      text(g, cx, side === "south" ? cy + R + 17 : cy - R - 7, numberOf(m, i), {class: "number"});
      if ((marks.hint || []).includes(i)) g.classList.add("hinted");
      if (marks.from === i) g.classList.add("sown");
      if (marks.at === i) g.classList.add("landing");
      if (i in values) {
        const v = values[i];
        text(svg, cx, side === "south" ? BOTTOM_Y - R - 8 : TOP_Y + R + 19,
             v > 0 ? `+${v}` : `${v}`, {class: `value${v === Math.max(...Object.values(values)) ? " best" : ""}`,
                                         "data-value-pit": i});
      }
      g.addEventListener("click", () => move({pit: i}));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { move({pit: i}); event.preventDefault(); }
      });
    }
    if (marks.banner) {
      text(svg, w / 2, HEIGHT / 2 + 8, marks.banner, {class: "banner", id: "banner"});
    }
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function animate(events, token) {
    animating = true;
    svg.dataset.animating = "1";
    for (const event of events) {
      const board = event.before.slice();
      const m = state.pits;
      const delay = Math.max(60, Math.min(220, 2200 / Math.max(1, event.path.length)));
      board[event.pit] = 0;
      marks = {from: event.pit};
      draw(board);
      for (const at of event.path) {
        await sleep(delay);
        if (token !== animation) return;
        board[at] += 1;
        marks = {from: event.pit, at};
        draw(board);
      }
      const store = event.player === "south" ? m : 2 * m + 1;
      if (event.capture) {
        await sleep(delay * 2);
        if (token !== animation) return;
        const last = event.path[event.path.length - 1];
        board[store] += event.capture;
        board[last] = 0;
        board[event.captured_from] = 0;
        marks = {banner: `Capture! ${event.capture} to ${event.player === "south" ? "South" : "North"}'s store`};
        draw(board);
        await sleep(700);
      } else if (event.extra_turn) {
        marks = {banner: `${event.player === "south" ? "South" : "North"} moves again`};
        draw(board);
        await sleep(600);
      } else {
        await sleep(delay * 2);
      }
      if (token !== animation) return;
    }
    finish();
  }

  function finish() {
    animation += 1;
    animating = false;
    delete svg.dataset.animating;
    const events = state.events || [];
    const last = events[events.length - 1];
    marks = {};
    if (state.over) {
      marks.banner = "Game over";
    } else if (last && last.capture && !$("animate").checked) {
      marks.banner = `Capture! ${last.capture} to ${last.player === "south" ? "South" : "North"}'s store`;
    } else if (last && last.extra_turn && !$("animate").checked) {
      marks.banner = `${last.player === "south" ? "South" : "North"} moves again`;
    }
    draw(state.final);
  }

  function render(newState, answer, action) {
    state = newState;
    JG.status(state.status);
    JG.coach(state.coach);
    const rule = $("rule-variant");
    if (rule) rule.textContent = state.variant === "standard" ?
      "(only when the opposite pit holds stones)" : "(also when the opposite pit is empty)";
    if (action === "new" || action === undefined) syncControls();
    const events = state.events || [];
    if (answer && (answer.hint || answer.values)) {
      animation += 1;
      marks = {};
      if (answer.hint) marks.hint = answer.hint.best;
      if (answer.values) {
        marks.values = {};
        for (const mv of answer.values.moves) marks.values[mv.pit] = mv.value;
      }
      draw(state.final);
      return;
    }
    animation += 1;
    if (events.length && $("animate").checked && action !== "undo") {
      animate(events, animation);
    } else {
      finish();
    }
  }

  function syncControls() {
    $("opponent").value = state.opponent;
    if ($("opponent").value !== state.opponent) {
      const option = el("option", {value: state.opponent});
      option.textContent = state.opponent_text;
      $("opponent").appendChild(option);
      $("opponent").value = state.opponent;
    }
    $("first").value = state.first;
    $("side").value = state.people.length === 1 ? state.people[0] : $("side").value;
    $("pits").value = state.pits;
    if (state.stones) $("stones").value = state.stones;
    $("variant").value = state.variant;
    $("random").checked = state.random;
    const params = new URLSearchParams({pits: state.pits, stones: state.stones || "",
      variant: state.variant, opponent: state.opponent, side: $("side").value,
      first: state.first, random: state.random ? "1" : "0", seed: state.seed});
    if (!state.stones) params.set("position", state.text);
    history.replaceState(null, "", `/kalah?${params}`);
  }

  function skip() {
    if (animating) finish();
  }

  function move(body) {
    skip();
    return JG.act("move", body);
  }

  function newGame(fields) {
    skip();
    return JG.act("new", fields);
  }

  function chosen() {
    return {pits: $("pits").value, stones: $("stones").value, variant: $("variant").value,
            opponent: $("opponent").value, side: $("side").value, first: $("first").value,
            random: $("random").checked ? "1" : "0"};
  }

  document.addEventListener("keydown", (event) => {
    const t = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey || !state) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (/^[0-9]$/.test(event.key)) {
      const number = event.key === "0" ? 10 : Number(event.key);
      move({number});
      event.preventDefault();
    }
  });

  if (JG.data.animate === "0") $("animate").checked = false;
  let first = true;   // the first game is the query's (its seed and position included)
  JG.start({
    newGame: () => {
      const fields = first ? Object.assign(chosen(), JG.data) : chosen();
      first = false;
      return newGame(fields);
    },
    render,
    buttons: {values: () => { skip(); return JG.act("values"); }, skip,
              hint: () => { skip(); return JG.act("hint"); },
              best: () => { skip(); return JG.act("best"); },
              undo: () => { skip(); return JG.act("undo"); }},
    keys: {v: "values", Escape: "skip"},
  });
})();
