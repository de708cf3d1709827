// Click a frame to zoom into it, "Reset Zoom" to zoom out; Ctrl-F, F3 or
// "Search" highlights the frames matching a regexp, Esc clears it. Frames
// carry their position in samples (data-s: samples to their left, data-v:
// their count, data-d: depth); cfg is written by the renderer above.
var frames = [], details, matched, unzoomBtn, searchBtn, searching = false;

function init() {
	details = document.getElementById("details").firstChild;
	matched = document.getElementById("matched");
	unzoomBtn = document.getElementById("unzoom");
	searchBtn = document.getElementById("search");
	var gs = document.querySelectorAll("#frames > g");
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i], t = g.querySelector("title").textContent, name = t.slice(0, t.lastIndexOf(" ("));
		var cut = name.search(/[\[ ]/), dir = (cut < 0 ? name : name.slice(0, cut)).lastIndexOf("/");
		g.frame = {
			g: g, rect: g.querySelector("rect"), text: g.querySelector("text"), info: t,
			name: name, short: name.slice(dir + 1), fill: null,
			s: +g.getAttribute("data-s"), v: +g.getAttribute("data-v"), d: +g.getAttribute("data-d")
		};
		frames.push(g.frame);
	}
	var fr = document.getElementById("frames");
	fr.addEventListener("click", function (e) { var f = frameOf(e.target); if (f) zoom(f); });
	fr.addEventListener("mouseover", function (e) {
		var f = frameOf(e.target);
		if (f) details.nodeValue = "Function: " + f.info;
	});
	fr.addEventListener("mouseout", function () { details.nodeValue = " "; });
	unzoomBtn.addEventListener("click", function () { zoom(null); });
	searchBtn.addEventListener("click", function () { if (searching) resetSearch(); else search(); });
	window.addEventListener("keydown", function (e) {
		if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
			e.preventDefault();
			search();
		} else if (e.keyCode === 27) {
			resetSearch();
		}
	});
}

function frameOf(el) {
	while (el && !el.frame) el = el.parentNode;
	return el ? el.frame : null;
}

// place moves a frame and refits its label with the renderer's rule: the
// name, else the name without its package's directory, else that cut.
function place(f, x, w) {
	f.rect.setAttribute("x", x.toFixed(2));
	f.rect.setAttribute("width", w.toFixed(2));
	f.text.setAttribute("x", (x + 3).toFixed(2));
	var n = Math.floor(w / cfg.charw), s = f.name;
	if (n < 3) s = "";
	else if (s.length > n) {
		s = f.short;
		if (s.length > n) s = s.slice(0, n - 2) + "..";
	}
	f.text.textContent = s;
}

// zoom shows z and its descendants across the full width, its ancestors
// full width and faded, and hides the rest; zoom(null) shows everything.
function zoom(z) {
	var s = z ? z.s : 0, v = z ? z.v : cfg.total, d = z ? z.d : 0, k = cfg.width / v;
	unzoomBtn.classList.toggle("hide", !z);
	frames.forEach(function (f) {
		var inside = f.d >= d && f.s >= s && f.s + f.v <= s + v;
		var ancestor = f.d < d && f.s <= s && f.s + f.v >= s + v;
		f.g.classList.toggle("hide", !inside && !ancestor);
		f.g.classList.toggle("parent", ancestor);
		if (ancestor) place(f, cfg.xpad, cfg.width);
		else if (inside) place(f, cfg.xpad + (f.s - s) * k, f.v * k);
	});
}

function search() {
	var term = prompt("Search frames (regexp, e.g. htlcswitch|^runtime\\.)", "");
	if (!term) return;
	var re;
	try {
		re = new RegExp(term);
	} catch (err) {
		alert(err);
		return;
	}
	resetSearch();
	var hits = [];
	frames.forEach(function (f) {
		if (!re.test(f.name)) return;
		f.fill = f.rect.getAttribute("fill");
		f.rect.setAttribute("fill", cfg.searchColor);
		hits.push([f.s, f.s + f.v]);
	});
	// Frames nest or are disjoint: count each sample once.
	hits.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
	var sum = 0, end = 0;
	hits.forEach(function (h) {
		var lo = Math.max(h[0], end);
		if (h[1] > lo) {
			sum += h[1] - lo;
			end = h[1];
		}
	});
	searching = true;
	searchBtn.classList.add("show");
	searchBtn.textContent = "Reset Search";
	matched.textContent = "Matched: " + (100 * sum / cfg.total).toFixed(1) + "%";
}

function resetSearch() {
	frames.forEach(function (f) {
		if (f.fill) f.rect.setAttribute("fill", f.fill);
		f.fill = null;
	});
	searching = false;
	searchBtn.classList.remove("show");
	searchBtn.textContent = "Search";
	matched.textContent = " ";
}
