// Drawing a seat's view: cards, domino tiles, boards. Card ids: suit * 13 + rank - 1 (suits
// clubs, diamonds, hearts, spades; A = 1 .. K = 13); tile ids: high * (high + 1) / 2 + low
// (README contracts). Only the seat's own view is ever drawn: there is nothing else to draw.
"use strict";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = "♣♦♥♠";
const PIPS = [[], [4], [0, 8], [0, 4, 8], [0, 2, 6, 8], [0, 2, 4, 6, 8], [0, 2, 3, 5, 6, 8],
              [0, 2, 3, 4, 5, 6, 8], [0, 1, 2, 3, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7, 8]];

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const cardName = (id) => RANKS[id % 13] + SUITS[Math.floor(id / 13)];
const isRed = (id) => { const s = Math.floor(id / 13); return s === 1 || s === 2; };
function tileHalves(id) {
  let hi = 0;
  while ((hi + 1) * (hi + 2) / 2 <= id) hi++;
  return [hi, id - hi * (hi + 1) / 2];
}
const tileName = (id) => tileHalves(id).join("-");

function card(id, extra) {
  if (id === null || id === undefined || id < 0) return el("div", "card back" + (extra ? " " + extra : ""));
  const c = el("div", "card " + (isRed(id) ? "red" : "black") + (extra ? " " + extra : ""));
  c.dataset.card = cardName(id);
  c.append(el("span", "corner", RANKS[id % 13] + SUITS[Math.floor(id / 13)]), el("span", "pip", SUITS[Math.floor(id / 13)]),
           el("span", "corner low", RANKS[id % 13] + SUITS[Math.floor(id / 13)]));
  return c;
}
function backs(n, label) {
  const b = el("div", "stack");
  for (let i = 0; i < Math.min(n, 5); i++) b.append(el("div", "card back small"));
  if (label !== undefined && n > 0) b.append(el("span", "stack-label", label));  // no lone "0" for an empty hand
  return b;
}
const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
function half(p) {
  const h = el("div", "half");
  if (p > 9) { h.classList.add("num"); h.textContent = p; return h; }
  for (let i = 0; i < 9; i++) h.append(el("span", PIPS[p].includes(i) ? "dot" : "nodot"));
  return h;
}
// a tile showing halves a then b (left-right, or top-bottom when vertical)
function tile(a, b, vertical, id) {
  const t = el("div", "tile " + (vertical ? "v" : "h"));
  t.append(half(a), el("div", "bar"), half(b));
  if (id !== undefined) t.dataset.tile = tileName(id);
  return t;
}

// move names with their cards and tiles drawn small
function richText(s) {
  const frag = document.createDocumentFragment();
  const re = /(10|[2-9AJQK])([♣♦♥♠])|\b(\d+)-(\d+)\b/g;
  let last = 0, m;
  while ((m = re.exec(s))) {
    frag.append(s.slice(last, m.index));
    if (m[1]) frag.append(el("span", "mini " + ("♦♥".includes(m[2]) ? "red" : "black"), m[0]));
    else frag.append(el("span", "mini-tile", m[0]));
    last = re.lastIndex;
  }
  frag.append(s.slice(last));
  return frag;
}
// a place on the table that legal moves name ("common pile 2", "on arm 3"): clickable when one does
function target(e, words) { e.dataset.target = words; return e; }
function labelled(label, ...children) {
  const box = el("div", "zone");
  box.append(el("div", "zone-label", label), ...children);
  return box;
}
function row(cls, items) { const r = el("div", "row " + (cls || "")); r.append(...items); return r; }
const handRow = (items) => items.length ? row("hand", items) : el("div", "empty-note", "(none left)");
const who = (st, p) => p === st.seat ? "you" : `player ${p}`;
const whose = (st, p) => p === st.seat ? "your" : `player ${p}'s`;

// ---------------------------------------------------------------------------------- card Muggins
function drawMugginsCards(st, board) {
  const v = st.view;
  const commons = v.commons.map((c, i) => target(labelled(`common pile ${i}`, card(c)), `common pile ${i}`));
  board.append(row("commons", commons));
  if (v.card_in_play >= 0)
    board.append(labelled(`card in play (${who(st, v.turn_player)})`, card(v.card_in_play, "in-play")));
  const seats = v.stock_sizes.map((n, p) => {
    const z = labelled(`${who(st, p)} · ${n} in stock`, backs(n, String(n)),
                       v.discard_tops[p] >= 0 ? card(v.discard_tops[p]) : el("div", "card empty"),
                       el("span", "stack-label", `discard ${v.discard_sizes[p]}`));
    z.classList.add("player-zone");
    target(z, p === st.seat ? "own discard" : `discard of player ${p}`);
    if (p === st.to_act) z.classList.add("acting");
    if (p === st.seat) z.classList.add("mine");
    return z;
  });
  board.append(row("players", seats));
}

// -------------------------------------------------------------------------------------- dominoes
// arms from the plays: arm 1 grows from the lead's high half, arm 2 from its low half, the
// arms 2k+1, 2k+2 from the k-th spinner (the doubles in the order played; layout.py)
function dominoArms(v) {
  const arms = {};
  if (v.lead < 0) return {arms, roots: {}, spinners: []};
  const [lh, ll] = tileHalves(v.lead);
  const doubles = [];
  const roots = {1: lh, 2: ll};
  for (const [, t, slot] of v.plays) {
    const [a, b] = tileHalves(t);
    if (slot > 0) (arms[slot] = arms[slot] || []).push(t);
    if (a === b) doubles.push({tile: t, arm: slot, index: slot > 0 ? arms[slot].length - 1 : -1});
  }
  const oriented = {};
  for (const k of Object.keys(arms).map(Number)) {
    let p = k <= 2 ? roots[k] : tileHalves(doubles[(k - 3) >> 1].tile)[0];
    roots[k] = p;
    oriented[k] = arms[k].map((t) => { const [a, b] = tileHalves(t); const out = a === p ? b : a; const r = [p, out, t]; p = out; return r; });
  }
  return {arms: oriented, roots, spinners: doubles};
}
function endBadge(k, openSlots) {
  return openSlots.has(k) ? target(el("span", "arm-badge", String(k)), `on arm ${k}`) : el("span", "arm-badge closed", String(k));
}
function drawDominoes(st, board) {
  const v = st.view;
  const info = el("div", "info");
  info.append(`count ${v.count} · boneyard ${v.boneyard_size} · target ${v.target}`);
  board.append(info);
  const lay = el("div", "domino-layout");
  if (v.lead < 0) lay.append(el("span", "empty-note", "no tiles laid yet"));
  else {
    const {arms, spinners} = dominoArms(v);
    const open = new Set(v.open_ends.map((e) => e.slot));
    const spinnerAt = {};  // "arm:index" -> spinner number (1-based)
    const armNumbers = [...Object.keys(arms).map(Number), ...open];
    const maxSpin = Math.max(0, ...armNumbers.filter((k) => k > 2).map((k) => (k - 1) >> 1));
    spinners.slice(0, maxSpin).forEach((d, i) => { spinnerAt[`${d.arm}:${d.index}`] = i + 1; });
    let north = 0, south = 0;  // room above and below the main line for its spinners' arms
    const withBranches = (tileEl, arm, index) => {
      const s = spinnerAt[`${arm}:${index}`];
      if (!s) return tileEl;
      north = Math.max(north, (arms[2 * s + 1] || []).length);
      south = Math.max(south, (arms[2 * s + 2] || []).length);
      const wrap = el("div", "spinner");
      tileEl.classList.add("spinner-tile");
      const up = el("div", "branch north"), down = el("div", "branch south");
      for (const [k, box, rev] of [[2 * s + 1, up, true], [2 * s + 2, down, false]]) {
        const ts = (arms[k] || []).map(([i, o]) => { const d = i === o; return d ? tile(i, o, false) : (rev ? tile(o, i, true) : tile(i, o, true)); });
        if (rev) box.append(endBadge(k, open), ...ts.reverse()); else box.append(...ts, endBadge(k, open));
      }
      wrap.append(up, tileEl, down);
      return wrap;
    };
    const main = el("div", "main-line");
    const a1 = arms[1] || [], a2 = arms[2] || [];
    main.append(endBadge(1, open));
    for (let i = a1.length - 1; i >= 0; i--) {
      const [inner, outer] = a1[i];
      main.append(withBranches(tile(outer, inner, inner === outer), 1, i));
    }
    const [lh, ll] = tileHalves(v.lead);
    const lead = tile(lh, ll, lh === ll, v.lead);
    lead.classList.add("lead");
    main.append(withBranches(lead, 0, -1));
    a2.forEach(([inner, outer], i) => main.append(withBranches(tile(inner, outer, inner === outer), 2, i)));
    main.append(endBadge(2, open));
    lay.append(main);
    lay.style.padding = `${1.5 + 3.8 * north}em 1em ${1.5 + 3.8 * south}em`;
    // spinners that sit off the main line: their arms as rows of their own
    for (const [key, s] of Object.entries(spinnerAt)) {
      const arm = Number(key.split(":")[0]);
      if (arm <= 2) continue;
      for (const k of [2 * s + 1, 2 * s + 2]) {
        const r = row("branch-row", [el("span", "zone-label", `arm ${k} (from spinner ${tileName(spinners[s - 1].tile)})`),
                                     ...(arms[k] || []).map(([i, o]) => tile(i, o, i === o)), endBadge(k, open)]);
        lay.append(r);
      }
    }
  }
  board.append(lay);
  const ends = el("div", "info");
  ends.append("open ends: " + v.open_ends.map((e) => `arm ${e.slot}: ${e.pip}${e.crosswise_double ? " (double)" : ""}${e.spinner ? " (spinner)" : ""}`).join(" · "));
  board.append(ends);
  if (v.review) board.append(el("div", "review", `${who(st, v.review.seat)} announced ${v.review.announced}: accept, or call muggins?`));
  if (v.last_review && v.last_review.caller >= 0)
    board.append(el("div", "note", `last call: ${who(st, v.last_review.seat)} announced ${v.last_review.announced}, true score ${v.last_review.true_score}; ${who(st, v.last_review.caller)} called muggins${v.last_review.founded ? " (founded)" : " (unfounded)"}`));
  const others = v.tile_counts.map((n, p) => p === st.seat ? null : labelled(`${who(st, p)} · ${count(n, "tile")}`, backsTiles(n))).filter(Boolean);
  board.append(row("players", others));
  board.append(labelled("your tiles", handRow(v.hand.map((t) => { const [a, b] = tileHalves(t); return tile(a, b, true, t); }))));
  if (v.last_hand) board.append(el("div", "note", "last hand: " + summaryText(v.last_hand)));
}
function backsTiles(n) {
  const r = el("div", "stack");
  for (let i = 0; i < n; i++) r.append(el("div", "tile v back"));
  return r;
}
function summaryText(obj) {
  return Object.entries(obj).filter(([k]) => k !== "hands")
    .map(([k, x]) => `${k} ${Array.isArray(x) ? x.join(" / ") : x}`).join(" · ");
}

// -------------------------------------------------------------------------------------- Michigan
function drawMichigan(st, board) {
  const v = st.view;
  const pays = Object.entries(v.layout).map(([name, chips]) => {
    const z = el("div", "pay");
    if (name === "Kitty") z.append(el("div", "kitty", "Kitty"));
    else {
      const rank = name.slice(0, -1), suit = name.slice(-1);
      z.append(card(SUITS.indexOf(suit) * 13 + RANKS.indexOf(rank)));
    }
    const chipsBox = el("div", "chips");
    for (let i = 0; i < Math.min(chips, 12); i++) chipsBox.append(el("span", "chip"));
    z.append(chipsBox, el("div", "chip-count", `${chips} chips`));
    return z;
  });
  board.append(labelled(`layout · hand ${v.hand_number}/${v.num_hands}`, row("pays", pays)));
  const bySuit = [[], [], [], []];
  for (const [c, p] of v.played) bySuit[Math.floor(c / 13)].push([c, p]);
  const runs = bySuit.map((cs, s) => cs.length ? row("run", [el("span", "suit-label " + (s === 1 || s === 2 ? "red" : "black"), SUITS[s]),
    ...cs.map(([c, p]) => { const w = el("div", "played"); w.append(card(c, "small"), el("span", "by", `P${p}`)); return w; })]) : null).filter(Boolean);
  board.append(labelled(v.stopped_suit >= 0 ? `played this hand (stopped: ${SUITS[v.stopped_suit]})` : "played this hand",
                        ...(runs.length ? runs : [el("span", "empty-note", "nothing yet")])));
  const others = v.card_counts.map((n, p) => p === st.seat ? null : labelled(`${who(st, p)} · ${count(n, "card")} · ${count(v.balances[p], "chip")}`, backs(n, String(n)))).filter(Boolean);
  others.push(labelled(`widow · ${count(v.widow_count, "card")}`, backs(v.widow_count, String(v.widow_count)), ...v.known_widow.map((c) => card(c, "small"))));
  board.append(row("players", others));
  board.append(labelled(`your hand · ${v.balances[st.seat]} chips`, handRow(v.hand.map((c) => card(c)))));
}

// -------------------------------------------------------------------------------------- Cribbage
function cribbageBoard(v, n) {
  const b = el("div", "crib-board");
  const sides = Math.max(...v.teams) + 1;
  for (let s = 0; s < sides; s++) {
    const players = [...Array(n).keys()].filter((p) => v.teams[p] === s);
    const track = el("div", "track");
    const fill = el("div", "track-fill side" + s);
    fill.style.width = `${Math.min(100, 100 * v.scores[s] / v.target)}%`;
    const peg = el("div", "peg side" + s);
    peg.style.left = `${Math.min(100, 100 * v.scores[s] / v.target)}%`;
    track.append(fill, peg);
    b.append(row("track-row", [el("span", "track-label", `${players.length > 1 ? "side " + s + " (players " + players.join(", ") + ")" : "player " + players[0]}${players.includes(v.seat) ? " · you" : ""}`),
                               track, el("span", "track-score", `${v.scores[s]} / ${v.target}`)]));
  }
  return b;
}
function shownHand(st, sh) {
  const z = labelled(`${whose(st, sh.counter)} ${sh.is_crib ? "crib" : "hand"}`, row("", sh.cards.map((c) => card(c, "small"))));
  const bits = [];
  if (sh.announced !== null && sh.announced !== undefined) bits.push(`announced ${sh.announced}`);
  if (sh.true !== undefined) bits.push(`true ${sh.true}`);
  if (sh.breakdown) bits.push(Object.entries(sh.breakdown).filter(([, x]) => x).map(([k, x]) => `${k} ${x}`).join(", "));
  if (sh.outcome) bits.push(sh.outcome);
  z.append(el("div", "note", bits.join(" · ")));
  return z;
}
// the cards of the play, one group per series: the last series.length cards are the series in
// play; before them a series ended at 31 or when nobody could go on, i.e. before a card that
// would have taken the count past 31
const pegValue = (c) => Math.min(10, (c % 13) + 1);
function playSeries(v) {
  const inPlay = v.series.length, done = v.play.slice(0, v.play.length - inPlay);
  const groups = [];
  let cur = [], total = 0;
  for (const [p, c] of done) {
    if (cur.length && (total === 31 || total + pegValue(c) > 31)) { groups.push([cur, total]); cur = []; total = 0; }
    cur.push([p, c]);
    total += pegValue(c);
  }
  if (cur.length) groups.push([cur, total]);
  groups.push([v.play.slice(v.play.length - inPlay), v.count]);
  return groups.map(([cards, t], i) => {
    const last = i === groups.length - 1;
    const label = groups.length > 1 ? `series ${i + 1} · ${last ? "count " + t : t}` : `the play · count ${t}`;
    const z = labelled(label, row("", cards.map(([p, c]) => { const w = el("div", "played"); w.append(card(c, "small"), el("span", "by", `P${p}`)); return w; })));
    z.classList.add("series");
    if (!last) z.classList.add("done");
    return z;
  });
}
function drawCribbage(st, board) {
  const v = st.view;
  const n = v.hand_sizes.length;
  board.append(cribbageBoard(v, n));
  const starter = labelled("starter", card(v.starter === null ? -1 : v.starter));
  const crib = labelled(`crib (${who(st, v.dealer)})`, backs(1, ""));
  board.append(row("", [starter, crib, ...playSeries(v)]));
  if (v.review) board.append(el("div", "review", `counting ${whose(st, v.review.counter)} ${v.review.is_crib ? "crib" : "hand"}` +
                                (v.review.announced !== null ? `: announced ${v.review.announced}` : "")),
                             row("", v.review.cards.map((c) => card(c, "small"))));
  if (v.shown.length) board.append(row("shown", v.shown.map((sh) => shownHand(st, sh))));
  if (!v.shown.length && v.previous_deal_shown.length) board.append(labelled("last deal's count", row("shown", v.previous_deal_shown.map((sh) => shownHand(st, sh)))));
  const others = v.hand_sizes.map((k, p) => p === st.seat ? null : labelled(`${who(st, p)} · ${count(k, "card")}`, backs(k, String(k)))).filter(Boolean);
  board.append(row("players", others));
  board.append(labelled(`your hand${v.crib_discards.length ? " · laid away: " + v.crib_discards.map(cardName).join(" ") : ""}`, handRow(v.hand.map((c) => card(c)))));
}

// by the drawing key a game's declaration names (/api/games gives each game's ``drawing``)
const DRAW = {muggins_cards: drawMugginsCards, dominoes: drawDominoes, michigan: drawMichigan, cribbage: drawCribbage};
