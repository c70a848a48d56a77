/// The style and the script of ``CassetteViewPage``: plain CSS and plain JavaScript, inline.
///
/// The script reads the cassettes from the page's JSON data and builds every element with
/// `createElement`, `textContent` and attributes it chooses: no value from a cassette ever goes
/// through `innerHTML`, an event attribute or a URL. The page's state (filter, status class,
/// sort, the interaction shown) lives in the location's fragment (`#filter=users&status=4&sort=-duration&detail=3`),
/// so a link opens the same view and a test can drive it. When it has rendered, it sets
/// `data-ready` and `data-render-ms` (milliseconds from the script's start) on `<body>`.
enum CassetteViewAssets {
    static let style = #"""
        :root { --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --bg: #fff; --pick: #e8f0fe; --bar: #4a90d9; --wait: #c6d9f1; }
        body { font: 13px/1.4 -apple-system, system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
        header { padding: 8px 16px; border-bottom: 1px solid var(--line); }
        h1 { font-size: 16px; margin: 0 0 4px; } h2 { font-size: 14px; margin: 16px 0 6px; } h3 { font-size: 13px; margin: 12px 0 4px; }
        #facts .cassette { color: var(--muted); margin: 2px 0; } #facts .finding, .finding { color: #b25000; } .note { color: #6a3d9a; }
        #controls { padding: 8px 16px; display: flex; gap: 8px; align-items: center; border-bottom: 1px solid var(--line); }
        #filter { flex: 1; max-width: 420px; padding: 4px 6px; } #count { color: var(--muted); }
        main { display: flex; align-items: flex-start; }
        #list-pane { flex: 3; min-width: 0; padding: 0 16px 16px; overflow-x: auto; }
        #detail { flex: 2; min-width: 0; padding: 8px 16px; border-left: 1px solid var(--line); position: sticky; top: 0; max-height: 100vh; overflow: auto; }
        table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { cursor: pointer; user-select: none; position: sticky; top: 0; background: var(--bg); } th.sorted::after { content: " ▲"; } th.sorted.down::after { content: " ▼"; }
        tr.row { cursor: pointer; } tr.row:hover { background: #f5f5f7; } tr.row.picked { background: var(--pick); }
        td.url { word-break: break-all; font-family: ui-monospace, monospace; min-width: 16em; } td.num { text-align: right; white-space: nowrap; }
        td.type { color: var(--muted); min-width: 9em; max-width: 16em; overflow-wrap: break-word; }
        .s2 { color: #1a7f37; } .s3 { color: #8250df; } .s4 { color: #b25000; } .s5, .err { color: #cf222e; }
        .headers td:first-child { font-weight: 600; white-space: nowrap; } .headers td { font-family: ui-monospace, monospace; word-break: break-all; }
        pre, .json { font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; background: #f6f8fa; padding: 6px; margin: 4px 0; }
        .json details { margin-left: 14px; } .json summary { cursor: pointer; } .json .key { color: #0550ae; } .json .str { color: #0a3069; } .json .lit { color: #8250df; }
        mark.redacted { background: #fff1b8; color: #6e5400; border-radius: 2px; padding: 0 2px; }
        .hint, .note { color: var(--muted); } button.link { background: none; border: 0; color: #0969da; cursor: pointer; padding: 0; font: inherit; text-decoration: underline; }
        img.body { max-width: 100%; border: 1px solid var(--line); }
        .sides { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; } .sides > div { min-width: 0; }
        .finding.change { background: #fff8c5; padding: 2px 4px; }
        svg text { font: 10px ui-monospace, monospace; fill: var(--muted); }
        """#

    static let script = #"""
        (function () {
          "use strict";
          var started = performance.now();
          var data = JSON.parse(document.getElementById("cassette-data").textContent);
          var rows = data.interactions;
          var state = { filter: "", status: "", sort: "n", down: false, detail: null };
          var body = document.querySelector("#list tbody");
          var trs = [];

          function el(tag, attrs, text) {
            var node = document.createElement(tag);
            if (attrs) { for (var k in attrs) { if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, attrs[k]); } }
            if (text !== undefined && text !== null) node.textContent = String(text);
            return node;
          }
          function add(parent, child) { parent.appendChild(child); return child; }
          function size(n) { return n < 1024 ? n + " B" : n < 1048576 ? (n / 1024).toFixed(1) + " KB" : (n / 1048576).toFixed(1) + " MB"; }
          function ms(s) { return Math.round(s * 1000); }
          // The outcome and the timing as 'cassette show' prints them (InteractionSummary).
          function outcome(r) { return r.outcome; }
          function statusClass(r) { return r.error ? "err" : r.status ? "s" + String(r.status)[0] : ""; }
          function timing(r) { return r.timing; }
          // Text with redaction placeholders marked, built as text nodes and <mark> elements.
          function marked(parent, text) {
            var re = /\[REDACTED(?:-\d+)?\]/g, last = 0, m;
            while ((m = re.exec(text)) !== null) {
              if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
              add(parent, el("mark", { "class": "redacted", title: "redacted: the recorded value was removed" }, m[0]));
              last = m.index + m[0].length;
            }
            if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
            return parent;
          }
          function readableURL(url) {
            var q = url.indexOf("?");
            if (q < 0) return url;
            try { return url.slice(0, q) + "?" + decodeURIComponent(url.slice(q + 1).replace(/\+/g, " ")); } catch (e) { return url; }
          }

          // Facts.
          var facts = document.getElementById("facts");
          data.cassettes.forEach(function (c) {
            var line = add(facts, el("div", { "class": "cassette" }));
            line.textContent = c.file + " — " + c.format + ", " + c.interactions + " interaction" + (c.interactions === 1 ? "" : "s") +
              (c.recordedWith ? ", recorded with " + c.recordedWith : "") + (c.ageDays !== undefined ? ", " + c.ageDays + " days old" : "");
            if (c.metadata) { add(facts, el("div", { "class": "metadata" }, "metadata: " + JSON.stringify(c.metadata))); }
            c.findings.forEach(function (f) { add(facts, el("div", { "class": "finding" }, f)); });
          });

          // The list.
          rows.forEach(function (r, i) {
            var tr = el("tr", { "class": "row", "data-index": i });
            add(tr, el("td", { "class": "num" }, data.cassettes.length > 1 ? r.cassette + ":" + r.n : r.n));
            add(tr, el("td", null, r.method));
            var url = add(tr, marked(el("td", { "class": "url", title: r.url }), readableURL(r.url)));
            if (r.notes.length) add(url, el("span", { "class": "note" }, " · " + r.notes.join("; ")));
            add(tr, el("td", { "class": statusClass(r) }, outcome(r)));
            add(tr, el("td", { "class": "num" }, size(r.size)));
            add(tr, el("td", { "class": "type" }, r.type));
            add(tr, el("td", { "class": "num" }, timing(r)));
            if (r.findings.length) tr.setAttribute("data-findings", r.findings.length);
            tr.addEventListener("click", function () { state.detail = i; apply(); });
            trs.push(tr);
          });

          function visible(r) {
            if (state.status === "error" && !r.error) return false;
            if (state.status && state.status !== "error" && (r.error || String(r.status)[0] !== state.status)) return false;
            if (!state.filter) return true;
            var hay = (r.method + " " + r.url + " " + readableURL(r.url) + " " + outcome(r) + " " + r.type).toLowerCase();
            return hay.indexOf(state.filter.toLowerCase()) >= 0;
          }
          function key(r) {
            switch (state.sort) {
              case "status": return r.error ? 1000 : r.status || 0;
              case "size": return r.size;
              case "duration": return r.duration === undefined ? -1 : r.duration;
              case "method": case "url": case "type": return r[state.sort];
              default: return r.cassette * 1e7 + r.n;
            }
          }

          // The waterfall: one bar per interaction from its start to its end, the first byte marked,
          // stream events as ticks, on one time axis.
          var pane = document.getElementById("waterfall-pane");
          var width = 720, rowHeight = 14, left = 40;
          var end = 0;
          rows.forEach(function (r) { if (r.duration !== undefined) end = Math.max(end, (r.start || 0) + r.duration); });
          var scale = end > 0 ? width / end : 0;
          var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
          svg.setAttribute("id", "waterfall");
          svg.setAttribute("width", left + width + 10);
          svg.setAttribute("height", rows.length * rowHeight + 20);
          svg.setAttribute("data-seconds", end);
          function svgEl(tag, attrs) {
            var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
            for (var k in attrs) node.setAttribute(k, attrs[k]);
            return node;
          }
          rows.forEach(function (r, i) {
            if (r.duration === undefined) return;
            var x = left + (r.start || 0) * scale, y = i * rowHeight + 2;
            var g = add(svg, svgEl("g", { "data-index": i }));
            var label = add(g, svgEl("text", { x: 0, y: y + 10 }));
            label.textContent = String(r.n);
            add(g, svgEl("rect", { "class": "wait", x: x, y: y, width: r.firstByte * scale, height: rowHeight - 4, fill: "#c6d9f1" }));
            var bar = add(g, svgEl("rect", { "class": "bar", x: x, y: y, width: Math.max(r.duration * scale, 0), height: rowHeight - 4, fill: "#4a90d9", "fill-opacity": 0.55 }));
            bar.setAttribute("data-width", (r.duration * scale).toFixed(3));
            (r.events || []).forEach(function (e) {
              add(g, svgEl("line", { "class": "tick", x1: x + e.at * scale, x2: x + e.at * scale, y1: y - 1, y2: y + rowHeight - 3, stroke: "#1d1d1f" }));
            });
            var tip = add(g, svgEl("title", {}));
            tip.textContent = r.method + " " + r.url + " — first byte " + ms(r.firstByte) + " ms, total " + ms(r.duration) + " ms" +
              (r.latency ? " (" + r.timing + ")" : "") +
              (r.events ? ", " + r.events.length + " events" : "");
            g.addEventListener("click", function () { state.detail = i; apply(); });
          });
          var axis = add(svg, svgEl("text", { x: left, y: rows.length * rowHeight + 16 }));
          axis.textContent = "0 — " + ms(end) + " ms";
          pane.appendChild(svg);

          // The detail of one interaction.
          function headersTable(parent, pairs) {
            if (!pairs.length) { add(parent, el("p", { "class": "note" }, "no header fields")); return; }
            var table = add(parent, el("table", { "class": "headers" }));
            pairs.forEach(function (p) {
              var tr = add(table, el("tr"));
              add(tr, el("td", null, p[0]));
              add(tr, marked(el("td"), p[1]));
            });
          }
          function jsonNode(parent, value, level, name) {
            var isArray = Array.isArray(value);
            if (value !== null && typeof value === "object") {
              var keys = isArray ? value.map(function (_, i) { return i; }) : Object.keys(value);
              var details = add(parent, el("details", level < 2 ? { open: "" } : null));
              var summary = add(details, el("summary"));
              if (name !== null) { add(summary, el("span", { "class": "key" }, name)); summary.appendChild(document.createTextNode(": ")); }
              summary.appendChild(document.createTextNode(isArray ? "[" + keys.length + "]" : "{" + keys.length + "}"));
              keys.forEach(function (k) { jsonNode(details, value[k], level + 1, isArray ? "[" + k + "]" : JSON.stringify(k)); });
              return;
            }
            var line = add(parent, el("div"));
            if (name !== null) { add(line, el("span", { "class": "key" }, name)); line.appendChild(document.createTextNode(": ")); }
            var text = typeof value === "string" ? JSON.stringify(value) : String(value);
            add(line, marked(el("span", { "class": typeof value === "string" ? "str" : "lit" }), text));
          }
          function bodyView(parent, b) {
            if (b.kind === "empty") { add(parent, el("p", { "class": "note" }, "no body")); return; }
            var note = add(parent, el("p", { "class": "note" }, b.kind + ", " + size(b.size) + (b.truncated ? " (shown cut to its first " + size(b.text ? b.text.length : 0) + ")" : "")));
            note.setAttribute("data-kind", b.kind);
            if (b.kind === "json") {
              var box = add(parent, el("div", { "class": "json" }));
              try { jsonNode(box, JSON.parse(b.text), 0, null); } catch (e) { add(box, marked(el("pre"), b.text)); }
            } else if (b.kind === "form") {
              var table = add(parent, el("table", { "class": "headers form" }));
              b.text.split("&").forEach(function (pair) {
                var i = pair.indexOf("="), name = i < 0 ? pair : pair.slice(0, i), value = i < 0 ? "" : pair.slice(i + 1);
                function decode(s) { try { return decodeURIComponent(s.replace(/\+/g, " ")); } catch (e) { return s; } }
                var tr = add(table, el("tr"));
                add(tr, el("td", null, decode(name)));
                add(tr, marked(el("td"), decode(value)));
              });
            } else if (b.kind === "multipart") {
              var parts = add(parent, el("table", { "class": "headers parts" }));
              var head = add(parts, el("tr"));
              ["name", "filename", "type", "size", "content"].forEach(function (h) { add(head, el("th", null, h)); });
              b.parts.forEach(function (p) {
                var tr = add(parts, el("tr", { "class": "part" }));
                add(tr, el("td", null, p.name));
                add(tr, el("td", null, p.filename));
                add(tr, el("td", null, p.type));
                add(tr, el("td", { "class": "num" }, size(p.size)));
                add(tr, marked(el("td"), p.text === null ? "(binary)" : p.text));
              });
            } else if (b.kind === "image") {
              add(parent, el("img", { "class": "body", alt: "response image", src: "data:" + b.type.replace(/[^a-z0-9.+\/-]/g, "") + ";base64," + b.base64 }));
            } else if (b.kind === "binary") {
              add(parent, el("pre", { "class": "hex" }, b.hex + (b.size > 256 ? " …" : "")));
            } else {
              add(parent, marked(el("pre"), b.text));
            }
          }
          function showDetail() {
            var detail = document.getElementById("detail");
            detail.textContent = "";
            if (state.detail === null || !rows[state.detail]) { add(detail, el("p", { "class": "hint" }, "Select an interaction.")); return; }
            detail.setAttribute("data-index", state.detail);
            var r = rows[state.detail];
            if (r.pair === undefined) { showOne(detail, r); return; }
            // A compared pair: the changes, then the two side by side, the older first.
            var older = Math.min(state.detail, r.pair), newer = Math.max(state.detail, r.pair);
            rows[newer].findings.forEach(function (f) { add(detail, el("p", { "class": "finding change" }, f)); });
            var sides = add(detail, el("div", { "class": "sides" }));
            showOne(add(sides, el("div", { "class": "side old" })), rows[older], true);
            showOne(add(sides, el("div", { "class": "side new" })), rows[newer], true);
          }
          function showOne(detail, r, compared) {
            add(detail, el("h2", null, "#" + r.n + " " + r.method));
            add(detail, marked(el("p", { "class": "url" }), r.url));
            add(detail, el("p", { "class": statusClass(r) + " outcome" }, outcome(r) + " · " + timing(r)));
            r.notes.forEach(function (n) { add(detail, el("p", { "class": "note" }, n)); });
            if (!compared) r.findings.forEach(function (f) { add(detail, el("p", { "class": "finding" }, f)); });
            if (r.next !== undefined) {
              var hop = add(detail, el("p", { "class": "redirect" }, "Redirects to " + (r.location || "") + " — "));
              var link = add(hop, el("button", { "class": "link", "data-next": r.next }, "next hop: #" + rows[r.next].n));
              link.addEventListener("click", function () { state.detail = r.next; apply(); });
            }
            rows.forEach(function (other, i) {
              if (other.next === state.detail) {
                var back = add(detail, el("p", { "class": "redirect" }, "Redirected from "));
                var link = add(back, el("button", { "class": "link", "data-previous": i }, "#" + other.n + " " + other.url));
                link.addEventListener("click", function () { state.detail = i; apply(); });
              }
            });
            add(detail, el("h3", null, "Request"));
            headersTable(detail, r.request.headers);
            bodyView(add(detail, el("div", { "class": "request-body" })), r.request.body);
            add(detail, el("h3", null, "Response"));
            if (!r.response) { add(detail, el("p", { "class": "err" }, r.error || "no response")); return; }
            headersTable(detail, r.response.headers);
            if (r.events) {
              add(detail, el("h3", null, "Streamed: " + r.events.length + " pieces"));
              var list = add(detail, el("ol", { "class": "events" }));
              r.events.forEach(function (e) { add(list, el("li", null, ms(e.at) + " ms: " + size(e.size))); });
            }
            bodyView(add(detail, el("div", { "class": "response-body" })), r.response.body);
          }

          function apply() {
            var order = trs.map(function (_, i) { return i; });
            order.sort(function (a, b) {
              var x = key(rows[a]), y = key(rows[b]);
              var c = x < y ? -1 : x > y ? 1 : a - b;
              return state.down ? -c : c;
            });
            var fragment = document.createDocumentFragment(), shown = 0;
            order.forEach(function (i) {
              var tr = trs[i], show = visible(rows[i]);
              if (show) { tr.removeAttribute("hidden"); shown++; } else { tr.setAttribute("hidden", ""); }
              tr.classList.toggle("picked", i === state.detail);
              fragment.appendChild(tr);
            });
            body.appendChild(fragment);
            document.getElementById("count").textContent = shown + " of " + rows.length;
            document.querySelectorAll("th").forEach(function (th) {
              th.classList.toggle("sorted", th.getAttribute("data-sort") === state.sort);
              th.classList.toggle("down", th.getAttribute("data-sort") === state.sort && state.down);
            });
            showDetail();
            var parts = [];
            if (state.filter) parts.push("filter=" + encodeURIComponent(state.filter));
            if (state.status) parts.push("status=" + state.status);
            if (state.sort !== "n" || state.down) parts.push("sort=" + (state.down ? "-" : "") + state.sort);
            if (state.detail !== null) parts.push("detail=" + state.detail);
            var hash = parts.length ? "#" + parts.join("&") : "";
            if (location.hash !== hash && history.replaceState) history.replaceState(null, "", hash || location.pathname);
          }

          function read() {
            location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
              var i = pair.indexOf("="), k = pair.slice(0, i), v = decodeURIComponent(pair.slice(i + 1));
              if (k === "filter") state.filter = v;
              if (k === "status") state.status = v;
              if (k === "sort") { state.down = v.charAt(0) === "-"; state.sort = v.replace(/^-/, ""); }
              if (k === "detail" && /^\d+$/.test(v)) state.detail = Number(v);
            });
            document.getElementById("filter").value = state.filter;
            document.getElementById("status").value = state.status;
          }
          document.getElementById("filter").addEventListener("input", function (e) { state.filter = e.target.value; apply(); });
          document.getElementById("status").addEventListener("change", function (e) { state.status = e.target.value; apply(); });
          document.querySelectorAll("th").forEach(function (th) {
            th.addEventListener("click", function () {
              var k = th.getAttribute("data-sort");
              if (state.sort === k) { state.down = !state.down; } else { state.sort = k; state.down = false; }
              apply();
            });
          });
          window.addEventListener("hashchange", function () { read(); apply(); });
          read();
          apply();
          document.body.setAttribute("data-render-ms", (performance.now() - started).toFixed(1));
          document.body.setAttribute("data-ready", "1");
        })();
        """#
}
