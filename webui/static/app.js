/* Table Companion phone page: live view by Server-Sent Events, taps become API writes.
   No framework and no build step: the server renders the HTML, this script swaps it in. */
(function () {
  "use strict";
  var body = document.body, d = body.dataset;
  /* every script of the page has bound its listeners at DOMContentLoaded (this one, which comes last
     and runs to its end first, and deferred ones such as the history pages'): the type="button"
     buttons, which only a script makes do anything, take taps from then on (app.css); before, a tap
     would be lost unseen */
  function ready() { d.ready = "1"; }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
  var tableId = d.table, token = d.token;
  /* the host screen asks for the host's view: the same browser may hold a seat's phone cookie too */
  var asHost = d.role === "host" ? "&as=host" : "";
  var shown = parseInt(d.version || "-1", 10);
  var busy = false, fetching = null, again = false;
  var posting = 0, postedAt = -1;   /* the tap in flight and the version it was made on */

  function setCookie(name, value) {
    document.cookie = name + "=" + encodeURIComponent(value) + "; path=/; max-age=31536000; SameSite=Lax";
  }

  function esc(text) {   /* server words put into HTML built here */
    return String(text).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; });
  }

  /* theme and language toggles (every page) */
  var theme = document.getElementById("theme-toggle");
  if (theme) theme.addEventListener("click", function () {
    var root = document.documentElement;
    var dark = root.dataset.theme ? root.dataset.theme === "dark"
      : window.matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "light" : "dark";
    setCookie("theme", root.dataset.theme);
  });
  var langBtn = document.getElementById("lang-toggle");
  if (langBtn) langBtn.addEventListener("click", function () {
    setCookie("lang", langBtn.dataset.lang);
    /* the reload asks for the language in its URL too: Chromium stores a script's cookie in its
       network process on its own channel, so the reload could leave before it and come back in the
       old language (seen once under load); later pages read the cookie */
    var url = new URL(window.location.href);
    url.searchParams.set("lang", langBtn.dataset.lang);
    window.location.replace(url.toString());
  });

  /* the host's new-table form: show only the chosen game's options */
  var gameSel = document.getElementById("game");
  if (gameSel) {
    var sync = function () {
      var opt = gameSel.options[gameSel.selectedIndex];
      document.querySelectorAll("fieldset.options").forEach(function (fs) {
        var on = fs.dataset.game === gameSel.value;
        fs.hidden = !on;
        fs.disabled = !on;
      });
      var players = document.getElementById("players");
      players.min = opt.dataset.min; players.max = opt.dataset.max;
      var n = parseInt(players.value || "0", 10);
      if (n < +opt.dataset.min) players.value = opt.dataset.min;
      if (n > +opt.dataset.max) players.value = opt.dataset.max;
      seatsFor(parseInt(players.value || "0", 10));
    };
    /* the companion's seats: only the table's (a 2-player game offered seats 3 to 5) */
    var seatsFor = function (n) {
      document.querySelectorAll("#companion-new select").forEach(function (sel, i) {
        var off = n > 0 && i >= n;
        sel.parentNode.hidden = off;
        sel.disabled = off;   /* a seat the table lacks is not sent */
      });
    };
    gameSel.addEventListener("change", sync);
    document.getElementById("players").addEventListener("input", function () {
      seatsFor(parseInt(this.value || "0", 10));
    });
    sync();
  }

  if (!tableId) return;

  function toast(text, bad) {
    var el = document.getElementById("toast");
    if (!el) return;
    el.textContent = text;
    el.className = "toast" + (bad ? " bad" : "");
    el.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { el.hidden = true; }, bad ? 6000 : 2500);
  }

  function seat() { return d.seat || ""; }

  /* draw the view of version v (from a fetch, or sent with the event: the page's stream) */
  function draw(v, html, forced) {
    if (!(v > shown || v < 0 || (forced && v >= shown))) return;   /* never redraw a version shown: taps stay put */
    /* the page's stream drew the version after this phone's tap before the tap's answer came: the
       next tap may go at once (it was silently dropped as "busy" while the answer was on its way) */
    if (busy && v > postedAt) { busy = false; body.classList.remove("busy"); }
    var view = document.getElementById("view");
    /* a fold-out the reader opened (the host's override) stays open, its reason typed */
    /* (the host's seat list is the server's to open: folded once every seat is taken) */
    var open = Array.prototype.map.call(view.querySelectorAll("details[open][class]:not(#seat-admin)"),
      function (el) { return el.className; });
    var reason = document.getElementById("override-reason");
    var typed = reason ? reason.value : "";
    /* a card picked for a turn stays picked if the new view offers it still (the host's
       override picker starts afresh: its choice was just used or is to be made again) */
    var picked = Array.prototype.map.call(view.querySelectorAll("#moves .picker .step2:not([hidden])"), function (p) {
      var box = p.closest(".picker"), from = box.querySelector(".pick[data-step='" + p.dataset.for + "']");
      return {picker: box.dataset.picker, key: from ? from.dataset.key : ""};
    });
    view.innerHTML = html;   /* the override picker reloads when its fold-out reopens, on ovTab */
    picked.forEach(function (k) {
      var again = view.querySelector(".picker[data-picker='" + k.picker + "'] .pick[data-key='" + k.key + "']");
      if (again && k.key) again.click();
    });
    view.querySelectorAll("details[class]").forEach(function (el) {
      if (open.indexOf(el.className) >= 0) el.open = true;
    });
    reason = document.getElementById("override-reason");
    if (reason) reason.value = typed;
    var seats = document.getElementById("seat-admin");
    if (seats && seatsByHand) seats.open = true;   /* the host opened it: it stays open */
    shown = v;
    body.dataset.version = String(v);
    body.dispatchEvent(new CustomEvent("tc:updated", {detail: v}));
    afterDraw();
  }

  var forceNext = false;
  function refresh(force) {
    /* same version, but a new seat, role or request: draw it anyway. `shown` keeps the version on
       screen meanwhile, so a tap during the fetch still sends the version it was based on */
    if (force) forceNext = true;
    if (fetching) { again = true; return fetching; }
    var forced = forceNext;
    forceNext = false;
    var url = "/t/" + tableId + "/view?seat=" + encodeURIComponent(seat()) + "&lang=" + d.lang + asHost;
    fetching = fetch(url, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      if (!r.ok) throw new Error("view " + r.status);
      var v = parseInt(r.headers.get("X-Version") || "-1", 10);
      var p = r.headers.get("X-Pokes");
      if (p !== null) d.pokes = p;
      return r.text().then(function (html) {
        draw(v, html, forced);
      });
    }).catch(function () { toast(body.dataset.offline || "…", true); })
      .finally(function () {
        fetching = null;
        if (again) { again = false; refresh(); }
      });
    return fetching;
  }

  function post(path, payload) {
    if (busy) return Promise.resolve();
    busy = true;
    var mine = ++posting;
    postedAt = shown;
    body.classList.add("busy");
    payload.version = shown;
    /* ?lang=: a refusal comes back in the language the page shows */
    return fetch("/api/tables/" + tableId + "/" + path + "?lang=" + encodeURIComponent(d.lang || "en"), {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-Table-Token": token},
      body: JSON.stringify(payload)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        /* a stale tap: the page's own words (it refreshes now); any other conflict says its own */
        if (r.status === 409) toast(j.stale || !j.error ? body.dataset.stale : j.error, true);
        else if (!r.ok) toast(j.error || ("error " + r.status), true);
        /* the caller learns whether it was done: a refusal is never followed by a "✓"; the page's
           stream may have drawn the new version already, and then there is nothing to fetch */
        var drawn = r.ok && typeof j.version === "number" && shown >= j.version;
        return (drawn ? Promise.resolve() : refresh()).then(function () {
          return {ok: r.ok, status: r.status, answer: j};
        });
      });
    /* the tap never reached the server: say so (it is not sent later), not just "Reconnecting…" */
    }).catch(function () { toast(body.dataset.unsent || body.dataset.offline, true); return {ok: false}; })
      .finally(function () {
        if (posting === mine) { busy = false; body.classList.remove("busy"); }   /* not a later tap's */
      });
  }

  /* Wheel of History without a camera: the table taps the circle as laid, clockwise from the pawn */
  var circle = [];
  function drawCircle() {
    var order = document.getElementById("circle-order");
    if (!order) return;
    order.innerHTML = "";
    circle.forEach(function (id) {
      var src = document.querySelector(".circle-card[data-card='" + id + "'] .chip");
      if (src) order.appendChild(src.cloneNode(true));
    });
    document.querySelectorAll(".circle-card").forEach(function (btn) {
      btn.disabled = circle.indexOf(btn.dataset.card) >= 0;
    });
    document.getElementById("circle-count").textContent = String(circle.length);
    document.getElementById("circle-done").disabled = circle.length !== 25;
  }
  var chosen = null;   /* the host's move picked for an override or a correction */
  var ovTab = null;    /* the seat tab the host last chose in that picker */

  function showTab(panel) {
    document.querySelectorAll(".ov-seat").forEach(function (t) {
      var on = t.dataset.panel === panel;
      t.classList.toggle("on", on);
      t.setAttribute("aria-selected", on ? "true" : "false");
    });
    document.querySelectorAll(".ov-panel").forEach(function (p) { p.hidden = p.dataset.panel !== panel; });
  }

  /* the host's override / correction picker is fetched when its fold-out opens (hundreds of buttons) */
  function loadOverride(details) {
    var box = details.querySelector(".ov-body");
    if (!box || box.dataset.loaded === box.dataset.version || box.dataset.loading) return;
    box.dataset.loading = "1";
    fetch(box.dataset.src, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      if (!r.ok) throw new Error("override " + r.status);
      return r.text();
    }).then(function (html) {
      if (!box.isConnected) return;   /* the view was redrawn meanwhile: its own box loads */
      box.innerHTML = html;
      box.dataset.loaded = box.dataset.version;
      if (ovTab !== null && box.querySelector(".ov-seat[data-panel='" + ovTab + "']")) showTab(ovTab);
    }).catch(function () { toast(body.dataset.offline || "…", true); })
      .finally(function () { delete box.dataset.loading; });
  }
  document.addEventListener("toggle", function (ev) {
    var el = ev.target;
    if (el.matches && el.matches("details.override") && el.open) loadOverride(el);
  }, true);   /* toggle does not bubble */
  body.addEventListener("tc:updated", function () { circle = []; chosen = null; });

  /* a two-step picker at its second step for the card ``step`` (null: back at its first, the cards) */
  function showStep(box, step) {
    box.querySelector(".step1").hidden = step !== null;
    box.querySelectorAll(".step2").forEach(function (p) { p.hidden = p.dataset.for !== step; });
  }

  var seatsByHand = false;   /* the host opened the folded seat list (it folds itself once full) */
  document.addEventListener("click", function (ev) {
    var fold = ev.target.closest("#seat-admin > summary");
    if (fold) seatsByHand = !fold.parentNode.open;
    var b = ev.target.closest("button");
    if (!b || b.disabled) return;
    if (b.classList.contains("circle-card")) {
      circle.push(b.dataset.card); drawCircle(); return;
    } else if (b.id === "circle-back") {
      circle.pop(); drawCircle(); return;
    } else if (b.id === "circle-done") {
      /* the pawn stands just before the first card tapped: in the last slot of the circle */
      post("move", {move: {player: -1, kind: "lay_circle", circle: circle.slice(), pawn: 24}});
      return;
    }
    if (b.classList.contains("pick") || b.classList.contains("pick-back")) {
      /* the two-step picker: a card opens its places in the cards' stead; "← Another card" goes back */
      showStep(b.closest(".picker"), b.classList.contains("pick") ? b.dataset.step : null);
      return;
    }
    if (b.classList.contains("ov-seat")) {   /* the host's picker: whose move */
      ovTab = b.dataset.panel;
      showTab(ovTab);
      return;
    }
    if (b.classList.contains("ov-move")) {   /* chosen for an override or a correction, not played */
      chosen = JSON.parse(b.dataset.move);
      document.querySelectorAll(".ov-move.on").forEach(function (o) { o.classList.remove("on"); });
      b.classList.add("on");
      var said = document.getElementById("override-chosen");
      said.textContent = "✓ " + (b.dataset.words || b.textContent.trim());
      said.classList.add("set");
      document.getElementById("override").disabled = false;
      document.getElementById("correct").disabled = false;
      return;
    }
    if (b.classList.contains("mv")) {
      /* the card picked is used: its picker starts afresh, so the next view (a card drawn again, in
         the same picker) does not open at "♣: which card?" as if ♣ were picked for it */
      var used = b.closest(".picker");
      if (used) showStep(used, null);
      post("move", {move: JSON.parse(b.dataset.move)});
    } else if (b.classList.contains("companion-confirm")) {   /* the companion's card is laid */
      post("companion", {});
    } else if (b.classList.contains("answer")) {
      post("answer", {prompt: b.dataset.prompt, choice: b.dataset.choice});
    } else if (b.id === "deal") {
      post("deal", {});
    } else if (b.id === "undo") {
      post("undo", {});
    } else if (b.classList.contains("undo-accept")) {   /* back to and including the asker's move */
      post("undo", {phone: b.dataset.phone});
    } else if (b.classList.contains("undo-decline")) {
      post("undo-decline", {phone: b.dataset.phone});
    } else if (b.classList.contains("claim")) {   /* this phone takes a free seat */
      post("seat", {seat: +b.dataset.seat}).then(function () { refresh(true); });   /* same version, new view */
    } else if (b.classList.contains("phone-role")) {   /* the host frees, moves or grants */
      var change = {phone: b.dataset.phone, role: b.dataset.role};
      if (b.dataset.seat) change.seat = +b.dataset.seat;
      post("phones", change).then(function () { refresh(true); });
    } else if (b.id === "undo-request") {
      post("undo-request", {}).then(function (done) {
        if (done && done.ok) toast(body.dataset.undoAsked || "✓");   /* a refusal shows its own words */
      });
    } else if (b.id === "next-game") {
      post("next", {});
    } else if (b.id === "end-game") {   /* reached only through the confirm disclosure */
      post("end", {});
    } else if (b.id === "override" || b.id === "correct") {
      if (!chosen) return;   /* the buttons stay disabled until a move is picked */
      post(b.id, b.id === "override"
        ? {move: chosen, reason: document.getElementById("override-reason").value} : {move: chosen});
    } else if (b.id === "odds") {
      b.disabled = true;
      fetch("/api/tables/" + tableId + "/odds?lang=" + encodeURIComponent(d.lang || "en"), {credentials: "same-origin"}).then(function (r) {
        return r.json();
      }).then(function (j) {
        var box = document.getElementById("odds-table");
        if (!box) return;
        if (j.error) { box.textContent = j.error; return; }
        var rows = Object.keys(j.odds).map(function (c) {
          var o = j.odds[c], pct = function (x) { return Math.round(x * 100) + "%"; };
          return "<tr" + (c === j.best ? ' class="best"' : "") + "><td>" + esc(j.labels[c] || c) + "</td><td>" +
            pct(j.win[c]) + "</td><td>" + pct(o.draw) + "</td><td>" + pct(o.defeat) + "</td></tr>";
        });
        box.innerHTML = "<table><thead><tr><th></th>" + j.columns.map(function (h) { return "<th>" + esc(h) + "</th>"; }).join("") +
          "</tr></thead>" +
          "<tbody>" + rows.join("") + "</tbody></table><p class='small muted'>" +
          esc(b.dataset.note.replace("{n}", j.samples)
            .replace("{policy}", b.dataset[j.policy === "random" ? "policyRandom" : "policyGreedy"])) + "</p>";
      }).finally(function () { b.disabled = false; });
    }
  });

  var seatSel = document.getElementById("seat-select");
  if (seatSel) seatSel.addEventListener("change", function () {
    d.seat = seatSel.value;
    setCookie("seat_" + tableId, seatSel.value);
    refresh(true);
    connect();   /* the stream draws the views of the seat now shown */
  });

  /* "your turn": the title, a short vibration and a short sound (switched off on this phone with
     the bell button); told once when the turn comes, not at every redraw */
  var sound = document.getElementById("sound-toggle");
  var quiet = localStorage.getItem("tc_sound") === "off";
  function drawSound() {
    if (!sound) return;
    sound.textContent = quiet ? sound.dataset.off : sound.dataset.on;
    sound.setAttribute("aria-pressed", quiet ? "false" : "true");
  }
  if (sound) {
    drawSound();
    sound.addEventListener("click", function () {
      quiet = !quiet;
      localStorage.setItem("tc_sound", quiet ? "off" : "on");
      drawSound();
    });
  }
  var baseTitle = document.title, wasMine = null, audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = 880; gain.gain.value = 0.08;
      osc.connect(gain); gain.connect(audio.destination);
      osc.start(); osc.stop(audio.currentTime + 0.15);
    } catch (e) { /* no sound on this browser */ }
  }
  function afterDraw() {
    var gv = document.querySelector(".gameview");
    if (!gv) return;
    var mine = gv.dataset.mine === "1";
    document.title = (mine ? "★ " + (d.yourTurn || "") + " — " : "") + baseTitle;
    body.classList.toggle("my-turn", mine);
    if (mine && wasMine === false) {   /* the turn just came: once */
      if (navigator.vibrate) navigator.vibrate(120);
      if (!quiet) beep();
    }
    wasMine = mine;
    if (gv.dataset.seatsFull !== undefined) body.classList.toggle("seats-full", gv.dataset.seatsFull === "1");
    /* a rematch: a phone follows to the new table in its seat, no code and no tap */
    var follow = document.querySelector("[data-follow]");
    if (follow && d.role !== "host" && !afterDraw.left) {
      afterDraw.left = true;
      window.location.replace(follow.dataset.follow + "?token=" + encodeURIComponent(token));
    }
  }
  afterDraw();
  /* a form the page sent says it was done (the host's companion seats): the page reloaded at its top */
  var said = document.getElementById("toast");
  if (said && said.dataset.said) {
    toast(said.dataset.said);
    var here = new URL(window.location.href);   /* said once: a reload does not say it again */
    here.searchParams.delete("saved");
    window.history.replaceState(null, "", here.toString());
  }

  /* live updates: the stream says "version N"; a sleeping phone reconnects and catches up */
  var source = null;
  function connect() {
    if (source) source.close();
    /* the pokes its view was drawn after: a role granted before the stream opens is told at once */
    /* inline=1: each new version comes with this phone's view (its seat and language), drawn at
       once with no fetch after the event */
    source = new EventSource("/api/tables/" + tableId + "/events?since=" + shown + "&pokes=" + (d.pokes || "") +
                             "&inline=1&seat=" + encodeURIComponent(seat()) + "&lang=" + encodeURIComponent(d.lang || "en") + asHost);
    source.addEventListener("version", function (e) {
      if (parseInt(e.data, 10) !== shown) refresh();
    });
    source.addEventListener("view", function (e) {
      var m = JSON.parse(e.data);
      if (m.pokes !== null && m.pokes !== undefined) d.pokes = String(m.pokes);
      draw(m.version, m.html, false);
    });
    source.addEventListener("notice", function () { refresh(true); });
    source.onopen = function () { body.classList.remove("offline"); };
    source.onerror = function () { body.classList.add("offline"); };
  }
  connect();
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { refresh(); if (source.readyState === 2) connect(); }
  });
  window.addEventListener("online", function () { refresh(); connect(); });

  /* the host's camera view: refresh the frame while one is available */
  var cam = document.getElementById("camera");
  /* a rematch took the camera on (the table changed: its rematch note): say where, with a link,
     instead of an empty box; the camera's 404 names the new table's host page */
  function cameraMoved() {
    if (!cam || !cam.classList.contains("none")) return;
    fetch(cam.dataset.src, {credentials: "same-origin", cache: "no-store",
                            headers: {"Accept": "application/json"}}).then(function (r) {
      return r.status === 404 ? r.json() : null;
    }).then(function (j) {
      if (!j || !j.moved || !cam.parentNode) return;
      var note = document.createElement("p");
      note.className = "camera-moved";
      note.id = "camera-moved";
      note.innerHTML = esc(cam.dataset.movedWords) + ' <a href="' + esc(j.moved) + '">' + esc(cam.dataset.movedLink) + "</a>";
      cam.parentNode.replaceChild(note, cam);
      cam = null;
      var check = document.getElementById("camcheck");   /* its set-up check went with it */
      if (check) check.hidden = true;
    }).catch(function () {});
  }
  if (cam) {
    /* (the frame asked for last may answer after cameraMoved() took the img away and cam is null) */
    cam.addEventListener("error", function () { this.classList.add("none"); cameraMoved(); });
    cam.addEventListener("load", function () { this.classList.remove("none"); });
    body.addEventListener("tc:updated", cameraMoved);
    setInterval(function () {
      if (cam && (!cam.classList.contains("none") || Math.random() < 0.1)) cam.src = cam.dataset.src + "?t=" + Date.now();
    }, 1000);
  }
  window.tcRefresh = refresh;
})();
