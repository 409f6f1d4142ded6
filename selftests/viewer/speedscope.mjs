// SPDX-License-Identifier: GPL-2.0-only
//
// speedscope.mjs - the speedscope viewer of viewer.mjs: speedscope (npm
// package speedscope, its release build) opens the trace through its
// Chrome trace importer (#profileURL=), and its own "Export" of what it
// imported (speedscope's file format: frames, and per track "O"/"C"
// events with times in µs from the track's first slice) is downloaded
// and compared with expect.mjs. speedscope shows slices only: no flows,
// counters or instants. No state.
import fs from 'node:fs';
import * as X from './expect.mjs';

export const id = 'speedscope';
export const traces = ['basic'];	// slices only: the loss trace has none to show

export function title(env) {
	return `speedscope ${env.version('speedscope')}`;
}

// @file opened in speedscope: the profile it exports, or throws
export async function load(env, file) {
	env.version('speedscope');
	return env.withPage(async (page, errors) => {
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
			return JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
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
