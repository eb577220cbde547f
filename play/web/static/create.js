// The create-table form: game, options (from /api/games), a person or one of the server's players
// on every seat. It sends only the options the person changed: an untouched "automatic" option is
// left to the game, so a variant's own scoring, layout and target apply.
"use strict";
let catalog = {}, server = {};
const $ = (id) => document.getElementById(id);

const LABELS = {
  num_players: "Players", mistakes: "Mistakes allowed (others may call “Muggins!”)", max_turns: "Turn limit",
  target: "Game to (points)", muggins: "Muggins (opponents claim missed points)", lowball: "Lowball (first to the target loses)",
  partnerships: "Partnerships (0 & 2 against 1 & 3)", variant: "Variant", scoring: "Scoring", spinners: "Spinners",
  lead: "First play of a hand", knocking: "Knock instead of drawing", extra_play: "Another tile after a double or a score",
  win_bonus: "End-of-hand bonus", set_max: "Set", hand_size: "Tiles dealt to each player",
  boneyard_reserve: "Boneyard tiles never drawn", episode: "Play", max_hands: "Hand limit", num_hands: "Hands",
};
const VALUE_LABELS = {
  set_max: (v) => `double-${v}`, episode: (v) => ({game: "a game to the target", hand: "one hand"})[v],
  lead: (v) => ({heaviest: "the heaviest tile", double: "the highest double"})[v],
};

const words = (s) => String(s).replace(/_/g, " ");
const label = (name) => LABELS[name] || words(name).replace(/^./, (c) => c.toUpperCase());
function valueLabel(name, v) {
  if (v === true) return "yes";
  if (v === false) return "no";
  return (VALUE_LABELS[name] && VALUE_LABELS[name](v)) || words(v);
}

function game() { return catalog[$("game").value]; }

// what the current choices make of the automatic options (for their labels only: the server decides)
function automatic() {
  const g = game(), out = {};
  const base = {};
  for (const [name, spec] of Object.entries(g.options)) {
    const r = g.resolved[name];
    if (r && spec.default !== null && r[JSON.stringify(spec.default)]) base[name] = r[JSON.stringify(spec.default)];
  }
  const first = Object.values(base)[0] || {};
  Object.assign(out, first);
  for (const el of document.querySelectorAll("[data-option]")) {
    const name = el.dataset.option, spec = g.options[name];
    if (el.tagName !== "SELECT" || el.value === "auto" || spec.default === null) continue;
    if (el.value === JSON.stringify(spec.default)) continue;
    const mine = (g.resolved[name] || {})[el.value] || {};
    for (const [k, v] of Object.entries(mine)) if (!base[name] || base[name][k] !== v) out[k] = v;
  }
  return out;
}

function relabel() {
  const auto = automatic();
  for (const el of document.querySelectorAll("[data-option]")) {
    const name = el.dataset.option;
    const shown = name in auto ? ` (${valueLabel(name, auto[name])})` : "";
    if (el.tagName === "SELECT") {
      const o = el.querySelector('option[value="auto"]');
      if (o) o.textContent = "automatic" + shown;
    } else if (game().options[name].default === null) el.placeholder = "automatic" + shown;
  }
}

function optionControl(name, spec) {
  const lab = document.createElement("label");
  lab.className = "opt";
  lab.title = spec.doc || "";
  lab.append(label(name) + " ");
  let input;
  if (spec.allowed) {
    input = document.createElement("select");
    if (spec.default === null) {
      const o = document.createElement("option");
      o.value = "auto";
      o.textContent = "automatic";
      input.append(o);
    }
    for (const v of spec.allowed) {
      const o = document.createElement("option");
      o.value = JSON.stringify(v);
      o.textContent = valueLabel(name, v);
      if (v === spec.default) o.selected = true;
      input.append(o);
    }
  } else {
    input = document.createElement("input");
    input.type = "number";
    input.placeholder = spec.default === null ? "automatic" : String(spec.default);
  }
  input.dataset.option = name;
  input.dataset.initial = input.value;
  input.addEventListener("change", () => { drawSeats(); relabel(); });  // the players offered follow the options
  lab.append(input);
  return lab;
}

function drawOptions() {
  const box = $("options");
  box.textContent = "";
  for (const [name, spec] of Object.entries(game().options)) {
    if (!spec.payoff) box.append(optionControl(name, spec));  // reward shaping is for training, not for people
  }
  drawSeats();
  relabel();
}

function numPlayers() {
  const el = document.querySelector('[data-option="num_players"]');
  return el ? JSON.parse(el.value) : 2;
}

// a zoo network or a best: player plays only the options on its card: it is offered while every
// option chosen in a list (not left automatic) is the one it plays
function fits(player) {
  if (!player.options) return true;
  for (const el of document.querySelectorAll("select[data-option]")) {
    const name = el.dataset.option;
    if (el.value !== "auto" && name in player.options && JSON.parse(el.value) !== player.options[name]) return false;
  }
  return true;
}

function playerSelect(name, value, withPerson) {
  const sel = document.createElement("select");
  sel.name = name;
  const offered = game().players.filter(fits);
  if (!offered.some((p) => p.name === value) && value !== "human") value = "heuristic";  // no longer offered
  const choices = (withPerson ? [{name: "human", doc: "a person: they get their own link"}] : []).concat(offered);
  for (const p of choices) {
    const o = document.createElement("option");
    o.value = p.name;
    o.textContent = p.name === "human" ? "a person" : `${p.name} — ${p.doc}`;
    if (p.name === value) o.selected = true;
    sel.append(o);
  }
  return sel;
}

function drawSeats() {
  const box = $("seats");
  const old = [...box.querySelectorAll("select.seat")].map((s) => s.value);
  const oldStandIns = [...box.querySelectorAll("select.stand-in-choice")].map((s) => s.value);
  box.textContent = "";
  for (let p = 0; p < numPlayers(); p++) {
    const row = document.createElement("div");
    row.className = "seat-row";
    const lab = document.createElement("label");
    lab.className = "seat-choice";
    lab.append(`Seat ${p} `);
    const sel = playerSelect(`seat${p}`, old[p] || (p === 0 ? "human" : "heuristic"), true);
    sel.className = "seat";
    lab.append(sel);
    row.append(lab);
    if (server.seat_timeout) {
      const away = document.createElement("label");
      away.className = "stand-in";
      away.append(`if away ${server.seat_timeout / 60} min, played by `);
      const s = playerSelect(`stand_in${p}`, oldStandIns[p] || "heuristic", false);
      s.className = "stand-in-choice";
      away.append(s);
      row.append(away);
      const sync = () => { away.hidden = sel.value !== "human"; };
      sel.addEventListener("change", sync);
      sync();
    }
    box.append(row);
  }
}

async function create(ev) {
  ev.preventDefault();
  $("create-error").textContent = "";
  const options = {};
  for (const el of document.querySelectorAll("[data-option]")) {
    if (el.value === el.dataset.initial) continue;  // untouched: the game's own default
    if (el.tagName === "SELECT") { if (el.value !== "auto") options[el.dataset.option] = JSON.parse(el.value); }
    else if (el.value !== "") options[el.dataset.option] = Number(el.value);
  }
  const seats = [...$("seats").querySelectorAll("select.seat")].map((s) => s.value);
  const body = {game: $("game").value, options, seats};
  if (server.seat_timeout) {
    body.stand_ins = [...$("seats").querySelectorAll(".seat-row")].map((row, p) =>
      seats[p] === "human" ? row.querySelector(".stand-in-choice").value : null);
  }
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  let data, r;
  try {
    r = await fetch("/api/tables", {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
    data = await r.json();
  } catch (e) { $("create-error").textContent = "the server did not answer: " + e.message; return; }
  if (!r.ok) { $("create-error").textContent = data.error; return; }
  const list = $("link-list");
  list.textContent = "";
  for (const [seat, link] of Object.entries(data.links)) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = link;
    a.className = "seat-link";
    a.dataset.seat = seat;
    a.textContent = `seat ${seat}: ${location.origin}${link}`;
    li.append(a);
    list.append(li);
  }
  $("links").hidden = false;
}

async function main() {
  [catalog, server] = await Promise.all([(await fetch("/api/games")).json(), (await fetch("/api/server")).json()]);
  for (const [g, spec] of Object.entries(catalog)) {
    const o = document.createElement("option");
    o.value = g;
    o.textContent = spec.title;
    $("game").append(o);
  }
  $("game").addEventListener("change", drawOptions);
  $("create").addEventListener("submit", create);
  drawOptions();
}
main();
