/* The phone as the table's camera (/camera/<table>) and the host's camera set-up check.
   The phone sends its rear camera's frames as JPEG, one POST at a time (the next after the answer:
   a slow network or server lowers the rate instead of queueing frames), and shows the check's
   next step; the host page polls the same check and its picture. */
(function () {
  "use strict";

  var SEND_EVERY_MS = 300;      /* about three frames a second: the table is still most of the time */
  var CHECK_EVERY_MS = 2000;
  var IDLE_CHECK_MS = 8000;     /* the host page of a table with no camera yet */
  var JPEG_QUALITY = 0.9;       /* 15 mm markers at 1.4 px/mm survive 0.9, not much less */

  function showCheck(j, nextEl, warnEl) {
    nextEl.textContent = j.next.text;
    nextEl.parentNode.classList.toggle("ok", !!j.ok);
    warnEl.innerHTML = "";
    j.warnings.forEach(function (w) {
      var li = document.createElement("li");
      li.textContent = w.text;
      warnEl.appendChild(li);
    });
  }

  /* ---- the host page: the set-up check, shown while the table has a camera ---- */
  var box = document.getElementById("camcheck");
  if (box) {
    var img = document.getElementById("camcheck-img");
    var pollCheck = function () {
      var next = IDLE_CHECK_MS;   /* no camera yet: look again now and then (a phone may start) */
      fetch(box.dataset.check, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
        if (!r.ok) { box.hidden = true; return null; }
        return r.json();
      }).then(function (j) {
        if (!j || !j.camera) { box.hidden = true; return; }   /* {"camera": null}: none watches yet */
        next = CHECK_EVERY_MS;
        box.hidden = false;
        showCheck(j, document.getElementById("camcheck-next"), document.getElementById("camcheck-warnings"));
        if (j.gone && j.source === "phone") {
          var li = document.createElement("li");
          li.textContent = box.dataset.gone;
          document.getElementById("camcheck-warnings").appendChild(li);
        }
        var fig = [];
        if (j.lowest_px_per_mm !== null) fig.push(box.dataset.lowest + " " + j.lowest_px_per_mm + " px/mm");
        if (j.readable !== null) fig.push(Math.round(100 * j.readable) + "% " + box.dataset.readable);
        if (j.frame && j.frame[0]) fig.push(j.frame[0] + "×" + j.frame[1]);
        document.getElementById("camcheck-figures").textContent = fig.join(" · ");
        img.hidden = !(j.frame && j.frame[0]);   /* no frame yet: no broken picture, the next step says so */
        if (!img.hidden) img.src = j.image + "?t=" + Date.now();
      }).catch(function () {}).then(function () { setTimeout(pollCheck, next); });
    };
    pollCheck();
    var details = document.getElementById("phonecam");
    details.addEventListener("toggle", function () {   /* the QR carries the host token: on demand */
      var qr = document.getElementById("phonecam-qr");
      if (details.open && !qr.src) qr.src = qr.dataset.src;
    });
  }

  /* ---- the phone-camera page ---- */
  var cam = document.getElementById("camera-page");
  if (!cam) return;
  var d = cam.dataset;
  var video = document.getElementById("preview");
  var status = document.getElementById("cam-status");
  var errorEl = document.getElementById("cam-error");
  var startBtn = document.getElementById("cam-start");
  var stopBtn = document.getElementById("cam-stop");
  var resSel = document.getElementById("cam-res");
  var canvas = document.createElement("canvas");
  var stream = null, running = false, sent = 0, since = 0, wakeLock = null, checkTimer = null;
  var epoch = 0;   /* each start's own send loop: a restart never leaves two loops running */

  function fail(text) {
    errorEl.textContent = text;
    errorEl.hidden = !text;
  }

  function sleep(ms) { return new Promise(function (ok) { setTimeout(ok, ms); }); }

  function grab() {
    var w = video.videoWidth, h = video.videoHeight;
    if (!w || !h) return Promise.resolve(null);
    canvas.width = w;
    canvas.height = h;
    canvas.getContext("2d").drawImage(video, 0, 0, w, h);
    return new Promise(function (ok) { canvas.toBlob(ok, "image/jpeg", JPEG_QUALITY); });
  }

  function send(mine) {
    if (!running || mine !== epoch) return;
    var t0 = performance.now();
    grab().then(function (blob) {
      if (!blob) return sleep(200);
      return fetch(d.frame, {method: "POST", credentials: "same-origin", body: blob,
                             headers: {"Content-Type": "image/jpeg", "X-Table-Token": d.token}})
        .then(function (r) {
          return r.json().catch(function () { return {}; }).then(function (j) {
            if (!running || mine !== epoch) return null;   /* stopped while this frame was on its way */
            if (!r.ok) {
              fail((document.documentElement.lang === "ja" && j.ja) || j.error || ("error " + r.status));
              /* a damaged frame, a restart, a spent budget or a busy server pass: the next frame goes;
                 anything else (no right, too large, not a JPEG) is refused for good: say so, stop */
              if ([400, 409, 429].indexOf(r.status) < 0 && r.status < 500) stop();
              var after = Number(r.headers.get("Retry-After")) || 2;
              return sleep(Math.min(after, 60) * 1000);
            }
            fail("");
            if (j.moved) {   /* a rematch: this camera now watches the new table */
              d.frame = j.moved.frame; d.check = j.moved.check; d.token = j.moved.token;
              var code = document.getElementById("cam-code");
              if (code) code.textContent = j.moved.code;
              if (window.history && history.replaceState) history.replaceState(null, "", j.moved.page);
            }
            sent += 1;
            var secs = (performance.now() - since) / 1000;
            status.textContent = d.sending + " " + j.size[0] + "×" + j.size[1] + " · " +
              (sent / Math.max(secs, 0.001)).toFixed(1) + " " + d.fps;
            return sleep(Math.max(0, SEND_EVERY_MS - (performance.now() - t0)));
          });
        });
    }).catch(function (e) { fail(String(e)); return sleep(2000); })
      .then(function () { send(mine); });
  }

  function pollCheck() {
    fetch(d.check, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (j) {
      if (j && j.camera) showCheck(j, document.getElementById("cam-next"), document.getElementById("cam-warnings"));
    }).catch(function () {});
  }

  function keepAwake() {
    if (navigator.wakeLock && running && document.visibilityState === "visible") {
      navigator.wakeLock.request("screen").then(function (l) { wakeLock = l; }).catch(function () {});
    }
  }

  function start() {
    if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      fail(d.insecure);
      return;
    }
    fail("");
    clearInterval(checkTimer);
    if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    var size = resSel.value.split("x");
    navigator.mediaDevices.getUserMedia({audio: false, video: {
      facingMode: {ideal: "environment"}, width: {ideal: +size[0]}, height: {ideal: +size[1]}}
    }).then(function (s) {
      stream = s;
      video.srcObject = s;
      return video.play().catch(function () {});
    }).then(function () {
      running = true;
      sent = 0;
      since = performance.now();
      startBtn.hidden = true;
      stopBtn.hidden = false;
      keepAwake();
      send(++epoch);
      pollCheck();
      checkTimer = setInterval(pollCheck, CHECK_EVERY_MS);
    }).catch(function (e) {
      fail(e && e.name === "NotAllowedError" ? d.denied : String(e));
    });
  }

  function stop() {
    running = false;
    if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    stream = null;
    if (wakeLock) wakeLock.release().catch(function () {});
    wakeLock = null;
    clearInterval(checkTimer);
    startBtn.hidden = false;
    stopBtn.hidden = true;
    status.textContent = d.stopped;
  }

  startBtn.addEventListener("click", start);
  resSel.addEventListener("change", function () {   /* 4K doubles px/mm where the phone has it */
    if (running) stop();
    start();
  });
  stopBtn.addEventListener("click", stop);
  document.addEventListener("visibilitychange", keepAwake);
  start();    /* browsers that need a tap first show the button again with the reason */
})();
