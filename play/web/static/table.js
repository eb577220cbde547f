// One seat's page: joins by its link (/table/{id}/{seat}#{token}), receives its own state by
// WebSocket pushes, plays by clicking legal moves (POST with the token in a header).
"use strict";
const [, , TABLE, SEAT] = location.pathname.split("/");
const TOKEN = decodeURIComponent(location.hash.slice(1));
const API = `/api/tables/${TABLE}/seats/${SEAT}`;
let state = null, selected = null, overDismissed = false, socket = null, sending = false;
let online = false, gone = false, retries = 0;  // the server's socket is up; the table no longer exists
const $ = (id) => document.getElementById(id);
let games = {};  // /api/games: each game's short title and drawing key, from the game's declaration

function showError(msg) { $("error").textContent = msg || ""; }

// while the server is away the board is kept but nothing on it can be played
function setOnline(up, why) {
  online = up;
  document.body.classList.toggle("away", !up);
  const b = $("away");
  b.hidden = up;
  if (!up) b.textContent = why || "The server is away: reconnecting… (the game is kept; it goes on where it was)";
  if (state) { drawMoves(); markHand(); }
}

async function api(path, opts) {
  const r = await fetch(API + path, Object.assign({headers: {"x-seat-token": TOKEN, "content-type": "application/json"}}, opts));
  const data = r.headers.get("content-type")?.includes("json") ? await r.json() : null;
  if (!r.ok) throw new Error((data && data.error) || `HTTP ${r.status}`);
  return data;
}

async function play(action) {
  if (sending || !online) return;
  sending = true;
  showError("");
  try { render(await api(`/move?log_from=${state ? state.log.length : 0}`, {method: "POST", body: JSON.stringify({action})})); }
  catch (e) { showError(e.message); }
  finally { sending = false; }
}

// moves that name a given card or tile of the hand, or a place of the table
function movesNaming(label, moves) {
  const re = new RegExp(`(^|[^0-9])${label.replace(/[-]/g, "\\-")}($|[^0-9])`);
  return (moves || state.legal_moves).filter(([, name]) => re.test(name));
}

// places that a legal move (of the selected card or tile, if any) names: click to play it
function markTargets() {
  const pool = selected ? movesNaming(selected) : state.legal_moves;
  for (const t of document.querySelectorAll("[data-target]")) {
    const moves = state.your_turn && online ? movesNaming(t.dataset.target, pool) : [];
    t.classList.toggle("target-on", moves.length === 1);
    t.onclick = moves.length === 1 ? () => play(moves[0][0]) : null;
  }
}

function drawMoves() {
  const box = $("moves");
  box.textContent = "";
  if (!state.your_turn || !online) return;
  let moves = state.legal_moves;
  if (selected) {
    const only = movesNaming(selected);
    if (only.length) moves = only;
  }
  // many "announce N" / "muggins N" choices: one row of number buttons per kind
  const groups = new Map();
  for (const [a, name] of moves) {
    const m = moves.length > 6 ? /^(.*\S) (\d+)$/.exec(name) : null;
    const key = m ? m[1] : "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push([a, name, m ? m[2] : null]);
  }
  for (const [key, items] of [...groups.entries()].sort(([k1], [k2]) => (k1 ? 1 : 0) - (k2 ? 1 : 0))) {
    const line = el("div", key ? "move-group numeric" : "move-group");
    if (key) line.append(el("span", "group-label", key));
    for (const [a, name, num] of items) {
      const b = el("button", "move");
      b.type = "button";
      b.dataset.action = a;
      b.dataset.name = name;
      b.title = name;
      if (num !== null) b.textContent = num; else b.append(richText(name));
      b.addEventListener("click", () => play(a));
      line.append(b);
    }
    box.append(line);
  }
  if (selected) {
    const c = el("button", "move-cancel", "show all moves");
    c.type = "button";
    c.addEventListener("click", () => { selected = null; drawMoves(); markHand(); });
    box.append(c);
  }
}

// hand cards and tiles that some legal move names are clickable; the others are not
function markHand() {
  for (const h of document.querySelectorAll(".hand .card, .hand .tile")) {
    const label = h.dataset.card || h.dataset.tile;
    const moves = state.your_turn && online ? movesNaming(label) : [];
    h.classList.toggle("playable", moves.length > 0);
    h.classList.toggle("selected", label === selected);
    h.onclick = moves.length ? () => {
      if (moves.length === 1) play(moves[0][0]);
      else { selected = label; drawMoves(); markHand(); }
    } : null;
  }
  markTargets();
}

function drawSeats() {
  const bar = $("seats-bar");
  bar.textContent = "";
  const unit = state.score_unit;
  state.seats.forEach((s, p) => {
    const d = el("div", "seat-tag" + (p === state.to_act ? " acting" : "") + (p === state.seat ? " mine" : ""));
    const score = state.scores.length === state.seats.length ? state.scores[p] : null;
    d.append(el("b", "", `P${p}`), ` ${s.name}${s.stand_in ? " (for the person who was away)" : ""}`, s.kind === "human" && p !== state.seat ? el("span", s.online ? "online" : "offline", s.online ? " ●" : " ○") : "",
             score !== null ? el("span", "seat-score", ` ${score} ${unit}`) : "");
    bar.append(d);
  });
  if (state.scores.length !== state.seats.length) bar.append(el("div", "seat-tag", `scores: ${state.scores.join(" / ")} ${unit}`));
}

function drawLog() {
  const log = $("log");
  log.textContent = "";
  for (const m of state.log) {
    const li = el("li", m.player === state.seat ? "mine" : "");
    li.append(el("b", "", `P${m.player} `), richText(m.move));
    const pts = m.points.map((x, p) => x ? `P${p} ${x > 0 ? "+" : ""}${x}` : null).filter(Boolean);
    if (pts.length) li.append(el("span", "pts", ` (${pts.join(", ")})`));
    if (m.new_hand) li.append(el("div", "hand-end", "— new hand —"));
    log.append(li);
  }
  log.scrollTop = log.scrollHeight;
}

function drawHands() {
  const box = $("hands");
  box.textContent = "";
  if (!state.hands.length) { box.append(el("p", "empty-note", "no hand finished yet")); return; }
  const t = el("table", "hands-table");
  const head = el("tr");
  head.append(el("th", "", "hand"), ...state.seats.map((_, p) => el("th", "", `P${p}`)));
  t.append(head);
  for (const h of state.hands) {
    const tr = el("tr");
    tr.append(el("td", "", h.final ? `${h.hand} (end)` : String(h.hand)),
              ...h.points.map((x, p) => el("td", "", `${x > 0 ? "+" : ""}${x} → ${h.scores[p] ?? ""}`)));
    t.append(tr);
  }
  box.append(t);
}

function drawOver() {
  if (!state.over) { $("over").hidden = true; return; }
  const r = state.result;
  const best = Math.max(...r.returns);
  const winners = r.returns.map((x, p) => x === best ? p : null).filter((p) => p !== null);
  $("over-title").textContent = r.truncated ? "Game over (stopped at the turn limit)"
    : winners.includes(state.seat) ? (winners.length > 1 ? "Game over: you share the win" : "Game over: you win")
    : `Game over: ${winners.map((p) => "player " + p).join(" and ")} win${winners.length > 1 ? "" : "s"}`;
  const body = $("over-body");
  body.textContent = "";
  const t = el("table", "hands-table");
  const h = el("tr");
  h.append(el("th", "", ""), el("th", "", `score (${state.score_unit})`), el("th", "", "return"));
  t.append(h);
  state.seats.forEach((s, p) => {
    const tr = el("tr", p === state.seat ? "mine" : "");
    tr.append(el("td", "", `P${p} ${s.name}`), el("td", "", String(r.scores[p] ?? r.scores[state.view.teams ? state.view.teams[p] : p])),
              el("td", "", String(Math.round(r.returns[p] * 1000) / 1000)));
    t.append(tr);
  });
  body.append(t);
  $("over").hidden = overDismissed;
}

async function refresh() {
  try { render(await api("")); } catch (e) { showError(e.message); }
}

function render(st) {
  if (!st || (state && st.ply < state.ply)) return;  // an older push arriving late
  if (st.log_start) {  // only the log entries this page lacks
    if (!state || st.log_start > state.log.length) { refresh(); return; }
    st.log = state.log.slice(0, st.log_start).concat(st.log);
  }
  state = st;
  if (!state.your_turn) selected = null;
  const game = games[st.game] || {};
  document.title = `${game.short_title || st.game} · seat ${st.seat}`;
  $("title").textContent = game.short_title || st.game;
  $("status").textContent = st.error ? `table stopped: ${st.error}`
    : st.over ? "game over" : st.your_turn ? `your turn · ${st.phase}`
    : st.to_act === st.seat ? `playing your only move · ${st.phase}` : `waiting for player ${st.to_act} · ${st.phase}`;
  $("notices").textContent = (st.notices || []).join(" · ");
  $("status").className = "status" + (st.your_turn ? " your-turn" : "");
  const board = $("board");
  board.textContent = "";
  board.className = "board " + st.game;
  const done = st.hands.filter((h) => !h.final);
  if (done.length) {  // the end-of-hand summary stays up through the next hand
    const h = done[done.length - 1];
    board.append(el("div", "hand-summary", `hand ${h.hand} over: ` + h.points.map((x, p) => `${p === st.seat ? "you" : "P" + p} ${x > 0 ? "+" : ""}${x}`).join(" · ")
                    + ` (${st.score_unit}) → ` + h.scores.join(" / ")));
  }
  (DRAW[game.drawing] || ((s, b) => b.append(el("pre", "", s.text))))(st, board);
  $("text").textContent = st.text;
  drawSeats();
  drawMoves();
  markHand();
  $("prompt").textContent = st.your_turn ? prompt(st) : "";  // after markHand: it reads what is clickable
  drawLog();
  drawHands();
  drawOver();
}

// the prompt says what kind of decision this is, from the moves offered
function prompt(st) {
  if (selected) return `${selected}: choose where`;
  const names = st.legal_moves.map(([, n]) => n);
  if (names.some((n) => /^announce /.test(n))) return "Announce your count: choose a number";
  if (names.some((n) => /^(accept|muggins|call)/.test(n))) return "Accept what was announced, or call muggins";
  if (document.querySelector(".hand .playable, .target-on")) return "Your move: click a highlighted card or tile, or a move below";
  return "Your move: choose one below";
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/tables/${TABLE}/seats/${SEAT}`);
  socket = ws;
  ws.onopen = () => ws.send(JSON.stringify({token: TOKEN}));
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") { retries = 0; if (!online) { setOnline(true); showError(""); } render(msg.state); }
    else if (msg.type === "error") {
      showError(msg.error);
      if (/no table|cannot be resumed|token/.test(msg.error)) { gone = true; setOnline(false, "This table is not on the server any more."); }
    }
  };
  ws.onclose = () => {  // rejoin by the same link, sooner at first, then every few seconds
    if (socket !== ws || gone) return;
    setOnline(false);
    setTimeout(connect, Math.min(5000, 500 * 2 ** retries++));
  };
}

async function download() {
  try {
    const r = await fetch(API + "/record", {headers: {"x-seat-token": TOKEN}});
    if (!r.ok) throw new Error((await r.json()).error);
    const blob = await r.blob();
    const a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = (r.headers.get("content-disposition") || "").match(/filename="([^"]+)"/)?.[1] || "game-record.json";
    document.body.append(a);
    a.click();
    a.remove();
  } catch (e) { showError(e.message); }
}

async function main() {
  $("download").addEventListener("click", download);
  $("close-over").addEventListener("click", () => { overDismissed = true; $("over").hidden = true; });
  if (!TOKEN) { showError("this link has no seat token: open the full link you were given"); return; }
  setOnline(false, "Connecting…");
  try { games = await (await fetch("/api/games")).json(); } catch (e) { /* the page still plays: titled by env id, drawn as text */ }
  try { render(await api("")); } catch (e) { showError(e.message); }
  connect();
}
main();
