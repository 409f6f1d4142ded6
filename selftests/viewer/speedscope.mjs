// SPDX-License-Identifier: GPL-2.0-only
//
// speedscope.mjs - the speedscope viewer of viewer.mjs: speedscope (npm
// package speedscope, its release build) opens the trace through its
// Chrome trace importer (#profileURL=), and its own "Export" of what it
// imported (speedscope's file format: frames, and per track "O"/"C"
// events with times in µs from the track's first slice) is downloaded
// and compared with expect.mjs, as are the warnings its importer prints
// on the console (a slice ended when another was on top of the stack, or
// still open at the end: slices that do not nest as written). speedscope
// shows slices only: no flows, counters or instants. No state.
import fs from 'node:fs';
import * as X from './expect.mjs';

export const id = 'speedscope';
// slices only: the loss trace has none to show
export const traces = ['basic', 'b2b'];

export function title(env) {
	return `speedscope ${env.version('speedscope')}`;
}

// What speedscope's Chrome importer warns about (Chromium's own console
// messages, e.g. of WebGL, are not its)
const IMPORT_WARNING = /Tried to end|still open|stack was empty/;

// @file opened in speedscope: the profile it exports, with the import's
// warnings in .importWarnings, or throws
export async function load(env, file) {
	env.version('speedscope');
	return env.withPage(async (page, errors) => {
		const warnings = [];
		page.on('console', m => {
			if (m.type() === 'warning' && IMPORT_WARNING.test(m.text()))
				warnings.push(m.text());
		});
		// speedscope reports an import failure in an alert
		let refused;
		const refusal = new Promise((_, reject) => { refused = reject; });
		refusal.catch(() => {});
		page.on('dialog', d => {
			errors.push('dialog: ' + d.message());
			d.dismiss().catch(() => {});
			refused(new Error('speedscope refused the file'));
		});
		await page.goto(`${env.base}/npm/speedscope/dist/release/index.html#profileURL=${encodeURIComponent(env.base + file)}`);
		const exp = page.getByText('Export', { exact: false }).first();
		try {
			await Promise.race([exp.waitFor({ timeout: 30000 }), refusal]);
			const [dl] = await Promise.all([
				page.waitForEvent('download', { timeout: 10000 }),
				exp.click(),
			]);
			const sp = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
			sp.importWarnings = warnings;
			return sp;
		} catch (e) {
			const text = await page.evaluate(() => document.body.innerText).catch(() => '');
			throw new Error([String(e).split('\n')[0], ...errors,
					 'page: ' + text.slice(0, 200).replace(/\n/g, ' ')].join('; '));
		}
	});
}

// Per profile (track): every frame's name and open/close times
function intervals(sp, prof) {
	const out = [], open = [];
	for (const e of prof.events) {
		if (e.type === 'O') {
			open.push(e);
		} else {
			const o = open.pop();
			out.push({ name: sp.shared.frames[o.frame].name,
				   start: o.at, end: e.at, depth: open.length });
		}
	}
	return out;
}

const close = (a, b, eps) => Math.abs(a - b) <= eps;
const us = ns => ns / 1000;

export function check(trace, sp, c) {
	const w = sp.importWarnings;
	c(w.length === 0, `no import warning: ${w.length ? `${w.length}: ${w.slice(0, 2).join('; ')}` : 'none'}`);
	if (trace.id === 'b2b')
		return checkB2b(trace, sp, c);
	const profs = sp.profiles;
	const byName = s => profs.find(p => p.name.includes(s));
	c(profs.length === 4, `4 tracks with slices (thread, PE, queue, capture): ${JSON.stringify(profs.map(p => p.name))}`);
	const host = byName(`npu-classify (pid ${X.PID_HOST}), worker (tid 101)`);
	const pe = byName(`npu3 (pid ${X.PID_NPU}), PE 1 (tid 2)`);
	const q = byName('queue 0');
	c(!!host, 'the host thread is named after its process and thread');
	c(!!pe, 'the PE track is named after its device and PE');
	c(!!q, 'the queue track is there');
	if (host) {
		const iv = intervals(sp, host);
		const f = s => iv.find(i => i.name.startsWith(s + ' '));
		c(iv.length === 4, `4 host spans: ${iv.length}`);
		const lab = f('warm up'), inf = f('inference'),
		      sub = f('submit'), wait = f('wait');
		if (c(lab && inf && sub && wait, 'label, inference, submit and wait spans')) {
			c(lab.depth === 0 && inf.depth === 1 &&
			  sub.depth === 2 && wait.depth === 2,
			  'nesting: label > inference > submit, wait');
			// speedscope's times start at the track's first slice
			const e = X.slice(X.basic, 'inference'), l = X.slice(X.basic, 'warm up');
			c(close(inf.start - lab.start, us(e.ts - l.ts), 1e-6) &&
			  close(inf.end - inf.start, us(e.dur), 1e-6),
			  `inference 0.500 us after the label, for 700 us: ${inf.start - lab.start} ${inf.end - inf.start}`);
			c(close(sub.end - sub.start, us(X.slice(X.basic, 'submit').dur), 1e-6),
			  `submit lasts 2.001 us (ns precision): ${sub.end - sub.start}`);
			c(sub.name.includes(`"trace_id":"${X.slice(X.basic, 'submit').args.trace_id}"`) &&
			  sub.name.includes('"job_id":7'),
			  'the ids are in the args');
		}
	}
	if (pe) {
		const iv = intervals(sp, pe);
		const ex = iv.find(i => i.name.startsWith('exec '));
		const ops = iv.filter(i => i.depth === 1);
		c(iv.length === 3 && !!ex, `an execution and 2 operators on PE 1: ${iv.length}`);
		if (ex) {
			c(close(ex.end - ex.start, us(X.slice(X.basic, 'exec').dur), 0.01),
			  `the execution lasts 500 us: ${ex.end - ex.start}`);
			const a = JSON.parse(ex.name.slice(5));
			const w = X.slice(X.basic, 'exec').args;
			c(a.run_ns + a.iowait_ns === a.total_ns &&
			  a.run_ns === w.run_ns && a.dma_bytes === w.dma_bytes,
			  'its args: run + iowait == total, dma_bytes');
			c(ops.length === 2 && ops[0].name.startsWith('CONV2D ') &&
			  ops[1].name.startsWith('ADD ') &&
			  ops.every(o => o.start >= ex.start && o.end <= ex.end),
			  'CONV2D and ADD nested in the execution');
		}
	}
}

// The back-to-back trace: on each PE, its executions with their operators
// nested in them, one after the other, each where and as long as written
// (an operator may be up to 1 ns short: expect.mjs's durOk())
function checkB2b(trace, sp, c) {
	for (let pe = 0; pe < trace.pes; pe++) {
		const tid = 1 + pe;
		const prof = sp.profiles.find(p =>
			p.name.includes(`npu0 (pid ${X.PID_NPU}), PE ${pe} (tid ${tid})`));
		if (!c(!!prof, `the track of PE ${pe}`))
			continue;
		const iv = intervals(sp, prof).sort((a, b) => a.start - b.start || b.end - a.end);
		const want = trace.slices.filter(s => s.pid === X.PID_NPU && s.tid === tid);
		c(iv.length === want.length, `PE ${pe}: ${want.length} slices: ${iv.length}`);
		// speedscope's times are µs from the track's first slice
		const t0 = want[0].ts;
		const bad = [];
		let exec, prev;
		want.forEach((w, i) => {
			const g = iv[i];
			if (!g)
				return;
			const what = `${w.name} ${w.args.job_id}/${w.args.op_index ?? '-'}`;
			if (!g.name.startsWith(w.name + ' ') || g.depth !== w.depth)
				bad.push(`${what}: ${g.name.slice(0, 40)} at depth ${g.depth}`);
			else if (!close(g.start, us(w.ts - t0), 1e-3) ||
				 !X.durOk((g.end - g.start) * 1000, w, 0.5))
				bad.push(`${what}: ${g.start} to ${g.end}`);
			if (w.depth === 0) {
				exec = g;
				prev = undefined;
				return;
			}
			if (exec && (g.start < exec.start || g.end > exec.end))
				bad.push(`${what} not inside its execution`);
			if (prev && g.start < prev.end)
				bad.push(`${what} starts before the operator before it ends`);
			prev = g;
		});
		c(bad.length === 0, `PE ${pe}: each execution, then its operators inside it, ` +
		  `one after the other: ${bad.length ? bad.slice(0, 3).join('; ') : 'yes'}`);
	}
}
