// The online run page, live: every few seconds the page's view is fetched again as JSON and
// its tables rebuilt with textContent (model and user text is never parsed as HTML).
(function () {
  "use strict";
  var root = document.getElementById("online");
  if (!root) { return; }
  var url = root.getAttribute("data-api");
  var every = Number(root.getAttribute("data-every-ms")) || 3000;

  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "–" : String(text);
    if (cls) { td.className = cls; }
    tr.appendChild(td);
    return td;
  }

  function fill(id, rows, build) {
    var body = document.getElementById(id);
    if (!body) { return; }
    while (body.firstChild) { body.removeChild(body.firstChild); }
    rows.forEach(function (r) { var tr = document.createElement("tr"); build(tr, r); body.appendChild(tr); });
  }

  function render(v) {
    var c = v.counters || {};
    Object.keys(c).forEach(function (k) {
      var el = document.getElementById("c-" + k);
      if (el && typeof c[k] !== "object") { el.textContent = String(c[k]); }
    });
    document.getElementById("status").textContent = v.run.status;
    fill("over-time", v.over_time, function (tr, r) {
      cell(tr, r.at); cell(tr, r.evaluator); cell(tr, r.results, "n"); cell(tr, r.scored, "n");
      cell(tr, r.mean === null ? null : r.mean.toFixed(3), "n");
    });
    var img = document.getElementById("over-time-img");
    if (img && v.over_time.length) {  // the chart is an SVG image of the same view: reload it
      img.src = img.src.split("&t=")[0] + "&t=" + Date.now();
    }
    fill("latest", v.latest, function (tr, r) {
      var td = cell(tr, "");
      var a = document.createElement("a");
      a.href = "/runs/" + encodeURIComponent(v.run.id) + "/items/" + encodeURIComponent(r.item_id);
      a.textContent = r.item_id.slice(0, 12);
      td.appendChild(a);
      cell(tr, r.answered_at); cell(tr, r.question); cell(tr, r.answer);
      cell(tr, r.unknown ? "unknown shape: " + r.unknown : r.results.map(function (x) {
        return x.evaluator + " " + (x.score === null ? "–" : x.score) + " (" + x.status + ")";
      }).join("; "));
    });
  }

  function poll() {
    fetch(url, {headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (v) { if (v) { render(v); root.setAttribute("data-polls", String(Number(root.getAttribute("data-polls") || 0) + 1)); } })
      .catch(function () { /* the next poll tries again */ })
      .then(function () { setTimeout(poll, every); });
  }
  setTimeout(poll, every);
})();
