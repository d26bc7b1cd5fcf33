// Records script errors and checks that every chart was laid out; the result is
// written as attributes of <html> (read back by the browser test; harmless otherwise).
(function () {
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message || e)); });
  window.addEventListener("load", function () {
    var charts = document.querySelectorAll("svg.chart"), empty = 0;
    for (var i = 0; i < charts.length; i++) {
      var r = charts[i].getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0 && charts[i].childElementCount > 1)) { empty++; }
    }
    var root = document.documentElement;
    root.setAttribute("data-charts", String(charts.length));
    root.setAttribute("data-charts-empty", String(empty));
    root.setAttribute("data-errors", errors.join(" | "));
    root.setAttribute("data-check", "done");
  });
})();
