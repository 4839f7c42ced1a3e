// The Mastermind page: guesses built from the palette (click) or typed (numbers or
// colour letters); the rows of guesses and answers drawn in SVG from the server's
// state; as codemaker the computer's guess is answered with blacks and whites.
"use strict";
(() => {
  const PEG = 15, STEP = 38, LEFT = 44, ROW = 46, TOP = 8;   // SVG units
  const svg = document.getElementById("rows");
  const palette = document.getElementById("palette");
  const current = document.getElementById("current");
  const typed = document.getElementById("guess-text");
  const entry = document.getElementById("entry");
  const answerEntry = document.getElementById("answer-entry");
  const computerGuess = document.getElementById("computer-guess");
  const positionEl = document.getElementById("position");
  let state = null;
  let slots = [];          // the guess being built: digit characters or null
  let hint = null;         // the code shown by Hint

  const el = JG.svg;
  const text = JG.svgText;
  const colourOf = (ch) => state.palette.find((c) => c.digit === ch);

  function drawPeg(parent, x, y, ch, extra) {
    const c = colourOf(ch);
    const g = el("g", Object.assign({class: "peg", "data-colour": ch}, extra || {}), parent);
    el("circle", {cx: x, cy: y, r: PEG, fill: c.css}, g);
    text(g, x, y + 5, c.letter, {"text-anchor": "middle",
                                 class: ["w", "y", "c"].includes(c.letter) ? "dark" : "light"});
    const title = el("title", {}, g);
    title.textContent = `${c.name} (${ch}, ${c.letter})`;
    return g;
  }

  // Key pegs in two rows on a light plate: blacks first, then whites, empty holes after.
  function drawAnswer(parent, x, y, black, white, pegs) {
    const per = Math.ceil(pegs / 2);
    el("rect", {x: x - 9, y: y - 17, width: per * 15 + 4, height: 34, rx: 5,
                class: "plate"}, parent);
    for (let i = 0; i < pegs; i++) {
      const cx = x + (i % per) * 15, cy = y - 7 + Math.floor(i / per) * 14;
      const kind = i < black ? "black" : i < black + white ? "white" : "hole";
      el("circle", {cx, cy, r: kind === "hole" ? 2 : 5.5, class: `key ${kind}`}, parent);
    }
  }

  function drawRows() {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const pegs = state.pegs;
    const rows = state.turns.length + (state.pending ? 1 : 0);
    const width = LEFT + pegs * STEP + 130 + 170;
    svg.setAttribute("viewBox", `0 0 ${width} ${Math.max(rows, 1) * ROW + TOP + 4}`);
    svg.style.maxWidth = `${width}px`;
    state.turns.forEach((turn, i) => {
      const y = TOP + i * ROW + ROW / 2;
      const bad = turn.note ? " flagged" : "";
      const g = el("g", {class: `row${bad}`, "data-row": i + 1, "data-black": turn.black,
                         "data-white": turn.white}, svg);
      if (turn.note) el("rect", {x: 2, y: y - ROW / 2 + 2, width: width - 4,
                                 height: ROW - 4, rx: 6, class: "flag"}, g);
      text(g, 8, y + 5, `${i + 1}.`, {class: "number"});
      [...turn.guess].forEach((ch, j) => drawPeg(g, LEFT + j * STEP + PEG, y, ch));
      const ax = LEFT + pegs * STEP + 10;
      drawAnswer(g, ax, y, turn.black, turn.white, pegs);
      text(g, ax + Math.ceil(pegs / 2) * 15 + 8, y + 5, `${turn.black}B ${turn.white}W`,
           {class: "said"});
      const left = turn.black === pegs ? "solved" :
        `${turn.remaining} possible${turn.note ? " \u26a0" : ""}`;
      text(g, ax + 130, y + 5, left, {class: "left"});
      if (turn.note) el("title", {}, g).textContent = turn.note;
    });
    if (state.pending) {
      const i = state.turns.length, y = TOP + i * ROW + ROW / 2;
      const g = el("g", {class: "row pending", "data-row": i + 1}, svg);
      text(g, 8, y + 5, `${i + 1}.`, {class: "number"});
      [...state.pending].forEach((ch, j) => drawPeg(g, LEFT + j * STEP + PEG, y, ch));
      text(g, LEFT + pegs * STEP + 10, y + 5, "your answer?", {class: "said"});
    }
  }

  function drawPalette() {
    palette.textContent = "";
    for (const c of state.palette) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "colour";
      b.dataset.colour = c.digit;
      b.style.background = c.css;
      b.setAttribute("aria-label", `${c.name} (${c.digit}, ${c.letter})`);
      b.textContent = c.letter;
      if (["w", "y", "c"].includes(c.letter)) b.classList.add("dark");
      b.addEventListener("click", () => addColour(c.digit));
      palette.appendChild(b);
    }
  }

  function drawCurrent() {
    current.textContent = "";
    slots.forEach((ch, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "slot";
      b.dataset.slot = i;
      if (ch) {
        const c = colourOf(ch);
        b.style.background = c.css;
        b.textContent = c.letter;
        if (["w", "y", "c"].includes(c.letter)) b.classList.add("dark");
        b.setAttribute("aria-label", `hole ${i + 1}: ${c.name}; click to empty`);
      } else {
        b.setAttribute("aria-label", `hole ${i + 1}: empty`);
      }
      b.addEventListener("click", () => { slots[i] = null; drawCurrent(); });
      current.appendChild(b);
    });
  }

  function addColour(ch) {
    if (!state || state.role !== "breaker" || state.finished) return;
    const i = slots.indexOf(null);
    if (i < 0) return;
    slots[i] = ch;
    drawCurrent();
    if (slots.indexOf(null) < 0) JG.act("guess", {code: slots.join("")});
  }

  function render(newState, answer, action) {
    const fresh = !state || action === "new" || action === "load" || newState.pegs !== state.pegs ||
      newState.colours !== state.colours;
    state = newState;
    if (fresh || action === "guess" || action === "best" || action === "undo") {
      slots = new Array(state.pegs).fill(null);
    }
    hint = action === "hint" && answer && answer.hint ? answer.hint : null;
    drawPalette();
    drawCurrent();
    drawRows();
    const breaker = state.role === "breaker";
    entry.hidden = !breaker;
    document.getElementById("palette-line").hidden = !breaker;
    answerEntry.hidden = breaker || !state.pending;
    if (!breaker && state.pending) {
      computerGuess.textContent = `${state.strategy} guesses ${state.pending}:`;
      document.getElementById("blacks").max = state.pegs;
      document.getElementById("whites").max = state.pegs;
    }
    document.getElementById("hint").disabled = !breaker || state.finished;
    document.getElementById("best").disabled = !breaker || state.finished;
    document.getElementById("giveup").disabled = state.finished;
    document.getElementById("undo").disabled = state.gave_up || state.turns.length === 0;
    for (const id of ["pegs", "colours", "role"]) {
      document.getElementById(id).value = String(state[id]);
    }
    const select = document.getElementById("strategy");
    select.textContent = "";
    for (const name of state.strategies) {
      const o = document.createElement("option");
      o.value = name;
      o.textContent = name;
      select.appendChild(o);
    }
    select.value = state.strategy;
    if (hint) {
      slots = [...hint];
      drawCurrent();
    }
    JG.status(state.status);
    JG.coach(state.coach);
    document.getElementById("coach").className = state.contradicted ? "lost" : "";
    if (action === "answer" && state.contradicted && answer && answer.ok) {
      JG.message(answer.message, "refused");  // flagged: shown in red, like a refusal
    }
    positionEl.textContent = `Position: ${state.text}`;
    if ((action === "new" || action === "load") && answer && answer.ok) {
      // the URL names this game's start
      const q = new URLSearchParams({pegs: state.pegs, colours: state.colours, seed: state.seed,
                                     role: state.role, strategy: state.strategy});
      history.replaceState(null, "", `/mastermind?${q}`);
    }
    if (action === "guess" && answer && answer.ok) typed.value = "";
  }

  function newGame() {
    const body = Object.assign({}, JG.data);
    if (state) {
      body.pegs = Number(document.getElementById("pegs").value);
      body.colours = Number(document.getElementById("colours").value);
      body.role = document.getElementById("role").value;
      const chosen = document.getElementById("strategy").value;
      // a strategy offered for another size may not be offered for the new one
      body.strategy = body.pegs === state.pegs && body.colours === state.colours ? chosen : "";
      delete body.seed;
      delete body.position;
    }
    return JG.act("new", body);
  }

  // The Guess button: the typed text if any, else the holes once all are filled.
  function playTyped() {
    if (typed.value.trim()) JG.act("guess", {code: typed.value});
    else if (slots.indexOf(null) < 0) JG.act("guess", {code: slots.join("")});
    else JG.message(`fill the ${state.pegs} holes or type a guess`, "refused");
  }

  typed.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { playTyped(); event.preventDefault(); }
    if (event.key === "Escape") typed.blur();  // back to the page's keys
  });
  for (const id of ["blacks", "whites"]) {  // Enter in either box sends the answer
    document.getElementById(id).addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        document.getElementById("reply").click();
        event.preventDefault();
      }
    });
  }
  document.getElementById("strategy").addEventListener("change", (event) => {
    if (state && (state.role === "breaker" || state.turns.length === 0)) {
      JG.act("strategy", {strategy: event.target.value});
    }
  });
  JG.start({
    newGame,
    render,
    buttons: {
      play: playTyped,
      giveup: () => JG.act("giveup"),
      load: () => {
        const text = document.getElementById("position-text").value.trim();
        if (text) JG.act("load", {position: text});
        else JG.message("paste a position (the line under the board)", "refused");
      },
      reply: () => JG.act("answer", {
        black: Number(document.getElementById("blacks").value),
        white: Number(document.getElementById("whites").value)}),
    },
  });
  document.addEventListener("keydown", (event) => {
    const t = event.target;
    if (t && ["INPUT", "SELECT", "TEXTAREA"].includes(t.tagName)) return;
    if (event.key === "g" && !event.ctrlKey && !event.metaKey && !event.altKey) {
      typed.focus();
      event.preventDefault();
    }
  });
})();
