// The report's only script: sortable tables, opening collapsed sections on navigation and for printing,
// and checks that the browser test reads back (attributes of <html>, and window.infolossCheck()).
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message || e)); });

  // --- sortable tables: a button in each sortable heading; numbers sort largest first on the first click
  function makeSortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      var kind = th.getAttribute("data-sort");
      if (!kind) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") !== "descending";
        if (kind === "order") { descending = th.getAttribute("aria-sort") === "ascending"; }
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x, y;
          if (kind === "order") {
            x = Number(a.getAttribute("data-order")); y = Number(b.getAttribute("data-order"));
          } else {
            x = parseFloat(a.cells[col].getAttribute("data-v")); y = parseFloat(b.cells[col].getAttribute("data-v"));
            if (isNaN(x)) { x = -Infinity; } if (isNaN(y)) { y = -Infinity; }
          }
          return descending ? y - x : x - y;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  // --- open the collapsed sections around a link target
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) { return; }
    for (var p = el; p; p = p.parentElement) { if (p.tagName === "DETAILS") { p.open = true; } }
    var inner = el.querySelector(":scope > details");
    if (inner) { inner.open = true; }
    el.scrollIntoView();
  }

  // --- printing: every section open; restored afterwards
  var reopened = [];
  window.addEventListener("beforeprint", function () {
    reopened = Array.prototype.filter.call(document.querySelectorAll("details.sec, details.pairblock, details.howto"),
      function (d) { return !d.open; });
    reopened.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { reopened.forEach(function (d) { d.open = false; }); });

  // --- checks for the browser test
  function rectOf(el) { return el.getBoundingClientRect(); }
  function inside(r, box) {
    return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  }
  function overlap(a, b) {
    var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return w > 1.5 && h > 1.5;
  }
  // Call with every section open (the test opens them): charts that are laid out and their text.
  window.infolossCheck = function () {
    var out = { charts: 0, empty: [], clipped: [], overlapping: [], small: [], htmlClipped: [] };
    var charts = document.querySelectorAll("svg.chart");
    out.charts = charts.length;
    Array.prototype.forEach.call(charts, function (svg) {
      var box = rectOf(svg);
      var label = svg.getAttribute("aria-label");
      if (!(box.width > 0 && box.height > 0 && svg.childElementCount > 1)) { out.empty.push(label); return; }
      var scale = box.width / svg.viewBox.baseVal.width;
      var texts = svg.querySelectorAll("text"), flat = [];
      Array.prototype.forEach.call(texts, function (t) {
        if (!t.textContent) { return; }
        var r = rectOf(t);
        var size = parseFloat(getComputedStyle(t).fontSize) * scale;
        if (size < 10.99) { out.small.push(label + ": " + t.textContent + " (" + size.toFixed(1) + "px)"); }
        if (!inside(r, box)) { out.clipped.push(label + ": " + t.textContent); }
        if (!t.hasAttribute("transform")) { flat.push([t, r]); }
      });
      for (var i = 0; i < flat.length; i++) {
        for (var j = i + 1; j < flat.length; j++) {
          if (overlap(flat[i][1], flat[j][1])) {
            out.overlapping.push(label + ": '" + flat[i][0].textContent + "' / '" + flat[j][0].textContent + "'");
          }
        }
      }
    });
    // HTML text cut off by its box (overflow hidden and content wider than the box)
    Array.prototype.forEach.call(document.querySelectorAll("main th, main td, main h1, main h2, main h3, nav.toc a"),
      function (el) {
        var style = getComputedStyle(el);
        if (style.overflow === "hidden" && el.scrollWidth > el.clientWidth + 1) { out.htmlClipped.push(el.textContent); }
        if (style.textOverflow === "ellipsis") { out.htmlClipped.push(el.textContent); }
      });
    return out;
  };

  // --- narrow windows: the contents are a bar at the top; link targets clear its height (CSS var --bar)
  function barHeight() {
    var nav = document.querySelector("nav.toc");
    if (!nav) { return; }
    var sticky = getComputedStyle(nav).position === "sticky" && nav.getBoundingClientRect().width > window.innerWidth / 2;
    document.documentElement.style.setProperty("--bar", sticky ? (nav.offsetHeight + 8) + "px" : "0px");
  }
  window.addEventListener("resize", barHeight);

  // --- a table wider than its box scrolls sideways: the box gets the class "overflowing" (a visible cue, CSS)
  function markScrolling(root) {
    Array.prototype.forEach.call(root.querySelectorAll(".scroll"), function (el) {
      var wide = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
      if (wide !== el.classList.contains("overflowing")) { el.classList.toggle("overflowing", wide); }
    });
  }
  // opened sections and a resized window are measured again (closed sections are not laid out)
  document.addEventListener("toggle", function (e) { if (e.target.open) { markScrolling(e.target); } }, true);
  window.addEventListener("resize", function () { markScrolling(document); });

  window.addEventListener("DOMContentLoaded", function () {
    barHeight();
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    openTarget();
  });
  window.addEventListener("hashchange", openTarget);
  // At load only cheap facts (measuring every chart would lay out the collapsed sections too);
  // window.infolossCheck() measures on demand.
  window.addEventListener("load", function () {
    setTimeout(function () { markScrolling(document); }, 0);  // after the load: the page opens as fast
    var root = document.documentElement;
    root.setAttribute("data-charts", String(document.querySelectorAll("svg.chart").length));
    root.setAttribute("data-errors", errors.join(" | "));
    root.setAttribute("data-check", "done");
  });
})();
