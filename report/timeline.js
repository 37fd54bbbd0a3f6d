/* gpuprof HTML report: zoom and pan of the timeline (report/timeline.c), inlined into the report. The plot
 * is a nested <svg class="tlp"> whose viewBox is the time window shown: this changes that viewBox,
 * relabels the axis and moves the range names. Without script the page shows the whole session. */
document.querySelectorAll('div.tl').forEach(function (tl) {
	var s = tl.querySelector('svg.tlc'), p = s.querySelector('svg.tlp');
	var nf = +p.getAttribute('data-nf'), span = +p.getAttribute('data-span'), px = +p.getAttribute('x'),
		pw = +p.getAttribute('width'), h = p.viewBox.baseVal.height, a = 0, w = nf, drag = null;
	var ticks = s.querySelectorAll('g.ax text'), names = s.querySelectorAll('svg.lb');
	function fmt(ns) {	/* as the report's tables write times */
		var v = Math.abs(ns);
		return v < 1e3 ? ns.toFixed(0) + ' ns' : v < 1e6 ? (ns / 1e3).toFixed(3) + ' us' :
			v < 1e9 ? (ns / 1e6).toFixed(3) + ' ms' : (ns / 1e9).toFixed(3) + ' s';
	}
	function show(na, nw) {	/* the window [na, na + nw) in plot units, kept inside the session */
		w = Math.min(nf, Math.max(pw, nw));
		a = Math.min(nf - w, Math.max(0, na));
		p.setAttribute('viewBox', a + ' 0 ' + w + ' ' + h);
		ticks.forEach(function (t, i) { t.textContent = '+' + fmt((a + w * i / 4) / nf * span); });
		names.forEach(function (n) {
			var x0 = Math.max(0, (n.dataset.a - a) / w * pw), x1 = Math.min(pw, (n.dataset.b - a) / w * pw);
			if (x1 - x0 < 24)
				return n.setAttribute('display', 'none');
			n.removeAttribute('display');
			n.setAttribute('x', px + x0);
			n.setAttribute('width', x1 - x0);
		});
	}
	function at(e) {	/* the pointer's place across the plot, 0 to 1 */
		var r = s.getBoundingClientRect(), x = (e.clientX - r.left) * s.viewBox.baseVal.width / r.width;
		return Math.min(1, Math.max(0, (x - px) / pw));
	}
	function zoom(z, f) { show(a + w * f - w / z * f, w / z); }
	s.addEventListener('wheel', function (e) {
		if (e.ctrlKey || e.metaKey) {
			e.preventDefault();
			zoom(e.deltaY < 0 ? 1.5 : 1 / 1.5, at(e));
		} else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
			e.preventDefault();
			show(a + e.deltaX / pw * w, w);
		}
	}, { passive: false });
	s.addEventListener('pointerdown', function (e) { drag = { f: at(e), a: a }; });
	s.addEventListener('pointermove', function (e) { if (drag) show(drag.a - (at(e) - drag.f) * w, w); });
	['pointerup', 'pointerleave'].forEach(function (k) { s.addEventListener(k, function () { drag = null; }); });
	s.addEventListener('dblclick', function () { show(0, nf); });
	tl.querySelectorAll('button').forEach(function (b) {
		b.addEventListener('click', function () { if (b.value) zoom(+b.value, 0.5); else show(0, nf); });
	});
	tl.querySelector('.tlbar').hidden = false;
	tl.classList.add('live');
});
