// SPDX-License-Identifier: GPL-2.0-only
//
// viewer.mjs - load a Chrome trace JSON written by `npuprof export` into
// real viewers running in headless Chromium (driven by playwright-core)
// and check what each one imported against expect.mjs: speedscope
// (speedscope.mjs), Perfetto's trace processor and UI (perfetto.mjs) and
// chrome://tracing's trace viewer, catapult (catapult.mjs). Each viewer
// is one TAP test point per trace it can show (expect.mjs), with its
// checks listed as diagnostics under it, and one for the negative
// control: a truncated file must fail to import or fail the checks.
// Prints TAP lines; run.sh prints the plan and the totals.
//
// Usage: node viewer.mjs NODE_MODULES BASIC.json LOSS.json B2B.json BAD.json
// [VIEWER...] (the exports of the basic, the loss and the back-to-back
// trace of expect.mjs, and the basic one cut in the middle)
//
// The pages are served on 127.0.0.1 by this script (an ephemeral port):
// /npm/ is NODE_MODULES, /pages/ this script's directory. Chromium runs
// without network services and with a fresh profile directory; each
// viewer's load has its own time limit.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import * as speedscope from './speedscope.mjs';
import * as perfetto from './perfetto.mjs';
import * as catapult from './catapult.mjs';
import * as X from './expect.mjs';

const [nodeModules, basicPath, lossPath, b2bPath, badPath] = process.argv.slice(2, 7)
	.map(p => path.resolve(p));
const only = process.argv.slice(7);
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(nodeModules, 'x.js'));
const { chromium } = require('playwright-core');
const viewers = [speedscope, perfetto, catapult]
	.filter(v => !only.length || only.includes(v.id));

let n = 0, failed = 0;

// One test point from @checks ({ok, what}); the failures in its title
function point(title, checks, ms) {
	const bad = checks.filter(c => !c.ok);
	n++;
	if (bad.length)
		failed++;
	const head = bad.length ?
		`${bad.length} of ${checks.length} checks failed: ` +
		bad.slice(0, 2).map(c => c.what).join('; ') +
		(bad.length > 2 ? '; ...' : '') :
		`${checks.length} checks passed`;
	console.log(`${bad.length ? 'not ok' : 'ok'} ${n} ${title}: ${head} (${(ms / 1000).toFixed(1)} s)`);
	for (const c of checks)
		console.log(`#   ${c.ok ? 'ok' : 'NOT OK'} - ${c.what}`);
}

const types = { '.html': 'text/html', '.js': 'text/javascript',
		'.css': 'text/css', '.json': 'application/json',
		'.wasm': 'application/wasm', '.woff2': 'font/woff2',
		'.png': 'image/png' };
const files = { '/basic.json': basicPath, '/loss.json': lossPath,
		'/b2b.json': b2bPath, '/bad.json': badPath };
const roots = { '/npm/': nodeModules, '/pages/': here };

function resolve(pathname) {
	if (files[pathname])
		return files[pathname];
	for (const [prefix, dir] of Object.entries(roots)) {
		if (!pathname.startsWith(prefix))
			continue;
		const p = path.join(dir, path.normalize(decodeURIComponent(
			pathname.slice(prefix.length - 1))));
		if (p.startsWith(dir + path.sep) && fs.existsSync(p) &&
		    !fs.statSync(p).isDirectory())
			return p;
	}
	return null;
}

const server = http.createServer((req, res) => {
	const p = resolve(new URL(req.url, 'http://x').pathname);
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
	viewport: { width: 1400, height: 900 },
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic',
	       '--no-first-run', '--disable-background-networking',
	       '--disable-component-update', '--disable-sync'],
	timeout: 30000,
});

// What a viewer module gets: the browser, the server, the files
const env = {
	browser, base, nodeModules, files,
	// the version of npm package @name, or throws saying how to get it
	version(name) {
		const f = path.join(nodeModules, name, 'package.json');
		if (!fs.existsSync(f))
			throw new Error(`${f} missing: install the pinned packages with npm ci (run.sh does)`);
		return JSON.parse(fs.readFileSync(f, 'utf8')).version;
	},
	// @fn(page, errors) on a new page, @errors its uncaught exceptions
	async withPage(fn) {
		const page = await browser.newPage();
		const errors = [];
		page.on('pageerror', e => errors.push(String(e).split('\n')[0]));
		try {
			return await fn(page, errors);
		} finally {
			await page.close();
		}
	},
};

// Load @file into @v and run its checks against @trace of expect.mjs;
// the checks and whether it loaded
async function run(v, file, trace) {
	const checks = [];
	const c = (cond, what) => {
		checks.push({ ok: !!cond, what });
		return !!cond;
	};
	let loaded = false;
	try {
		const got = await v.load(env, file);
		loaded = true;
		v.check(trace, got, c);
	} catch (e) {
		c(false, `${v.id} ${loaded ? 'imported' : 'did not import'} ${file}: ` +
		  (loaded ? 'the checks failed: ' : '') + String(e.message || e).split('\n')[0]);
	}
	return { checks, loaded };
}

try {
	for (const v of viewers) {
		let title;
		try {
			title = v.title(env);
		} catch (e) {
			point(v.id, [{ ok: false, what: e.message }], 0);
			continue;
		}
		let t;
		for (const id of v.traces) {
			t = Date.now();
			const good = await run(v, `/${id}.json`, X.traces[id]);
			point(`${title} imports the ${id} trace`, good.checks, Date.now() - t);
		}
		t = Date.now();
		const bad = await run(v, '/bad.json', X.basic);
		const caught = !bad.loaded || bad.checks.some(c => !c.ok);
		point(`${title}: a truncated JSON file fails to import or fails the checks (the checks can fail)`,
		      [{ ok: caught, what: bad.loaded ?
			 `imported, ${bad.checks.filter(c => !c.ok).length} checks failed` :
			 'rejected: ' + bad.checks[0].what }],
		      Date.now() - t);
	}
} finally {
	await browser.close();
	server.close();
	fs.rmSync(userDir, { recursive: true, force: true });
}
console.log(`# viewer checks: ${n - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
