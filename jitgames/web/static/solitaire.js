// The solitaire page: the board drawn in SVG from the server's state; moves by drag,
// by click-then-destination or typed; Hint, Best move, Undo, Restart, New game.
"use strict";
(() => {
  const CW = 72, CH = 100, COL = 86, LEFT = 14;   // card size and column step (SVG units)
  const TOP = 132, DOWN_STEP = 14, UP_STEP = 27;  // pile origin and card overlaps
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = ["\u2660", "\u2665", "\u2666", "\u2663"];
  const SUIT_NAMES = ["spades", "hearts", "diamonds", "clubs"];
  const svg = document.getElementById("table");
  let state = null;
  let selected = null;     // card id chosen by a click, waiting for its destination
  let hint = null;         // {card, pile} shown by Hint
  let drag = null;

  const el = JG.svg;
  const text = JG.svgText;
  const cardName = (c) => `${RANKS[c % 13]}${SUITS[Math.floor(c / 13)]}`;
  const longName = (c) => `${["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack",
    "queen", "king"][c % 13]} of ${SUIT_NAMES[Math.floor(c / 13)]}`;
  const isRed = (c) => [1, 2].includes(Math.floor(c / 13));
  const pileX = (p) => LEFT + p * COL;

  function drawFace(g, card) {
    const colour = isRed(card) ? "red" : "black";
    el("rect", {width: CW, height: CH, rx: 7, class: "face"}, g);
    text(g, 6, 21, RANKS[card % 13], {class: `rank ${colour}`});
    text(g, 6, 40, SUITS[Math.floor(card / 13)], {class: `pip ${colour}`});
    text(g, CW - 6, 22, SUITS[Math.floor(card / 13)], {class: `pip small ${colour}`,
                                                       "text-anchor": "end"});
    text(g, CW / 2, CH - 18, SUITS[Math.floor(card / 13)], {class: `big ${colour}`,
                                                             "text-anchor": "middle"});
  }

  function drawBack(g) {
    el("rect", {width: CW, height: CH, rx: 7, class: "back"}, g);
    el("rect", {x: 6, y: 6, width: CW - 12, height: CH - 12, rx: 4, class: "back-inner"}, g);
  }

  function render(newState, answer, action) {
    state = newState;
    selected = null;
    hint = answer && answer.hint ? answer.hint : null;
    JG.status(state.status);
    JG.coach(state.coach);
    document.getElementById("coach").className = state.lost ? "lost" : "";
    rulesBox.value = state.rules;
    if (state.deal && (action === "new" || action === undefined)) {
      const rules = state.rules === "etude" ? "" : `&rules=${state.rules}`;
      const url = `/solitaire?seed=${state.deal.seed}&index=${state.deal.index}${rules}`;
      if (location.pathname + location.search !== url) history.replaceState(null, "", url);
    }
    draw();
  }

  function draw() {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    let bottom = TOP + CH;
    // foundations above piles 4..7, the counts at the left
    text(svg, LEFT, 30, "Foundations", {class: "label"});
    text(svg, LEFT, 56, `${state.score} of 52 home`, {class: "label small"});
    text(svg, LEFT, 78, `${state.moves} move${state.moves === 1 ? "" : "s"}`,
         {class: "label small"});
    state.foundations.forEach((height, suit) => {
      const g = el("g", {transform: `translate(${pileX(3 + suit)},12)`, class: "foundation",
                         "data-suit": suit, "data-pile": 7}, svg);
      if (height) {
        const card = suit * 13 + height - 1;
        g.setAttribute("aria-label", `foundation ${longName(card)}`);
        g.classList.add("card", "home");
        g.dataset.card = card;
        drawFace(g, card);
      } else {
        el("rect", {width: CW, height: CH, rx: 7, class: "slot"}, g);
        text(g, CW / 2, CH / 2 + 12, SUITS[suit], {class: "slot-suit", "text-anchor": "middle"});
      }
    });
    state.piles.forEach((pile, p) => {
      const slot = el("g", {transform: `translate(${pileX(p)},${TOP})`, class: "pile-slot",
                            "data-pile": p}, svg);
      el("rect", {width: CW, height: CH, rx: 7, class: "slot"}, slot);
      text(slot, CW / 2, -8, `${p + 1}`, {class: "pile-number", "text-anchor": "middle"});
      if (hint && hint.pile === p) slot.classList.add("hint-target");
      let y = TOP;
      pile.cards.forEach((card, i) => {
        const g = el("g", {transform: `translate(${pileX(p)},${y})`, "data-pile": p,
                           "data-index": i}, svg);
        if (card < 0) {
          g.setAttribute("class", "card down");
          drawBack(g);
          y += DOWN_STEP;
        } else {
          g.setAttribute("class", "card up");
          g.dataset.card = card;
          g.setAttribute("role", "button");
          g.setAttribute("tabindex", "0");
          g.setAttribute("aria-label", `${longName(card)}, pile ${p + 1}`);
          drawFace(g, card);
          if (hint && hint.card === card) g.classList.add("hinted");
          y += UP_STEP;
        }
        bottom = Math.max(bottom, y - (card < 0 ? DOWN_STEP : UP_STEP) + CH);
      });
    });
    svg.setAttribute("viewBox", `0 0 ${LEFT * 2 + 6 * COL + CW} ${bottom + 14}`);
  }

  // ------------------------------------------------------------------ moves

  function runOf(card) {  // the card and the cards on it, as their SVG groups
    const g = svg.querySelector(`g.card.up[data-card="${card}"]`);
    const pile = Number(g.dataset.pile), index = Number(g.dataset.index);
    return [...svg.querySelectorAll(`g.card[data-pile="${pile}"]`)]
      .filter((n) => Number(n.dataset.index) >= index);
  }

  function select(card) {
    selected = card;
    svg.querySelectorAll(".selected").forEach((n) => n.classList.remove("selected"));
    if (card !== null) runOf(card).forEach((n) => n.classList.add("selected"));
  }

  function moveTo(card, pile) {
    select(null);
    return JG.act("move", {card, pile});
  }

  function pileAt(event) {  // the pile column under the pointer, or null
    const point = svg.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    const p = point.matrixTransform(svg.getScreenCTM().inverse());
    const pile = Math.floor((p.x - LEFT + (COL - CW) / 2) / COL);
    if (pile >= 3 && pile < 7 && p.y <= TOP - 30) return 7;  // the foundations
    return pile >= 0 && pile < 7 && p.y > TOP - 30 ? pile : null;
  }

  function clicked(target) {
    const cardG = target.closest("g.card.up");
    const pileG = target.closest("[data-pile]");
    if (selected === null) {
      if (cardG) select(Number(cardG.dataset.card));
      return;
    }
    if (cardG && Number(cardG.dataset.card) === selected) { select(null); return; }
    if (pileG) moveTo(selected, Number(pileG.dataset.pile));
    else select(null);
  }

  svg.addEventListener("pointerdown", (event) => {
    const cardG = event.target.closest("g.card.up");
    if (!cardG || event.button !== 0) return;
    drag = {card: Number(cardG.dataset.card), x: event.clientX, y: event.clientY,
            run: runOf(Number(cardG.dataset.card)), moved: false, id: event.pointerId};
    event.preventDefault();
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 5) return;
    if (!drag.moved) {
      drag.moved = true;
      svg.setPointerCapture(drag.id);
      drag.run.forEach((n) => { n.dataset.base = n.getAttribute("transform");
                                n.classList.add("dragging"); svg.appendChild(n); });
    }
    const scale = svg.getScreenCTM().a;
    drag.run.forEach((n) => n.setAttribute("transform",
      `${n.dataset.base} translate(${dx / scale},${dy / scale})`));
  });
  svg.addEventListener("pointerup", (event) => {
    const d = drag;
    drag = null;
    if (!d) { clicked(event.target); return; }
    if (!d.moved) { clicked(event.target); return; }
    const pile = pileAt(event);
    if (pile === null || pile === Number(d.run[0].dataset.pile)) { draw(); return; }
    moveTo(d.card, pile).then((answer) => { if (!answer || !answer.ok) draw(); });
  });
  svg.addEventListener("keydown", (event) => {  // Enter or space on a focused card
    if (event.key !== "Enter" && event.key !== " ") return;
    const cardG = event.target.closest("g.card.up");
    if (cardG) { clicked(cardG); event.preventDefault(); }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { select(null); return; }
    const t = event.target;
    if (t && t.tagName === "INPUT") return;
    if (event.key === "r") { document.getElementById("restart").click(); event.preventDefault(); }
    if (event.key === "m") { document.getElementById("move-text").focus(); event.preventDefault(); }
    if (selected !== null && /^[1-7]$/.test(event.key)) moveTo(selected, Number(event.key) - 1);
    if (selected !== null && event.key === "f") moveTo(selected, 7);
  });

  // the rule set: a change deals the same deal (or a new one) under the chosen rules
  const rulesBox = document.getElementById("rule-set");
  rulesBox.addEventListener("change", () => {
    JG.data = state && state.deal ? {seed: state.deal.seed, index: state.deal.index} : {};
    JG.data.rules = rulesBox.value;
    JG.act("new", JG.data);
  });

  const moveBox = document.getElementById("move-text");
  moveBox.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !moveBox.value.trim()) return;
    JG.act("move", {text: moveBox.value}).then((answer) => {
      if (answer && answer.ok) moveBox.value = "";
    });
  });
  const dealBox = document.getElementById("deal-text");
  function load() {
    // a pasted deal or position replaces this tab's game; a bad one is refused
    // with the reason in #message (the game stays)
    const value = dealBox.value.trim();
    if (!value) return;
    JG.act("load", {text: value}).then((answer) => {
      if (answer && answer.ok) {
        dealBox.value = "";
        history.replaceState(null, "", "/solitaire?position=" + encodeURIComponent(
          answer.state.text));
      }
    });
  }
  document.getElementById("load").addEventListener("click", load);
  dealBox.addEventListener("keydown", (event) => { if (event.key === "Enter") load(); });

  JG.start({
    render,
    newGame: () => JG.act("new", JG.data),
    buttons: {
      restart: () => JG.act("restart"),
      new: () => { JG.data = {rules: rulesBox.value}; return JG.act("new", JG.data); },
    },
  });
})();
