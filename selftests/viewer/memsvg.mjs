// SPDX-License-Identifier: GPL-2.0-only
//
// memsvg.mjs - the memory_flow SVG of `npuprof export --format memory-svg`
// in headless Chromium (Debian's, driven by the playwright-core that
// viewer.mjs uses): the browser parses and renders the file, one
// rectangle per buffer, each inside its device's plot area, at least
// 1 px wide and high, each with its tooltip (<title>: owner, size,
// times); a hovered buffer is outlined. A screenshot of the whole image
// goes to the PNG path given. One TAP point per file, numbered from
// FIRST. No state.
//
// The file is parsed as XML by the browser's DOMParser (image/svg+xml:
// strict, as a browser opening the file does) and shown inline in a page
// (Chromium's screenshot waits on document.fonts, which an SVG document
// lacks).
//
// Usage: node memsvg.mjs NODE_MODULES FIRST SVG PNG RECTS [SVG PNG RECTS...]
// The file "memory.svg" is memory_gen.h's trace (test_memory.c): its
// buffer 3 of device 0 must be where the C test computed it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [nodeModules, first, ...rest] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(nodeModules), 'x.js'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	headless: true,
	args: ['--no-sandbox', '--disable-gpu', '--no-first-run',
	       '--disable-background-networking', '--disable-component-update'],
	timeout: 30000,
});
let n = Number(first) - 1, failed = 0;

for (let i = 0; i + 2 < rest.length; i += 3) {
	const [svg, png, want] = [path.resolve(rest[i]), path.resolve(rest[i + 1]),
				  Number(rest[i + 2])];
	const t0 = Date.now();
	const checks = [];
	const check = (ok, what) => checks.push({ ok: !!ok, what });
	const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
	const errors = [];
	page.on('pageerror', e => errors.push(String(e)));
	try {
		const text = fs.readFileSync(svg, 'utf8');
		await page.setContent('<!DOCTYPE html><html><body style="margin:0">' +
				      text.replace(/^<\?xml[^>]*>\s*/, '') + '</body></html>');
		const r = await page.evaluate((text) => {
			const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
			const root = doc.querySelector('parsererror') ? null :
				     doc.documentElement;
			const rects = [...document.querySelectorAll('rect.bo')];
			const plots = {};
			for (const g of document.querySelectorAll('g.panel')) {
				const p = g.querySelector('rect.plot').getBBox();
				plots[g.id.replace('dev', '')] = p;
			}
			const out = { root: root ? root.nodeName : 'parsererror', n: rects.length,
				      titled: 0, visible: 0, inside: 0, b3: null,
				      fails: document.querySelectorAll('g.buffers path.fail').length,
				      legend: document.querySelectorAll('g.legend rect').length };
			for (const e of rects) {
				const t = e.querySelector('title');
				if (t && /owner: pid -?\d+, tid -?\d+/.test(t.textContent) &&
				    /bytes\) at 0x/.test(t.textContent) &&
				    /allocated .*, (freed|live at the end)/.test(t.textContent))
					out.titled++;
				const c = e.getBoundingClientRect();
				if (c.width >= 1 && c.height >= 1)
					out.visible++;
				const dev = e.getAttribute('data-dev');
				const b = e.getBBox(), p = plots[dev];
				if (p && b.x >= p.x - 1e-6 && b.y >= p.y - 1e-6 &&
				    b.x + b.width <= p.x + p.width + 1 &&
				    b.y + b.height <= p.y + p.height + 1)
					out.inside++;
				if (dev === '0' && e.getAttribute('data-bo') === '3')
					out.b3 = { x: b.x, y: b.y, w: b.width, h: b.height,
						   title: t ? t.textContent : '' };
			}
			return out;
		}, text);
		check(r.root === 'svg', `the file parses as an SVG document (${r.root})`);
		check(r.n === want, `${want} buffer rectangles (got ${r.n})`);
		check(r.titled === r.n, `every buffer has its tooltip (${r.titled} of ${r.n})`);
		check(r.visible === r.n, `every buffer is rendered at least 1 px (${r.visible} of ${r.n})`);
		check(r.inside === r.n, `every buffer lies in its device's plot (${r.inside} of ${r.n})`);
		check(r.legend === 5, `a legend of the 5 kinds (${r.legend})`);
		if (path.basename(svg) === 'memory.svg') {
			const b = r.b3 || {};
			check(b.x === 316 && b.y === 270 && b.w === 432 && b.h === 160,
			      `buffer 3 at (316, 270), 432 x 160 as computed by hand (${JSON.stringify(b)})`);
			check(/pid 100, tid 101/.test(b.title || '') && /128 KiB/.test(b.title || ''),
			      'buffer 3 tooltip: owner 100/101, 128 KiB');
			check(r.fails === 2, `2 failed allocations marked (${r.fails})`);
			await page.hover('rect.bo[data-dev="0"][data-bo="3"]');
			const sw = await page.$eval('rect.bo[data-dev="0"][data-bo="3"]',
						    e => getComputedStyle(e).strokeWidth);
			check(sw === '1.5px', `a hovered buffer is outlined (stroke ${sw})`);
		}
		await page.screenshot({ path: png, fullPage: true });
		check(true, `screenshot in ${png}`);
		check(!errors.length, `no page error (${errors.join('; ')})`);
	} catch (e) {
		check(false, String(e).split('\n')[0]);
	} finally {
		await page.close();
	}
	const bad = checks.filter(c => !c.ok);
	n++;
	if (bad.length)
		failed++;
	console.log(`${bad.length ? 'not ok' : 'ok'} ${n} memory-svg ${path.basename(svg)}: ` +
		    (bad.length ? `${bad.length} of ${checks.length} checks failed: ${bad[0].what}` :
		     `${checks.length} checks passed`) +
		    ` (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
	for (const c of checks)
		console.log(`#   ${c.ok ? 'ok' : 'NOT OK'} - ${c.what}`);
}
await browser.close();
process.exit(failed ? 1 : 0);
