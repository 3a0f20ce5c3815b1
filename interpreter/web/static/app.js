// The page of `rulelang serve`: one seat, every human seat of one device (hot-seat), or a replay.
// Plain JavaScript, no build step. Text from the rule files is untrusted: it goes in with
// textContent only, never as HTML.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const parts = location.pathname.split("/").filter(Boolean);
const MODE = parts[0];
const TOKEN = parts[1] || "";
const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function showMessage(text, kind) {
  const box = $("message");
  box.textContent = text;
  box.className = kind || "refused";
  box.hidden = !text;
}

// ---- the table --------------------------------------------------------------------------------

function card(c) {
  const node = el("div", "card");
  node.tabIndex = 0;
  node.appendChild(el("div", "card-face", c.face || c.name));
  if (c.note) node.appendChild(el("div", "card-note", c.note));
  if (c.text) {
    node.classList.add("has-text");
    node.title = c.text;
    node.appendChild(el("div", "card-text", c.text));
    // a tap shows the text on screens without hover
    node.addEventListener("click", () => node.classList.toggle("open"));
  }
  return node;
}

// Cards this seat cannot see: their backs, except the ones it knows (a look, a card it saw go
// there), face up in their places; a count that is itself another player's secret reads "secret".
function cardBacks(count, known) {
  const row = el("div", "cards");
  if (count === null || count === undefined) {
    row.appendChild(el("span", "count", "secret"));
    return row;
  }
  const byPlace = new Map((known || []).map((k) => [k.at, k]));
  const shown = Math.min(count, 12);
  for (let i = 0; i < shown; i++) row.appendChild(byPlace.has(i) ? card(byPlace.get(i)) : el("div", "card back", ""));
  row.appendChild(el("span", "count", count === 1 ? "1 card, face down" : `${count} cards, face down`));
  return row;
}

function labelled(item, cls) {
  const node = el("div", "item " + cls);
  if (item.label) node.appendChild(el("div", "label", item.label));
  return node;
}

function trackSvg(value, size) {
  const boxes = Math.max(0, Math.min(Number(size) || 0, 60));
  const w = 16;
  const pic = svg("svg", {width: boxes * w + 2, height: w + 2, class: "track", role: "img",
                          "aria-label": `${value} of ${size}`});
  for (let i = 0; i < boxes; i++) {
    pic.appendChild(svg("rect", {x: 1 + i * w, y: 1, width: w - 2, height: w - 2,
                                 class: i < value ? "crossed" : "open"}));
  }
  return pic;
}

// A track with markers: one lane per marker (its name on the left), so markers on the same box
// do not hide each other.
function markersSvg(item) {
  const low = Number(item.low) || 0;
  const high = Math.max(Number(item.high) || 0, low + 1);
  const markers = item.markers || [];
  const left = 110;
  const width = 460;
  const lane = 16;
  const x = (at) => left + (Math.max(low, Math.min(high, at)) - low) * (width - left - 20) / (high - low);
  const pic = svg("svg", {width, height: 18 + lane * markers.length, class: "markers", role: "img",
                          "aria-label": markers.map((m) => `${m.name} at ${m.at}`).join(", ")});
  for (let v = low; v <= high && high - low <= 40; v++) {
    pic.appendChild(svg("line", {x1: x(v), y1: 14, x2: x(v), y2: 14 + lane * markers.length, class: "grid"}));
    const t = svg("text", {x: x(v), y: 10, "text-anchor": "middle", class: "tick"});
    t.textContent = String(v);
    pic.appendChild(t);
  }
  markers.forEach((m, i) => {
    const y = 14 + lane * i + lane / 2;
    pic.appendChild(svg("line", {x1: x(low), y1: y, x2: x(high), y2: y, class: "axis"}));
    const name = svg("text", {x: 2, y: y + 4, class: "marker-label"});
    name.textContent = `${m.name}: ${m.at}`;
    pic.appendChild(name);
    pic.appendChild(svg("circle", {cx: x(Number(m.at) || 0), cy: y, r: 5, class: `marker seat${m.player ?? "x"}`}));
  });
  return pic;
}

function renderItems(parent, items) {
  for (const item of items || []) parent.appendChild(renderItem(item));
}

function renderItem(item) {
  switch (item.type) {
    case "section": {
      const node = el("section", "item section");
      node.appendChild(el("h2", "", item.label));
      renderItems(node, item.items);
      return node;
    }
    case "board": {
      const node = el("section", "item board" + (item.you ? " yours" : ""));
      node.appendChild(el("h2", "", item.you ? `${item.label} (you)` : item.label));
      renderItems(node, item.items);
      return node;
    }
    case "row": {
      const node = labelled(item, "row");
      if (item.cards === null || item.cards === undefined) {
        node.appendChild(cardBacks(item.count, item.known));
      } else {
        const row = el("div", "cards");
        if (!item.cards.length) row.appendChild(el("span", "muted", "(none)"));
        item.cards.forEach((c) => row.appendChild(card(c)));
        node.appendChild(row);
      }
      return node;
    }
    case "places": {
      const node = labelled(item, "places");
      const row = el("div", "place-row");
      for (const p of item.places || []) {
        const place = el("div", "place");
        place.appendChild(el("div", "place-name", p.name));
        if (p.note) place.appendChild(el("div", "place-note", p.note));
        row.appendChild(place);
      }
      node.appendChild(row);
      return node;
    }
    case "counter": {
      const node = labelled(item, "counter");
      node.appendChild(el("div", "value", item.value));
      return node;
    }
    case "track": {
      const node = labelled(item, "track-item");
      node.appendChild(trackSvg(item.value, item.size));
      node.appendChild(el("span", "value", `${item.value} of ${item.size}`));
      return node;
    }
    case "markers": {
      const node = labelled(item, "markers-item");
      node.appendChild(markersSvg(item));
      return node;
    }
    case "grid": {
      const node = labelled(item, "grid");
      const table = el("table", "grid-table");
      for (const line of item.lines || []) {
        const tr = el("tr");
        tr.appendChild(el("th", "", line.label));
        for (const cell of line.cells || []) tr.appendChild(el("td", "", cell));
        table.appendChild(tr);
      }
      node.appendChild(table);
      return node;
    }
    case "score": {
      const node = el("div", "item score");
      const head = el("div", "label", `Score: ${item.total}${item.hidden ? " + ?" : ""}`);
      node.appendChild(head);
      const list = el("div", "score-lines");
      for (const line of item.lines || []) {
        list.appendChild(el("span", "score-line", `${line.label} ${line.value === null ? "?" : line.value}`));
      }
      node.appendChild(list);
      return node;
    }
    case "error": {
      const node = labelled(item, "error");
      node.appendChild(el("div", "value", item.message));
      return node;
    }
    default:
      return el("div", "item", `(${item.type})`);
  }
}

function zoneTitle(key, zone, you) {
  const base = key.split("#")[0].replaceAll("_", " ");
  if (zone.owner === null || zone.owner === undefined) return base;
  return zone.owner === you ? `your ${base}` : `Player ${zone.owner + 1} ${base}`;
}

function tokenText(held) {
  return Object.entries(held).map(([token, amount]) => {
    if (amount !== null && typeof amount === "object") {
      const sides = Object.entries(amount).filter(([, n]) => n);
      const total = sides.reduce((sum, [, n]) => sum + n, 0);
      return sides.length === 1 ? `${token} ${total}` : `${token} ${total} (${sides.map(([s, n]) => `${s} ${n}`).join(", ")})`;
    }
    return `${token} ${amount}`;
  }).join(", ");
}

function valueText(value) {
  if (value === null || value === undefined) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return `[${value.map(valueText).join(", ")}]`;
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${k}: ${valueText(v)}`).join(", ");
  return String(value);
}

// A game without a `table:` section: its zones, tokens and values as the engine's view gives them.
function renderView(parent, view, you) {
  const zones = el("section", "item section");
  zones.appendChild(el("h2", "", "Zones"));
  for (const [key, zone] of Object.entries(view.zones || {})) {
    const node = el("div", "item row");
    node.appendChild(el("div", "label", zoneTitle(key, zone, you)));
    if (zone.cards === null || zone.cards === undefined) node.appendChild(cardBacks(zone.count || 0));
    else {
      const row = el("div", "cards");
      if (!zone.cards.length) row.appendChild(el("span", "muted", "(empty)"));
      zone.cards.forEach((name) => row.appendChild(card({name, face: name})));
      node.appendChild(row);
    }
    zones.appendChild(node);
  }
  parent.appendChild(zones);
  const values = el("section", "item section");
  values.appendChild(el("h2", "", "Tokens and values"));
  for (const [holder, held] of Object.entries(view.tokens || {})) {
    const node = el("div", "item counter");
    node.appendChild(el("div", "label", holder));
    node.appendChild(el("div", "value", tokenText(held)));
    values.appendChild(node);
  }
  for (const [name, value] of Object.entries(view.vars || {})) {
    const node = el("div", "item counter");
    node.appendChild(el("div", "label", name.replaceAll("_", " ")));
    node.appendChild(el("div", "value", valueText(value)));
    values.appendChild(node);
  }
  parent.appendChild(values);
}

function renderBoard(parent, board, you) {
  if (board.table) {
    const head = el("div", "round muted", board.table.round ? `Round ${board.table.round}` : "");
    parent.appendChild(head);
    renderItems(parent, board.table.items);
  } else if (board.view) {
    renderView(parent, board.view, you);
  }
}

function renderLog(list, lines, since, highlight) {
  list.replaceChildren();
  lines.forEach((line, i) => list.appendChild(el("li", highlight && i >= since ? "new" : "", line)));
}

function renderResult(result) {
  const box = $("result");
  box.replaceChildren();
  box.hidden = !result;
  if (!result) return;
  box.appendChild(el("h2", "", "Game over"));
  const table = el("table", "result-table");
  for (const row of result.scores) {
    const tr = el("tr", result.winners.includes(row.name) ? "winner" : "");
    tr.appendChild(el("th", "", row.name));
    tr.appendChild(el("td", "total", row.score));
    tr.appendChild(el("td", "muted", row.lines.map((l) => `${l.label} ${l.value}`).join(", ")));
    table.appendChild(tr);
  }
  box.appendChild(table);
  box.appendChild(el("p", "winners", `Winner${result.winners.length === 1 ? "" : "s"}: ${result.winners.join(", ") || "nobody"}`));
}

// ---- playing ------------------------------------------------------------------------------------

function renderPlay(msg, send) {
  document.title = `${msg.game}: ${msg.name}`;
  $("title").textContent = msg.game;
  const seat = msg.seats[msg.seat];
  $("who").textContent = seat.agent === "human" ? `You are ${msg.name}` : `Watching ${msg.name} (${seat.agent})`;
  const board = $("board");
  board.replaceChildren();
  renderBoard(board, msg, msg.seat);
  const actions = $("actions");
  actions.replaceChildren();
  const d = msg.decision;
  let status;
  if (msg.over) status = "Game over";
  else if (d && d.yours) status = d.prompt || "Your decision";
  else if (d) {
    const names = d.waiting.map((w) => w.agent === "human" ? w.name : `${w.name} (${w.agent})`);
    status = `Waiting for ${names.join(", ")}`;
  } else status = "";
  $("status").textContent = status;
  $("decision").className = d && d.yours ? "yours" : "";
  if (d && d.yours) {
    for (const a of d.actions) {
      const line = el("div", "action-line");
      const b = el("button", "action", a.label);
      b.type = "button";
      b.addEventListener("click", () => {
        for (const other of actions.querySelectorAll("button.action")) other.disabled = true;
        showMessage("");
        send({type: "act", ticket: d.ticket, index: a.index});
      });
      line.appendChild(b);
      if (a.text) {  // the card the action names: its text on hover, or a tap on the i
        b.title = a.text;
        const more = el("button", "card-info", "i");
        more.type = "button";
        more.title = a.text;
        more.setAttribute("aria-label", "card text");
        const text = el("div", "action-text", a.text);
        text.hidden = true;
        more.addEventListener("click", () => { text.hidden = !text.hidden; });
        line.appendChild(more);
        line.appendChild(text);
      }
      actions.appendChild(line);
    }
  }
  renderResult(msg.result);
  const since = msg.log.slice(msg.since);
  $("since-title").textContent = msg.since === 0 ? "So far" : "Since your last decision";
  renderLog($("since"), since, 0, false);
  renderLog($("log"), msg.log, msg.since, true);
  $("save").hidden = !msg.can_save || msg.over;
}

function connect(token, onMessage) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${token}`);
  const send = (obj) => ws.send(JSON.stringify(obj));
  ws.addEventListener("message", (event) => onMessage(JSON.parse(event.data), send));
  ws.addEventListener("open", () => { $("connection").textContent = ""; });
  ws.addEventListener("close", () => { $("connection").textContent = "disconnected from the server"; });
  return send;
}

function onOther(msg) {
  if (msg.type === "refused") showMessage(msg.message, "refused");  // the page is sent again after it
  else if (msg.type === "saved") showMessage(`Saved to ${msg.path}; resume with rulelang serve --resume ${msg.path}`, "saved");
}

function startSeat() {
  let sendLatest = null;
  connect(TOKEN, (msg, send) => {
    sendLatest = send;
    if (msg.type === "state") {
      if (msg.error) showMessage(msg.error, "refused");
      renderPlay(msg, send);
    } else onOther(msg);
  });
  $("save").addEventListener("click", () => sendLatest && sendLatest({type: "save"}));
}

// Hot-seat: every human seat of this device, one at a time, with a screen between them so the
// next player does not see the previous one's cards.
async function startHotseat() {
  const response = await fetch(`/api/hotseat/${TOKEN}`);
  if (!response.ok) { showMessage("No such page", "refused"); return; }
  const {seats} = await response.json();
  const latest = {};
  const senders = {};
  let shown = null;  // the seat whose table is on the screen
  let passingTo = null;

  function pick() {
    const deciding = seats.filter((s) => latest[s.seat] && latest[s.seat].decision && latest[s.seat].decision.yours);
    if (shown !== null && deciding.some((s) => s.seat === shown)) return shown;
    if (deciding.length) return deciding[0].seat;
    return shown;
  }

  function update() {
    if (seats.some((s) => !latest[s.seat])) return;
    const next = pick();
    if (next === null) {  // nobody of this device decides yet: show no one's cards
      $("main").hidden = true;
      $("pass").hidden = false;
      $("pass-title").textContent = "Waiting";
      $("pass-text").textContent = "The other players are choosing.";
      $("pass-ready").hidden = true;
      return;
    }
    if (next !== shown) {
      passingTo = next;
      $("board").replaceChildren();  // nothing of the previous seat stays on the page
      $("actions").replaceChildren();
      $("main").hidden = true;
      $("pass").hidden = false;
      $("pass-ready").hidden = false;
      $("pass-title").textContent = `Pass the device to ${latest[next].name}`;
      $("pass-text").textContent = `${latest[next].name}: press the button when only you can see the screen.`;
      $("pass-ready").textContent = `I am ${latest[next].name}: show my table`;
      return;
    }
    $("pass").hidden = true;
    $("main").hidden = false;
    renderPlay(latest[shown], senders[shown]);
  }

  $("pass-ready").addEventListener("click", () => {
    shown = passingTo;
    update();
  });
  $("save").addEventListener("click", () => shown !== null && senders[shown]({type: "save"}));
  for (const s of seats) {
    senders[s.seat] = connect(s.token, (msg) => {
      if (msg.type === "state") {
        latest[s.seat] = msg;
        if (msg.error) showMessage(msg.error, "refused");
        update();
      } else onOther(msg);
    });
  }
}

// ---- replay ---------------------------------------------------------------------------------------

async function startReplay() {
  let step = 0;
  let seat = "all";
  let info = null;
  $("replay-controls").hidden = false;
  $("moves-box").hidden = false;
  $("decision").hidden = true;
  $("since-title").textContent = "This move";
  $("log-box").open = true;

  async function load() {
    const response = await fetch(`/api/replay/${TOKEN}?step=${step}&seat=${seat}`);
    const msg = await response.json();
    if (!response.ok) { showMessage(msg.error, "refused"); return; }
    info = msg;
    render(msg);
  }

  function render(msg) {
    document.title = `${msg.game}: replay`;
    $("title").textContent = `${msg.game}: replay`;
    $("who").textContent = msg.seat === null ? "Seen by everyone" : `Seen by ${msg.players[msg.seat].name}`;
    $("slider").max = String(msg.steps);
    $("slider").value = String(msg.step);
    $("step-label").textContent = `move ${msg.step} of ${msg.steps}`;
    const pov = $("pov");
    if (!pov.options.length) {
      pov.appendChild(new Option("everyone", "all"));
      for (const p of msg.players) pov.appendChild(new Option(p.name, String(p.seat)));
    }
    pov.value = seat;
    const board = $("board");
    board.replaceChildren();
    for (const b of msg.boards) {
      const part = el("section", "pov");
      if (msg.boards.length > 1) part.appendChild(el("h2", "pov-title", `${b.name} sees`));
      renderBoard(part, b, b.seat);
      board.appendChild(part);
    }
    const moves = $("moves");
    moves.replaceChildren();
    msg.moves.forEach((m, i) => {
      const li = el("li", i + 1 === msg.step ? "current" : "", m.label === null ? `${m.name} chose` : `${m.name}: ${m.label}`);
      li.addEventListener("click", () => go(i + 1));
      moves.appendChild(li);
    });
    const current = moves.querySelector(".current");
    if (current) current.scrollIntoView({block: "nearest"});
    renderLog($("since"), msg.log.slice(msg.since), 0, false);
    renderLog($("log"), msg.log, msg.since, true);
    renderResult(msg.result);
    $("first").disabled = $("back").disabled = msg.step === 0;
    $("last").disabled = $("forward").disabled = msg.step === msg.steps;
  }

  function go(to) {
    if (!info) return;
    step = Math.max(0, Math.min(info.steps, to));
    load();
  }

  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(step - 1));
  $("forward").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(info ? info.steps : 0));
  $("slider").addEventListener("change", () => go(Number($("slider").value)));
  $("pov").addEventListener("change", () => { seat = $("pov").value; load(); });
  document.addEventListener("keydown", (event) => {
    if (event.target && event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") go(step + 1);
    else if (event.key === "ArrowLeft") go(step - 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(info ? info.steps : 0);
  });
  await load();
}

if (MODE === "seat") startSeat();
else if (MODE === "hotseat") startHotseat();
else if (MODE === "replay") startReplay();
