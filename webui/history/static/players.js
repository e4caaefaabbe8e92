/* The create form's known-player picker: a tap adds the name (once) to the comma-separated names
   field and makes the player count at least the number of names. */
(function () {
  "use strict";
  var names = document.getElementById("names");
  var count = document.getElementById("players");
  document.querySelectorAll(".pick-player").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var list = names.value.split(",").map(function (s) { return s.trim(); }).filter(Boolean);
      var name = btn.dataset.name;
      var at = list.map(function (s) { return s.toLowerCase(); }).indexOf(name.toLowerCase());
      if (at >= 0) list.splice(at, 1); else list.push(name);   // a second tap takes the name out
      names.value = list.join(", ");
      btn.classList.toggle("picked", at < 0);
      if (count && list.length) count.value = Math.max(list.length, Number(count.min) || 1);
    });
  });
})();
