/* snl_numeric's board editor: an exact solver of the board's absorbing Markov chain in the
 * page itself, the library's twin (tests compare the two on random edits).
 *
 * Rules as snl_numeric.Board: squares 0..size, the goal `size` absorbing; a throw of face d
 * from x targets x + d; beyond the goal the overshoot rule decides (win: the goal; exact:
 * stay; bounce: 2 size - target); a jump fires on the target (chained jumps: until rest).
 *
 * Solver: state reduction (GTH-style elimination) of I - Q over the squares that finish
 * surely, pivots formed as sums (never differences); expected throws t = N 1, the variance
 * as N w with w_i = sum_k P_ik (t_k - t_i + 1)^2 (law of total variance); the length
 * distribution by pushing the mass one throw at a time; each jump's removal by a
 * rank-one (Sherman-Morrison) update of the same elimination.
 * No framework, nothing fetched: the page works from a file:// URL.
 */
(function () {
  "use strict";
  var LADDER = "#2ca02c", SNAKE = "#d62728", GOAL = "#f2c14e", BAR = "#4c78a8", LINE = "#e45756";
  var MAX_FACE = 2147483647, SUM_TOL = 1e-12, TAIL = 1e-12, PMF_SHOWN = 200, PUSH_WORK = 1e6;
  var RULES = ["win", "exact", "bounce"];
  var SVGNS = "http://www.w3.org/2000/svg";

  // -- dice: the grammar of snl_numeric.dice.parse_dice -------------------------------------
  var INT = /^\+?\d+$/;
  function parseInt10(s, what) {
    s = s.trim();
    if (!INT.test(s)) throw new Error("cannot read " + what + " " + JSON.stringify(s));
    return Number(s);
  }
  function parseProb(s) {
    s = s.trim();
    var m = /^([+-]?\d+)\s*\/\s*(\d+)$/.exec(s);
    if (m) return Number(m[1]) / Number(m[2]);
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s)) return parseFloat(s);
    throw new Error("cannot read probability " + JSON.stringify(s));
  }
  function checkDice(faces, probs) {
    if (!faces.length) throw new Error("dice must have at least one face");
    var seen = {}, total = 0;
    for (var i = 0; i < faces.length; i++) {
      var f = faces[i], p = probs[i];
      if (!(Number.isInteger(f) && f >= 1 && f <= MAX_FACE))
        throw new Error("dice faces must be integers in 1.." + MAX_FACE + ", got " + f);
      if (seen[f]) throw new Error("dice faces must be distinct (face " + f + " twice)");
      seen[f] = true;
      if (!isFinite(p)) throw new Error("probability of face " + f + " must be finite, got " + p);
      if (p < 0) throw new Error("probability of face " + f + " must be non-negative, got " + p);
      total += p;
    }
    if (!(Math.abs(total - 1) <= SUM_TOL))
      throw new Error("dice probabilities must sum to 1 (within 1e-12), got " + total);
    var order = [];
    for (i = 0; i < faces.length; i++) if (probs[i] > 0) order.push(i);
    order.sort(function (a, b) { return faces[a] - faces[b]; });
    return { faces: order.map(function (i) { return faces[i]; }),
             probs: order.map(function (i) { return probs[i]; }) };
  }
  function uniform(lo, hi) {
    if (hi > 100000) throw new Error("the editor takes dice with faces up to 100000, got " + hi);
    var faces = [], probs = [], k = hi - lo + 1;
    for (var f = lo; f <= hi; f++) { faces.push(f); probs.push(1 / k); }
    return { faces: faces, probs: probs };
  }
  function parseDice(text) {
    var s = String(text).trim().toLowerCase();
    try {
      if (s.indexOf(":") >= 0) {
        var map = {}, keys = [];
        s.split(",").forEach(function (item) {
          if (!item.trim()) return;
          var parts = item.split(":");
          if (parts.length !== 2) throw new Error("bad item");
          var f = parseInt10(parts[0], "face");
          if (!(f in map)) keys.push(f);
          map[f] = parseProb(parts[1]);   // a face given twice: the last one counts
        });
        return checkDice(keys, keys.map(function (f) { return map[f]; }));
      }
      if (s.indexOf("d") >= 0) {
        var at = s.indexOf("d"), n = at ? parseInt10(s.slice(0, at), "count") : 1;
        var sides = parseInt10(s.slice(at + 1), "sides");
        if (n < 1 || sides < 1) throw new Error("bad count");
        if (n * sides > 100000) throw new Error("the editor takes dice with faces up to 100000");
        var counts = [1];
        for (var t = 0; t < n; t++) {
          var next = new Array(counts.length + sides - 1).fill(0);
          for (var i = 0; i < counts.length; i++)
            for (var j = 0; j < sides; j++) next[i + j] += counts[i];
          counts = next;
        }
        var sum = counts.reduce(function (a, b) { return a + b; }, 0);
        if (sum > 9007199254740992) throw new Error("too many dice for the editor");
        return checkDice(counts.map(function (_, i) { return n + i; }),
                         counts.map(function (c) { return c / sum; }));
      }
      if (s.indexOf("-") >= 0) {
        var dash = s.indexOf("-");
        var lo = parseInt10(s.slice(0, dash), "face"), hi = parseInt10(s.slice(dash + 1), "face");
        if (!(1 <= lo && lo <= hi)) throw new Error("bad range");
        return uniform(lo, hi);
      }
      var k = parseInt10(s, "sides");
      if (k < 1) throw new Error("bad sides");
      return uniform(1, k);
    } catch (e) {
      if (/^(dice|probability of face|the editor)/.test(e.message)) throw e;
      throw new Error("cannot read dice " + JSON.stringify(String(text)) +
                      ": expected 'd6', '6', '1-3', '2d6' or '1:0.5,2:0.5'");
    }
  }
  function diceText(faces, probs) {
    var k = faces.length, fair = faces[0] === 1 && faces[k - 1] === k;
    for (var i = 0; fair && i < k; i++) fair = probs[i] === 1 / k;
    if (fair) return "d" + k;
    var tries = [faces[0] + "-" + faces[k - 1]];   // a fair range, or n dice summed
    for (var n = 2; n <= 12; n++) if (faces[0] === n && (faces[k - 1] - n) % n === 0) tries.push(n + "d" + (faces[k - 1] / n));
    for (i = 0; i < tries.length; i++) {
      try {
        var d = parseDice(tries[i]);
        if (d.faces.join() === faces.join() && d.probs.join() === probs.join()) return tries[i];
      } catch (e) { /* not this one */ }
    }
    return faces.map(function (f, i) { return f + ":" + probs[i]; }).join(",");
  }

  // -- the board (the library's JSON board format) -----------------------------------------
  function validate(b) {
    var size = b.size;
    if (!(Number.isInteger(size) && size >= 1)) return "size must be an integer of at least 1, got " + size;
    if (size > 2000) return "the editor solves boards up to 2000 squares, got " + size;
    if (!(Number.isInteger(b.start) && b.start >= 0 && b.start <= size))
      return "start must be a square in 0.." + size + ", got " + b.start;
    if (RULES.indexOf(b.overshoot) < 0) return "overshoot must be one of win, exact, bounce, got " + b.overshoot;
    if (b.overshoot === "bounce") {
      var top = b.faces[b.faces.length - 1];
      if (top - 1 > size)
        return "face " + top + " is too large for a bounce on a board of size " + size +
               ": it could carry the token below square 0 (faces must be <= " + (size + 1) + ")";
    }
    var i, s, d, seen = {};
    for (i = 0; i < b.jumps.length; i++) {
      s = b.jumps[i][0]; d = b.jumps[i][1];
      if (!Number.isInteger(s) || !Number.isInteger(d)) return "jump " + s + "->" + d + ": squares must be integers";
      if (s === size) return "jump " + s + "->" + d + " leaves the goal " + size + "; no jump may leave it";
      if (s < 0 || s >= size) return "jump " + s + "->" + d + " starts outside the board 0.." + size;
      if (d < 0 || d > size) return "jump " + s + "->" + d + " ends outside the board 0.." + size;
      if (s === d) return "jump " + s + "->" + d + " goes nowhere";
      if (seen[s] !== undefined) return "two jumps start on square " + s + " (" + s + "->" + seen[s] + " and " + s + "->" + d + ")";
      seen[s] = d;
    }
    if (b.chain) {
      for (i = 0; i < b.jumps.length; i++) {
        var x = b.jumps[i][0], steps = 0;
        while (seen[x] !== undefined) {
          x = seen[x];
          if (++steps > b.jumps.length) return "the jumps from square " + b.jumps[i][0] + " form a cycle (chained jumps must end)";
        }
      }
    }
    return null;
  }
  function toDict(b) {
    var out = { format: "snl_numeric.board", version: 1 };
    if (b.name !== null && b.name !== undefined) out.name = b.name;
    out.size = b.size;
    out.jumps = b.jumps.map(function (j) { return [j[0], j[1]]; });
    out.start = b.start; out.overshoot = b.overshoot; out.chain = b.chain;
    out.dice = { faces: b.faces.slice(), probs: b.probs.slice() };
    return out;
  }
  function fromDict(data) {
    if (!data || typeof data !== "object") throw new Error("a board must be a JSON object");
    var jumps = [];
    if (data.jumps) jumps = data.jumps.map(function (j) { return [j[0], j[1]]; });
    else {
      (data.ladders || []).forEach(function (j) { jumps.push([j[0], j[1]]); });
      (data.snakes || []).forEach(function (j) { jumps.push([j[0], j[1]]); });
    }
    var dice = data.dice, faces, probs, text;
    if (dice === undefined || dice === null) { dice = uniform(1, 6); }
    else if (typeof dice === "string") { text = dice; dice = parseDice(dice); }
    else if (Array.isArray(dice.faces)) dice = checkDice(dice.faces.slice(), dice.probs.slice());
    else {
      var keys = Object.keys(dice).map(Number);
      dice = checkDice(keys, Object.keys(dice).map(function (k) { return Number(dice[k]); }));
    }
    faces = dice.faces; probs = dice.probs;
    var b = { name: data.name === undefined ? null : data.name, size: data.size, jumps: jumps,
              start: data.start === undefined ? 0 : data.start,
              overshoot: data.overshoot === undefined ? "win" : data.overshoot,
              chain: !!data.chain, faces: faces, probs: probs,
              diceText: text || diceText(faces, probs) };
    var problem = validate(b);
    if (problem) throw new Error(problem);
    return b;
  }

  // -- the chain -----------------------------------------------------------------------------
  // Moves are tables of size * F entries (F faces): land[x F + f] the square a face f from x
  // targets (-1: stays, exact landing), succ[x F + f] the square where the token rests.
  function jumpTable(b) {
    var to = new Int32Array(b.size + 1).fill(-1);
    b.jumps.forEach(function (j) { to[j[0]] = j[1]; });
    return to;
  }
  function restTable(b, to, skip) {   // where a token landing on y rests (jump `skip` removed)
    var rest = new Int32Array(b.size + 1);
    for (var y = 0; y <= b.size; y++) {
      var t = y;
      if (to[t] >= 0 && t !== skip) {
        t = to[t];
        if (b.chain) while (to[t] >= 0 && t !== skip) t = to[t];
      }
      rest[y] = t;
    }
    return rest;
  }
  function landTable(b) {
    var size = b.size, F = b.faces.length, land = new Int32Array(size * F);
    for (var x = 0; x < size; x++) {
      for (var f = 0; f < F; f++) {
        var d = b.faces[f], t;
        if (d > size - x) t = b.overshoot === "win" ? size : (b.overshoot === "exact" ? -1 : size - (d - (size - x)));
        else t = x + d;
        land[x * F + f] = t;
      }
    }
    return land;
  }
  function succTable(size, F, land, rest) {
    var succ = new Int32Array(size * F);
    for (var e = 0; e < size * F; e++) succ[e] = land[e] < 0 ? (e / F) | 0 : rest[land[e]];
    return succ;
  }
  // squares that reach the goal (dist >= 0: fewest throws) and that finish surely (sure)
  function reach(size, F, succ) {
    var E = size * F, ptr = new Int32Array(size + 2), pred = new Int32Array(E), e, y, k;
    for (e = 0; e < E; e++) ptr[succ[e] + 1]++;
    for (y = 0; y <= size; y++) ptr[y + 1] += ptr[y];
    var fill = ptr.slice(0, size + 1);
    for (e = 0; e < E; e++) pred[fill[succ[e]]++] = (e / F) | 0;
    var dist = new Int32Array(size + 1).fill(-1), queue = new Int32Array(size + 1), head = 0, tail = 0;
    dist[size] = 0; queue[tail++] = size;
    while (head < tail) {
      y = queue[head++];
      for (k = ptr[y]; k < ptr[y + 1]; k++) if (dist[pred[k]] < 0) { dist[pred[k]] = dist[y] + 1; queue[tail++] = pred[k]; }
    }
    var sure = new Uint8Array(size + 1).fill(1);
    head = tail = 0;
    for (y = 0; y < size; y++) if (dist[y] < 0) { sure[y] = 0; queue[tail++] = y; }
    while (head < tail) {
      y = queue[head++];
      for (k = ptr[y]; k < ptr[y + 1]; k++) if (sure[pred[k]]) { sure[pred[k]] = 0; queue[tail++] = pred[k]; }
    }
    return { dist: dist, sure: sure };
  }

  // State reduction over the sure squares, highest square first. Entries are probabilities,
  // the pivot s_k the sum of k's remaining outflows (never 1 - p_kk): cancellation-free.
  function factor(size, F, succ, probs, sure) {
    var n = size, A = new Float64Array(n * n), r = new Float64Array(n);
    var rowCols = [], colRows = [], x, k, f;
    for (x = 0; x < n; x++) { rowCols.push([]); colRows.push([]); }
    for (x = 0; x < n; x++) {
      if (!sure[x]) continue;
      for (f = 0; f < F; f++) {
        var y = succ[x * F + f], p = probs[f];
        if (y === n) r[x] += p;
        else if (y !== x) {
          if (A[x * n + y] === 0) { rowCols[x].push(y); colRows[y].push(x); }
          A[x * n + y] += p;
        }
      }
    }
    var done = new Uint8Array(n), order = [], L = [], U = [], S = new Float64Array(n);
    for (k = n - 1; k >= 0; k--) {
      if (!sure[k]) continue;
      var cols = [], vals = [], s = r[k], base = k * n, j, c;
      var rc = rowCols[k];
      for (c = 0; c < rc.length; c++) {
        j = rc[c];
        if (!done[j] && A[base + j] > 0) { cols.push(j); vals.push(A[base + j]); s += A[base + j]; A[base + j] = -A[base + j] - 1; }
      }
      for (c = 0; c < cols.length; c++) A[base + cols[c]] = vals[c];   // (the mark above: no duplicates)
      S[k] = s; done[k] = 1; order.push(k);
      var li = [], lf = [], cr = colRows[k];
      for (c = 0; c < cr.length; c++) {
        var i = cr[c], ib = i * n, a = A[ib + k];
        if (done[i] || !(a > 0)) continue;
        var g = a / s;
        A[ib + k] = 0; li.push(i); lf.push(g);
        r[i] += g * r[k];
        for (var m = 0; m < cols.length; m++) {
          j = cols[m];
          if (j === i) continue;   // a loop back to i: leaves i's outflow
          if (A[ib + j] === 0) { rowCols[i].push(j); colRows[j].push(i); }
          A[ib + j] += g * vals[m];
        }
      }
      L.push([li, lf]); U.push([cols, vals]);
    }
    return { n: n, order: order, L: L, U: U, S: S };
  }
  function solve(F, rhs) {   // N rhs over the sure squares (rhs >= 0)
    var c = Float64Array.from(rhs), x = new Float64Array(F.n + 1), o, k, m;
    for (o = 0; o < F.order.length; o++) {
      k = F.order[o];
      var li = F.L[o][0], lf = F.L[o][1], ck = c[k];
      if (ck !== 0) for (m = 0; m < li.length; m++) c[li[m]] += lf[m] * ck;
    }
    for (o = F.order.length - 1; o >= 0; o--) {
      k = F.order[o];
      var cols = F.U[o][0], vals = F.U[o][1], acc = c[k];
      for (m = 0; m < cols.length; m++) acc += vals[m] * x[cols[m]];
      x[k] = acc / F.S[k];
    }
    return x;   // x[size] = 0: the goal
  }
  function pushMass(size, F, succ, probs, start, canFinish) {
    var pmf = [0], mass = new Float64Array(size + 1), next = new Float64Array(size + 1), live = 1;
    if (start === size) return { pmf: [1], tail: 0 };
    mass[start] = 1;
    var lo = start, hi = start;   // the squares holding mass lie in lo..hi
    var most = Math.max(PMF_SHOWN, Math.floor(PUSH_WORK / (size * F)));   // a bounded time
    for (var step = 1; step <= most && (step <= PMF_SHOWN || live >= TAIL); step++) {
      var nlo = size, nhi = 0;
      for (var x = lo; x <= hi; x++) {
        var m = mass[x];
        if (m === 0) continue;
        mass[x] = 0;
        for (var f = 0, e = x * F; f < F; f++, e++) {
          var y = succ[e];
          next[y] += m * probs[f];
          if (y < nlo) nlo = y;
          if (y > nhi && y < size) nhi = y;
        }
      }
      pmf.push(next[size]); next[size] = 0;
      var t = mass; mass = next; next = t;
      lo = nlo; hi = Math.min(nhi, size - 1);
      live = 0;
      for (x = lo; x <= hi; x++) if (canFinish[x]) live += mass[x];
    }
    return { pmf: pmf, tail: live };
  }

  function solveMean(b, F, succ, R) {
    if (b.start === b.size) return 0;
    if (!R.sure[b.start]) return Infinity;
    var fac = factor(b.size, F, succ, b.probs, R.sure), ones = new Float64Array(b.size);
    for (var x = 0; x < b.size; x++) ones[x] = R.sure[x] ? 1 : 0;
    return solve(fac, ones)[b.start];
  }

  function analyse(b) {
    var size = b.size, start = b.start, F = b.faces.length, to = jumpTable(b);
    var land = landTable(b), rest = restTable(b, to, -1), succ = succTable(size, F, land, rest);
    var R = reach(size, F, succ), x, k, f, out = { board: b };
    var canFinish = new Uint8Array(size + 1);
    for (x = 0; x < size; x++) canFinish[x] = R.dist[x] >= 0 ? 1 : 0;
    var pushed = pushMass(size, F, succ, b.probs, start, canFinish);
    out.pmf = pushed.pmf; out.tail = pushed.tail;
    out.fewest = start === size ? 0 : R.dist[start];
    var cdf = 0, w = 0, median = null;
    for (k = 0; k < out.pmf.length; k++) {
      w += out.pmf[k] * (1 - cdf);   // the first player wins when T1 <= T2
      cdf += out.pmf[k];
      if (median === null && cdf >= 0.5) median = k;
    }
    out.finish = cdf; out.median = median; out.firstWins = w; out.edge = w - 0.5;
    out.impact = [];
    if (start === size) { out.mean = 0; out.variance = 0; out.std = 0; return out; }
    if (!R.sure[start]) {
      out.mean = Infinity; out.variance = Infinity; out.std = Infinity;
      b.jumps.forEach(function (j) { out.impact.push({ s: j[0], d: j[1], change: NaN }); });
      return out;
    }
    var fac = factor(size, F, succ, b.probs, R.sure), ones = new Float64Array(size);
    for (x = 0; x < size; x++) ones[x] = R.sure[x] ? 1 : 0;
    var t = solve(fac, ones), wv = new Float64Array(size);
    for (x = 0; x < size; x++) {
      if (!R.sure[x]) continue;
      var acc = 0;
      for (f = 0; f < F; f++) {
        var dlt = t[succ[x * F + f]] - t[x] + 1;
        acc += b.probs[f] * dlt * dlt;
      }
      wv[x] = acc;
    }
    var v = solve(fac, wv);
    out.mean = t[start]; out.variance = v[start]; out.std = Math.sqrt(v[start]);
    var ctx = { b: b, F: F, to: to, land: land, succ: succ, R: R, fac: fac, t: t };
    out.impact = b.jumps.map(function (j) { return { s: j[0], d: j[1], change: removal(ctx, j) }; });
    return out;
  }

  // The change of expected throws when jump s -> d alone is removed: the throws that pass
  // through s now rest there instead of at `end`, Q' = Q + a (e_s - e_end)^T, so
  // t' = t + N a (t_s - t_end) / (1 - (N a)_s + (N a)_end) (Sherman-Morrison).
  function removal(c, j) {
    var b = c.b, size = b.size, F = c.F, s = j[0], x, f, e;
    var rest = restTable(b, c.to, s), succ = succTable(size, F, c.land, rest);
    var a = new Float64Array(size), end = -1;
    for (x = 0, e = 0; x < size; x++) {
      for (f = 0; f < F; f++, e++) if (succ[e] !== c.succ[e]) { a[x] += b.probs[f]; end = c.succ[e]; }
    }
    if (end < 0) return 0;   // no throw ever lands there
    var R = reach(size, F, succ);
    if (!R.sure[b.start]) return Infinity;
    var seen = new Uint8Array(size + 1), queue = [b.start], simple = true;
    seen[b.start] = 1;
    for (var q = 0; q < queue.length && simple; q++) {
      x = queue[q];
      if (x === size) continue;
      if (!c.R.sure[x]) simple = false;
      for (f = 0, e = x * F; f < F; f++, e++) if (!seen[succ[e]]) { seen[succ[e]] = 1; queue.push(succ[e]); }
    }
    if (simple) {
      for (x = 0; x < size; x++) if (!c.R.sure[x]) a[x] = 0;
      var y = solve(c.fac, a), te = end === size ? 0 : c.t[end], ye = end === size ? 0 : y[end];
      var den = 1 - y[s] + ye;
      if (den > 1e-9) return y[b.start] * (c.t[s] - te) / den;
    }
    var newB = { size: size, start: b.start, probs: b.probs };
    return solveMean(newB, F, succ, R) - c.t[b.start];
  }

  // -- formatting ------------------------------------------------------------------------------
  function fmt(x, digits) {
    if (x === Infinity) return "∞";
    if (x === -Infinity) return "−∞";
    if (x !== x) return "—";
    return String(Number(x.toPrecision(digits || 6)));
  }
  function signed(x) {
    if (x === Infinity) return "+∞";
    if (x !== x) return "—";
    var s = fmt(x, 4);
    return x > 0 ? "+" + s : s.replace("-", "−");
  }
  // -- drawings (markup built as text, set once: far faster than one DOM call per shape) ----------
  function attrs(o) {
    var out = "";
    for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) out += " " + k + '="' + o[k] + '"';
    return out;
  }
  function tag(name, o, text) { return "<" + name + attrs(o) + (text === undefined ? "/>" : ">" + esc(text) + "</" + name + ">"); }
  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
  function r2(x) { return Math.round(x * 100) / 100; }

  function drawBoard(b) {
    var size = b.size, cols = Math.max(1, Math.ceil(Math.sqrt(size))), nrows = Math.ceil(size / cols);
    var cell = 40, W = cols * cell + 2, H = nrows * cell + 2, parts = [];
    function centre(q) {
      if (q === 0) return [1 - cell / 2, H - 1 - cell / 2];   // square 0: off the board, left of 1
      var row = Math.floor((q - 1) / cols), col = (q - 1) % cols;
      if (row % 2) col = cols - 1 - col;
      return [1 + col * cell + cell / 2, H - 1 - row * cell - cell / 2];
    }
    var from = {};
    b.jumps.forEach(function (j) { from[j[0]] = j[1]; });
    for (var q = 1; q <= size; q++) {
      var c = centre(q), fill = q === size ? GOAL : (from[q] === undefined ? "#fff" : (from[q] > q ? "#e3f2e1" : "#f8e0e0"));
      var o = { x: c[0] - cell / 2, y: c[1] - cell / 2, width: cell, height: cell, fill: fill, stroke: "#c8ced4" };
      if (q === b.start) { o.stroke = "#1f2328"; o["stroke-width"] = 3; }
      parts.push(tag("rect", o));
      if (size <= 400) parts.push(tag("text", { x: c[0] - cell / 2 + 3, y: c[1] - cell / 2 + 12, "font-size": 10, fill: "#59636e" }, q));
    }
    b.jumps.forEach(function (j) {
      var s = j[0], d = j[1], p = centre(s), e = centre(d), up = d > s, colour = up ? LADDER : SNAKE;
      parts.push("<g><title>" + (up ? "ladder " : "snake ") + s + "→" + d + "</title>");
      if (up) parts.push(tag("line", { x1: p[0], y1: p[1], x2: e[0], y2: e[1], stroke: colour, "stroke-width": 4, "stroke-linecap": "round", opacity: 0.85 }));
      else {
        var mx = r2((p[0] + e[0]) / 2 + (e[1] - p[1]) * 0.25), my = r2((p[1] + e[1]) / 2 - (e[0] - p[0]) * 0.25);
        parts.push(tag("path", { d: "M" + p[0] + " " + p[1] + " Q" + mx + " " + my + " " + e[0] + " " + e[1], fill: "none", stroke: colour, "stroke-width": 4, "stroke-dasharray": "8 4", opacity: 0.85 }));
      }
      parts.push(tag("circle", { cx: e[0], cy: e[1], r: 5, fill: colour }) + "</g>");
    });
    return '<svg xmlns="' + SVGNS + '" viewBox="' + (-cell) + " 0 " + (W + cell) + " " + H + '" role="img" aria-label="The board being edited: ' +
      size + " squares, " + b.jumps.length + ' jumps">' + parts.join("") + "</svg>";
  }
  var MAX_BARS = 250;
  function drawDistribution(res) {
    var pmf = res.pmf, last = pmf.length - 1, cdf = 0, k;
    for (k = 0; k < pmf.length; k++) { cdf += pmf[k]; if (cdf >= 0.999 * res.finish) { last = k; break; } }
    last = Math.max(last, 10);
    var bin = Math.ceil((last + 1) / MAX_BARS), nb = Math.ceil((last + 1) / bin);   // long games: bars of `bin` throws
    var bars = new Float64Array(nb), cdfs = new Float64Array(nb), hi = 0;
    cdf = 0;
    for (k = 0; k < nb * bin; k++) {
      var p = k < pmf.length ? pmf[k] : 0;
      cdf += p; bars[(k / bin) | 0] += p / bin; cdfs[(k / bin) | 0] = cdf;
    }
    for (k = 0; k < nb; k++) hi = Math.max(hi, bars[k]);
    hi = hi || 1;
    var W = 640, H = 260, left = 54, right = 46, top = 14, bottom = 40, pw = W - left - right, ph = H - top - bottom;
    var parts = [], dx = pw / (last + 1);
    function X(kk) { return r2(left + (kk + 0.5) * dx); }
    for (var g = 0; g <= 4; g++) {
      var yy = r2(top + ph - ph * g / 4);
      parts.push(tag("line", { x1: left, x2: left + pw, y1: yy, y2: yy, stroke: "#ddd" }));
      parts.push(tag("text", { x: left - 4, y: yy + 4, "text-anchor": "end", fill: "#333" }, fmt(hi * g / 4, 2)));
      parts.push(tag("text", { x: left + pw + 4, y: yy + 4, fill: LINE }, g / 4));
    }
    var points = [];
    for (k = 0; k < nb; k++) {
      var bh = ph * bars[k] / hi, x0 = left + k * bin * dx;
      if (bh > 0) parts.push(tag("rect", { x: r2(x0 + dx * bin * 0.05), y: r2(top + ph - bh), width: r2(dx * bin * 0.9), height: r2(bh), fill: BAR }));
      points.push(r2(x0 + dx * bin) + "," + r2(top + ph - ph * cdfs[k]));
    }
    parts.push(tag("polyline", { points: points.join(" "), fill: "none", stroke: LINE, "stroke-width": 1.8 }));
    var step = Math.max(1, Math.ceil(last / 10));
    for (k = 0; k <= last; k += step) parts.push(tag("text", { x: X(k), y: top + ph + 14, "text-anchor": "middle", fill: "#333" }, k));
    parts.push(tag("text", { x: left + pw / 2, y: H - 6, "text-anchor": "middle", fill: "#333" },
                   "number of throws k" + (bin > 1 ? " (bars of " + bin + " throws: their mean probability)" : "")));
    if (isFinite(res.mean) && res.mean <= last + 1) {
      parts.push(tag("line", { x1: X(res.mean), x2: X(res.mean), y1: top, y2: top + ph, stroke: "#333", "stroke-dasharray": "4 3" }));
      parts.push(tag("text", { x: X(res.mean) + 3, y: top + 10, fill: "#333" }, "mean " + fmt(res.mean, 4)));
    }
    return '<svg xmlns="' + SVGNS + '" viewBox="0 0 ' + W + " " + H + '" role="img" font-size="11" ' +
      'aria-label="Distribution of the number of throws (bars: P(T = k); line: P(T ≤ k))">' + parts.join("") + "</svg>";
  }

  // -- the page ---------------------------------------------------------------------------------
  var root, original, board, result = null, lastMs = 0, solveMs = 0, status;
  function $(id) { return document.getElementById(id); }
  function same(a, b) {
    var x = toDict(a), y = toDict(b);
    delete x.name; delete y.name;
    return JSON.stringify(x) === JSON.stringify(y);
  }
  function say(message) { status.textContent = message || ""; status.hidden = !message; }

  function commit(candidate) {   // validate, solve, redraw; a bad edit is refused
    var problem = validate(candidate);
    if (problem) { say(problem); renderControls(); return false; }
    say("");
    var t0 = performance.now();
    board = candidate;
    result = analyse(board);
    solveMs = performance.now() - t0;
    render();
    lastMs = performance.now() - t0;
    $("snl-timing").textContent = "solved in " + solveMs.toFixed(1) + " ms, drawn in " +
      (lastMs - solveMs).toFixed(1) + " ms";
    return true;
  }
  function copy(b) {
    return { name: null, size: b.size, start: b.start, overshoot: b.overshoot, chain: b.chain,
             faces: b.faces, probs: b.probs, diceText: b.diceText,
             jumps: b.jumps.map(function (j) { return [j[0], j[1]]; }) };
  }
  function intOf(input) {
    var v = input.value.trim();
    return /^-?\d+$/.test(v) ? Number(v) : v;
  }

  function renderControls() {
    $("snl-size").value = board.size;
    $("snl-start").value = board.start;
    $("snl-overshoot").value = board.overshoot;
    $("snl-chain").checked = board.chain;
    $("snl-dice").value = board.diceText;
    var body = $("snl-jumps-body");
    if (body.rows.length === board.jumps.length) {   // the same rows: values in place, focus kept
      board.jumps.forEach(function (j, i) {
        var cells = body.rows[i].cells, kind = j[1] > j[0] ? "ladder" : "snake", name = kind + " " + j[0] + "→" + j[1];
        var from = cells[0].firstChild, to = cells[1].firstChild;
        if (from.value !== String(j[0])) from.value = j[0];
        if (to.value !== String(j[1])) to.value = j[1];
        from.setAttribute("aria-label", name + ": from square");
        to.setAttribute("aria-label", name + ": to square");
        cells[2].innerHTML = '<span class="snl-key ' + kind + '" aria-hidden="true"></span>' + kind;
        cells[3].firstChild.setAttribute("aria-label", "delete " + name);
      });
      return;
    }
    var rows = board.jumps.map(function (j, i) {
      var kind = j[1] > j[0] ? "ladder" : "snake", name = kind + " " + j[0] + "→" + j[1];
      return "<tr><td>" + tag("input", { type: "number", "data-jump": i, "data-end": "from", value: j[0], "aria-label": name + ": from square" }) +
        "</td><td>" + tag("input", { type: "number", "data-jump": i, "data-end": "to", value: j[1], "aria-label": name + ": to square" }) +
        '</td><td><span class="snl-key ' + kind + '" aria-hidden="true"></span>' + kind + "</td><td>" +
        tag("button", { type: "button", "data-delete": i, "aria-label": "delete " + name }, "Delete") + "</td></tr>";
    });
    body.innerHTML = rows.join("");
  }
  function render() {
    renderControls();
    var r = result, rows = [];
    rows.push(["expected throws", fmt(r.mean, 10)]);
    rows.push(["standard deviation", fmt(r.std, 10) + (isFinite(r.variance) ? " (variance " + fmt(r.variance, 10) + ")" : "")]);
    if (r.finish < 1 - 1e-9) rows.push(["finish probability", fmt(r.finish, 10)]);
    rows.push(["fewest throws", r.fewest >= 0 ? String(r.fewest) : "unreachable"]);
    rows.push(["median", r.median === null ? "—" : String(r.median)]);
    var approx = r.tail >= TAIL ? " (≈: games longer than " + (r.pmf.length - 1) + " throws, " + fmt(r.tail, 2) + " of them, left out)" : "";
    rows.push(["two players: the first wins", fmt(r.firstWins, 8) + " (edge " + signed(r.edge) + " over 1/2)" + approx]);
    $("snl-numbers").innerHTML = rows.map(function (row) {
      return '<tr><th scope="row">' + esc(row[0]) + "</th>" + tag("td", { "data-key": row[0] }, row[1]) + "</tr>";
    }).join("");
    $("snl-board-figure").innerHTML = board.size <= 2500 ? drawBoard(board) : "";
    $("snl-dist-figure").innerHTML = drawDistribution(r);
    var imp = $("snl-impact-body"), order = r.impact.map(function (_, i) { return i; });
    order.sort(function (a, b2) {
      var x = Math.abs(r.impact[a].change), y = Math.abs(r.impact[b2].change);
      return (y === y ? y : -1) - (x === x ? x : -1) || a - b2;
    });
    var top = 0, html = [];
    r.impact.forEach(function (q) { if (isFinite(q.change)) top = Math.max(top, Math.abs(q.change)); });
    order.forEach(function (i) {
      var q = r.impact[i], up = q.d > q.s, kind = up ? "ladder" : "snake";
      var width = isFinite(q.change) && top > 0 ? 100 * Math.abs(q.change) / top : (q.change === Infinity ? 100 : 0);
      html.push("<tr><td>" + q.s + "→" + q.d + "</td><td>" + kind + "</td><td>" + signed(q.change) +
                '</td><td class="snl-bar-cell" aria-hidden="true"><span class="snl-bar ' + kind + '" style="width:' + width.toFixed(1) + '%"></span></td></tr>');
    });
    imp.innerHTML = html.join("");
    $("snl-no-jumps").hidden = board.jumps.length > 0;
    var json = JSON.stringify(toDict(board), null, 1);
    $("snl-download").setAttribute("href", "data:application/json;charset=utf-8," + encodeURIComponent(json + "\n"));
    var frag = "#board=" + encodeURIComponent(JSON.stringify(toDict(board)));
    $("snl-share").setAttribute("href", frag);
    if (!pendingFragment) setTimeout(showFragment, 0);   // the address bar: once per burst of edits
    pendingFragment = frag;
    var edited = !same(board, original);
    Array.prototype.forEach.call(document.querySelectorAll("[data-static]"), function (s) { s.hidden = edited; });
    $("snl-static-note").hidden = !edited;
  }

  var pendingFragment = null;
  function showFragment() {
    if (history.replaceState && pendingFragment !== location.hash) {
      try { history.replaceState(null, "", pendingFragment); } catch (e) { /* a file:// setting may refuse it */ }
    }
    pendingFragment = null;
  }

  // the controls: every edit goes through commit()
  function onChange(ev) {
    var t = ev.target, b = copy(board);
    if (t.id === "snl-size") b.size = intOf(t);
    else if (t.id === "snl-start") b.start = intOf(t);
    else if (t.id === "snl-overshoot") b.overshoot = t.value;
    else if (t.id === "snl-chain") b.chain = t.checked;
    else if (t.id === "snl-dice") {
      try { var d = parseDice(t.value); b.faces = d.faces; b.probs = d.probs; b.diceText = t.value.trim(); }
      catch (e) { say(e.message); renderControls(); return; }
    } else if (t.hasAttribute("data-jump")) {
      var i = Number(t.getAttribute("data-jump"));
      b.jumps[i][t.getAttribute("data-end") === "from" ? 0 : 1] = intOf(t);
    } else return;
    commit(b);
  }
  function onClick(ev) {
    var t = ev.target;
    if (t.hasAttribute && t.hasAttribute("data-delete")) {
      var b = copy(board);
      b.jumps.splice(Number(t.getAttribute("data-delete")), 1);
      commit(b);
      var next = document.querySelector("[data-delete]") || $("snl-add-from");
      next.focus();
    } else if (t.id === "snl-add") {
      var c = copy(board);
      c.jumps.push([intOf($("snl-add-from")), intOf($("snl-add-to"))]);
      if (commit(c)) { $("snl-add-from").value = ""; $("snl-add-to").value = ""; }
    } else if (t.id === "snl-reset") {
      commit(copy(original));
    }
  }
  function fromFragment() {
    var h = location.hash;
    if (h.indexOf("#board=") !== 0) return null;
    try { return fromDict(JSON.parse(decodeURIComponent(h.slice(7)))); }
    catch (e) { say("the link's board could not be read (" + e.message + "); showing the report's board"); return null; }
  }

  function init() {
    root = $("snl-editor");
    if (!root) return;
    status = $("snl-status");
    var data = JSON.parse($("snl-board-data").textContent);
    original = fromDict(data.board);
    if (data.dice_text) original.diceText = data.dice_text;
    root.hidden = false;
    Array.prototype.forEach.call(document.querySelectorAll("[data-live]"), function (s) { s.hidden = true; });
    root.addEventListener("change", onChange);
    root.addEventListener("click", onClick);
    $("snl-add-to").addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); $("snl-add").click(); } });
    var shared = fromFragment();
    board = copy(original);
    board.name = original.name;
    if (!(shared && commit(shared))) commit(board);
  }

  // a hook for tests and for scripting the page: reads results, edits through the controls
  if (typeof window !== "undefined") window.snlEditor = {
    board: function () { return toDict(board); },
    result: function () {
      return JSON.stringify({ mean: String(result.mean), std: String(result.std), variance: String(result.variance),
        pmf: result.pmf.slice(0, PMF_SHOWN), firstWins: result.firstWins, edge: result.edge, tail: result.tail, fewest: result.fewest,
        impact: result.impact.map(function (q) { return [q.s, q.d, String(q.change)]; }), ms: lastMs, solveMs: solveMs,
        error: status.hidden ? null : status.textContent });
    },
    load: function (data) { say(""); return commit(fromDict(data)); },
    parseDice: parseDice
  };
  if (typeof document === "undefined") {   // (node: the solver alone, for profiling)
    if (typeof module !== "undefined") module.exports = { analyse: analyse, fromDict: fromDict, parseDice: parseDice };
    return;
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
