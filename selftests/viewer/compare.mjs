// SPDX-License-Identifier: GPL-2.0-only
//
// compare.mjs - the checks shared by the viewers that import the whole
// trace model (perfetto.mjs, catapult.mjs): what a viewer imported, put
// in one shape by its module, against a trace of expect.mjs. The shape:
//   { pageErrors: [text], warnings: [the importer's warnings, text],
//     processes: [[pid, name]], threads: [[pid, tid, name]],
//     slices: [{ pid, tid, name, cat, ts, dur, depth, args }] (a dur
//       may be the slice's durMin or durMax: expect.mjs's durOk()),
//     flows: [{ src, dst }] (slice names),
//     counters: [{ pid, name, key, samples: [[ts, value]] }] (key null:
//       the viewer names the track "NAME KEY"),
//     instants: [{ scope, pid, tid, name, ts, args }] }
// with times in ns. No state.
import * as X from './expect.mjs';

// An arg as imported equals the one written (a bool may become 0/1)
const same = (a, b) => a === b || (typeof b === 'boolean' && a === Number(b));
const argsOk = (want, have) =>
	!want || Object.entries(want).every(([k, v]) => same(have && have[k], v));

// @c(cond, what) for each check of @got against @trace; times equal
// within @tol ns. @pArgs false: a viewer known to drop the args of
// process-scoped instant events (whose name and time are still checked)
export function compare(trace, got, c, tol, pArgs = true) {
	const eq = (a, b) => Math.abs(a - b) <= tol;
	c(got.pageErrors.length === 0, `no error in the page: ${got.pageErrors.join('; ')}`);
	c(got.warnings.length === 0, `no import warning: ${JSON.stringify(got.warnings)}`);
	const procs = new Map(got.processes);
	c([...trace.processes].every(([pid, name]) => procs.get(pid) === name),
	  `processes named: ${JSON.stringify(got.processes)}`);
	c(trace.threads.every(t => got.threads.some(g => g[0] === t.pid &&
				g[1] === t.tid && g[2] === t.name)),
	  `threads named: ${JSON.stringify(got.threads)}`);
	c(got.slices.length === trace.slices.length,
	  `${trace.slices.length} slices: ${got.slices.length}`);
	// a check per slice, or for a long trace one for all of them
	const bad = [];
	for (const w of trace.slices) {
		const s = got.slices.find(g => g.name === w.name && g.pid === w.pid &&
					  g.tid === w.tid && eq(g.ts, w.ts));
		const near = got.slices.filter(g => g.name === w.name).slice(0, 4)
			.map(g => `ts ${g.ts} dur ${g.dur} depth ${g.depth} on ${g.pid}/${g.tid}`);
		const ok = s && X.durOk(s.dur, w, tol) && s.depth === w.depth &&
			   s.cat === w.cat && argsOk(w.args, s.args);
		const what = `slice ${w.name}: ts ${w.ts} dur ${w.dur} ns, depth ${w.depth} on ${w.pid}/${w.tid}` +
		  (w.args ? `, args ${JSON.stringify(w.args)}` : '') + ': ' +
		  (s ? `dur ${s.dur} depth ${s.depth} cat ${s.cat}, args ${JSON.stringify(s.args)}` :
		   `none at that time; ${near.join(', ') || 'none of that name'}`);
		if (trace.slices.length <= 20)
			c(ok, what);
		else if (!ok)
			bad.push(what);
	}
	if (trace.slices.length > 20)
		c(bad.length === 0, `each of the ${trace.slices.length} slices at its ts, ` +
		  `with its dur, depth, category and args: ` +
		  (bad.length ? `${bad.length} not: ${bad.slice(0, 3).join('; ')}` : 'all'));
	c(X.flowsOk(trace.flows, got.flows), X.flowsWhat(trace, got.flows));
	for (const w of trace.counters) {
		const s = got.counters.find(g => g.pid === w.pid &&
			(g.key === null ? g.name === `${w.name} ${w.key}` :
			 g.name === w.name && g.key === w.key));
		c(s && s.samples.length === w.samples.length &&
		  s.samples.every((x, i) => eq(x[0], w.samples[i][0]) &&
				  x[1] === w.samples[i][1]),
		  `counter ${w.name} (${w.key}): ${JSON.stringify(w.samples)}: ${JSON.stringify(s && s.samples)}`);
	}
	c(got.instants.length === trace.instants.length,
	  `${trace.instants.length} instant events: ${got.instants.length}`);
	for (const w of trace.instants) {
		const s = got.instants.find(g => g.name === w.name && g.pid === w.pid &&
					    eq(g.ts, w.ts));
		c(s && s.scope === w.scope && (w.scope !== 't' || s.tid === w.tid) &&
		  (argsOk(w.args, s.args) || (w.scope === 'p' && !pArgs)),
		  `instant ${w.name} (scope ${w.scope}) at ${w.ts} on ${w.pid}` +
		  (w.scope === 't' ? `/${w.tid}` : '') + ': ' +
		  (s ? `scope ${s.scope} on ${s.pid}/${s.tid}, args ${JSON.stringify(s.args)}` :
		   `none at that time; ${got.instants.filter(g => g.name === w.name).map(g => g.ts).join(', ') || 'none of that name'}`));
	}
}
