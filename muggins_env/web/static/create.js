// The create-table form: game, options (from /api/games), a person or an agent on every seat.
"use strict";
let catalog = {};
const $ = (id) => document.getElementById(id);

function optionControl(name, spec) {
  const label = document.createElement("label");
  label.className = "opt";
  label.title = spec.doc || "";
  label.append(name + " ");
  let input;
  if (spec.allowed) {
    input = document.createElement("select");
    for (const v of spec.allowed) {
      const o = document.createElement("option");
      o.value = JSON.stringify(v);
      o.textContent = String(v);
      if (v === spec.default) o.selected = true;
      input.append(o);
    }
  } else {
    input = document.createElement("input");
    input.type = "number";
    input.placeholder = spec.default === null ? "automatic" : String(spec.default);
  }
  input.dataset.option = name;
  input.addEventListener("change", () => { if (name === "num_players") drawSeats(); });
  label.append(input);
  return label;
}

function drawOptions() {
  const box = $("options");
  box.textContent = "";
  const opts = catalog[$("game").value].options;
  for (const [name, spec] of Object.entries(opts)) box.append(optionControl(name, spec));
  drawSeats();
}

function numPlayers() {
  const el = document.querySelector('[data-option="num_players"]');
  return el ? JSON.parse(el.value) : 2;
}

function drawSeats() {
  const box = $("seats");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.textContent = "";
  for (let p = 0; p < numPlayers(); p++) {
    const label = document.createElement("label");
    label.className = "seat-choice";
    label.append(`seat ${p} `);
    const input = document.createElement("input");
    input.value = old[p] || (p === 0 ? "human" : "heuristic");
    input.setAttribute("list", "seat-kinds");
    input.name = `seat${p}`;
    label.append(input);
    box.append(label);
  }
  if (!$("seat-kinds")) {
    const dl = document.createElement("datalist");
    dl.id = "seat-kinds";
    for (const k of ["human", "random", "heuristic", "search:100", "search:400"]) {
      const o = document.createElement("option");
      o.value = k;
      dl.append(o);
    }
    document.body.append(dl);
  }
}

async function create(ev) {
  ev.preventDefault();
  $("create-error").textContent = "";
  const options = {};
  for (const el of document.querySelectorAll("[data-option]")) {
    if (el.tagName === "SELECT") options[el.dataset.option] = JSON.parse(el.value);
    else if (el.value !== "") options[el.dataset.option] = Number(el.value);
  }
  const body = {game: $("game").value, options,
                seats: [...$("seats").querySelectorAll("input")].map((i) => i.value.trim())};
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  const r = await fetch("/api/tables", {method: "POST", headers: {"content-type": "application/json"},
                                        body: JSON.stringify(body)});
  const data = await r.json();
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
  catalog = await (await fetch("/api/games")).json();
  for (const g of Object.keys(catalog)) {
    const o = document.createElement("option");
    o.value = g;
    o.textContent = g;
    $("game").append(o);
  }
  $("game").addEventListener("change", drawOptions);
  $("create").addEventListener("submit", create);
  drawOptions();
}
main();
