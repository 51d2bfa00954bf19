// Sortable tables (a button in each sortable header: Enter or Space sorts,
// again reverses) and the index's filter. No network, no library.
(function () {
  "use strict";
  function key(cell, type) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (type === "number") { var n = parseFloat(raw); return isNaN(n) ? -Infinity : n; }
    return raw.toLowerCase();
  }
  function sortBy(table, index, descending) {
    var body = table.tBodies[0];
    var th = table.tHead.rows[0].cells[index];
    var type = th.getAttribute("data-type");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[index], type), y = key(b.cells[index], type);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      if (cell.hasAttribute("data-type")) { cell.removeAttribute("aria-sort"); }
    });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        // numbers sort largest first on the first press: the question is usually "which most"
        var first = th.getAttribute("data-type") === "number";
        var current = th.getAttribute("aria-sort");
        sortBy(table, index, current ? current === "ascending" : first);
      });
    });
  });
  var filter = document.getElementById("filter");
  if (filter) {
    var table = document.getElementById(filter.getAttribute("data-filter"));
    var shown = document.getElementById("shown");
    var apply = function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var count = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var text = row.textContent.toLowerCase();
        var keep = words.every(function (w) { return text.indexOf(w) !== -1; });
        row.hidden = !keep;
        if (keep) { count += 1; }
      });
      shown.textContent = count + " of " + table.tBodies[0].rows.length + " servers";
    };
    filter.addEventListener("input", apply);
    apply();
  }
})();
