// SPDX-License-Identifier: GPL-2.0-only
//
// viewer.mjs - load a Chrome trace JSON written by `npuprof export` into
// a real viewer, speedscope (its Chrome trace importer, from the npm
// registry), running in headless Chromium driven by playwright-core, and
// check what the viewer imported: speedscope's own "Export" of the
// imported profile (its file format: frames, and per track "O"/"C" events
// with times in µs) is downloaded and compared with what the trace holds.
// A malformed file must fail to import. Prints TAP lines; run.sh prints
// the plan and the totals.
//
// Usage: node viewer.mjs NODE_MODULES GOOD.json BAD.json
//
// The pages are served on 127.0.0.1 by this script (an ephemeral port);
// Chromium runs without network services (the flags of the machine notes)
// and with a fresh profile directory. Everything stops within 60 s.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [nodeModules, goodPath, badPath] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, 'x.js'));
const { chromium } = require('playwright-core');
const release = path.join(nodeModules, 'speedscope', 'dist', 'release');

let n = 0, failed = 0;
function ok(cond, what) {
	n++;
	if (!cond)
		failed++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} ${what}`);
	return cond;
}

const types = { '.html': 'text/html', '.js': 'text/javascript',
		'.css': 'text/css', '.json': 'application/json',
		'.wasm': 'application/wasm' };
const files = { '/good.json': goodPath, '/bad.json': badPath };
const server = http.createServer((req, res) => {
	const url = new URL(req.url, 'http://x');
	let p = files[url.pathname];
	if (!p) {
		p = path.join(release, path.normalize(url.pathname));
		if (!p.startsWith(release) || !fs.existsSync(p) ||
		    fs.statSync(p).isDirectory())
			p = null;
	}
	if (!p) {
		res.writeHead(404);
		res.end();
		return;
	}
	res.writeHead(200, { 'content-type': types[path.extname(p)] ||
			     'application/octet-stream' });
	fs.createReadStream(p).pipe(res);
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'npuprof-viewer-'));
const browser = await chromium.launchPersistentContext(userDir, {
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	headless: true,
	acceptDownloads: true,
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic',
	       '--no-first-run', '--disable-background-networking',
	       '--disable-component-update', '--disable-sync'],
	timeout: 30000,
});

// Open @file in speedscope; the imported profile as speedscope exports it
async function load(file) {
	const page = await browser.newPage();
	const errors = [];
	page.on('pageerror', e => errors.push(String(e)));
	page.on('dialog', d => { errors.push('dialog: ' + d.message()); d.dismiss(); });
	await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(base + file)}`);
	const exp = page.getByText('Export', { exact: false }).first();
	let profile = null;
	try {
		await exp.waitFor({ timeout: 10000 });
		const [dl] = await Promise.all([
			page.waitForEvent('download', { timeout: 10000 }),
			exp.click(),
		]);
		profile = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
	} catch (e) {
		errors.push(String(e).split('\n')[0]);
	}
	const text = await page.evaluate(() => document.body.innerText).catch(() => '');
	await page.close();
	return { profile, errors, text };
}

// Per profile (track): its name and every frame's open/close times
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

try {
	const good = await load('/good.json');
	if (!ok(good.profile !== null, 'speedscope imports the exported trace and exports its profile back')) {
		console.log('# ' + good.errors.join('\n# '));
		console.log('# page: ' + good.text.slice(0, 300).replace(/\n/g, ' '));
	} else {
		const sp = good.profile, profs = sp.profiles;
		const byName = s => profs.find(p => p.name.includes(s));
		const names = profs.map(p => p.name);
		console.log('# tracks: ' + JSON.stringify(names));
		ok(profs.length === 4, `4 tracks with slices (thread, PE, queue, capture): ${profs.length}`);
		const host = byName('npu-classify (pid 100), worker (tid 101)');
		const pe = byName('npu3 (pid 1073741824), PE 1 (tid 2)');
		const q = byName('queue 0');
		ok(!!host, 'the host thread is named after its process and thread');
		ok(!!pe, 'the PE track is named after its device and PE');
		ok(!!q, 'the queue track is there');
		if (host) {
			const iv = intervals(sp, host);
			const f = s => iv.find(i => i.name.startsWith(s + ' '));
			ok(iv.length === 4, `4 host spans: ${iv.length}`);
			const lab = f('warm up'), inf = f('inference'),
			      sub = f('submit'), wait = f('wait');
			ok(lab && inf && sub && wait, 'label, inference, submit and wait spans');
			if (lab && inf && sub && wait) {
				ok(lab.depth === 0 && inf.depth === 1 &&
				   sub.depth === 2 && wait.depth === 2,
				   'nesting: label > inference > submit, wait');
				// speedscope's times start at the track's first slice
				ok(close(inf.start - lab.start, 0.5, 1e-6) &&
				   close(inf.end - inf.start, 700, 1e-6),
				   `inference 0.500 us after the label, for 700 us: ${inf.start - lab.start} ${inf.end - inf.start}`);
				ok(close(sub.end - sub.start, 2.001, 1e-6),
				   `submit lasts 2.001 us (ns precision): ${sub.end - sub.start}`);
				ok(sub.name.includes('"trace_id":"0123456789abcdeffedcba9876543210"') &&
				   sub.name.includes('"job_id":7'),
				   'the ids are in the args');
			}
		}
		if (pe) {
			const iv = intervals(sp, pe);
			const ex = iv.find(i => i.name.startsWith('exec '));
			const ops = iv.filter(i => i.depth === 1);
			ok(iv.length === 3 && !!ex, `an execution and 2 operators on PE 1: ${iv.length}`);
			if (ex) {
				ok(close(ex.end - ex.start, 500, 0.01),
				   `the execution lasts 500 us: ${ex.end - ex.start}`);
				const a = JSON.parse(ex.name.slice(5));
				ok(a.run_ns + a.iowait_ns === a.total_ns &&
				   a.run_ns === 375000 && a.dma_bytes === 1000000,
				   'its args: run + iowait == total, dma_bytes');
				ok(ops.length === 2 && ops[0].name.startsWith('CONV2D ') &&
				   ops[1].name.startsWith('ADD ') &&
				   ops.every(o => o.start >= ex.start && o.end <= ex.end),
				   'CONV2D and ADD nested in the execution');
			}
		}
	}
	const bad = await load('/bad.json');
	ok(bad.profile === null,
	   'a truncated JSON file fails to import (the check can fail)');
} finally {
	await browser.close();
	server.close();
	fs.rmSync(userDir, { recursive: true, force: true });
}
console.log(`# viewer checks: ${n - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
