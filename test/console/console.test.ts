// The web console, end to end in a real Chromium against a real server: sign in, create
// an index, upsert through the API, browse, query with a filter, open the map, back up
// and restore, configure, delete — asserting what the page shows against what the API
// says. Screenshots of each screen land in test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { api, startServer, type TestServer } from '../helpers/server.js';
import { prng } from '../helpers/prng.js';
import { launchBrowser, type Browser } from './browser.js';

const GENRES = ['drama', 'comedy', 'horror'];
const DIM = 8;
const FILMS = 60;

/** 60 records in three clusters (one per genre), so the map has something to show. */
function films(): { id: string; values: number[]; metadata: Record<string, string | number> }[] {
  const rand = prng(17);
  return Array.from({ length: FILMS }, (_, i) => {
    const g = i % GENRES.length;
    const values = Array.from({ length: DIM }, (_v, j) => (j === g ? 3 : 0) + (rand() - 0.5));
    return { id: `m-${String(i).padStart(2, '0')}`, values, metadata: { genre: GENRES[g], year: 1990 + i } };
  });
}

async function signIn(page: Page, server: TestServer, key: string): Promise<void> {
  await page.goto(`${server.url}/console`);
  // Keyboard only: the field has a real label, Enter submits.
  await page.getByLabel('API key').focus();
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
}

/** Bounded wait for an API condition (restores and copies finish in the background). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/**
 * Runs a step; when it fails, fails with what the page showed instead of only the locator's
 * timeout (the "more like this" test timed out twice in a dozen full-suite runs waiting for
 * a Browse id button, never reproduced alone; the next failure showed Browse listing the
 * default namespace, which namespacePicker() below addresses).
 */
async function explained(page: Page, browser: Browser, step: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const text = await page.locator('main').innerText().catch((e: unknown) => `(no page text: ${String(e)})`);
    await browser.screenshot(`failed-${step.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
    assert.fail(`${step}: ${err instanceof Error ? err.message : String(err)}\nurl ${page.url()}\npage text:\n${text.slice(0, 2000)}`);
  }
}

/**
 * The Namespace picker of one view. Browse, Query and Map each have one, all labelled
 * "Namespace": right after a click on another view's link, the label can still find the
 * previous view's picker, and selecting there changed nothing in the view the test meant
 * (the Browse steps failed so about once in a dozen full-suite runs, listing the default
 * namespace). Each view's picker has its own id, so this waits for the right one.
 */
function namespacePicker(page: Page, view: 'browse' | 'query' | 'map'): Locator {
  return page.locator(`select#${{ browse: 'browse-ns', query: 'q-ns', map: 'map-ns' }[view]}`);
}

describe('web console in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let host = '';

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('a wrong key is refused with a clear message and is not kept', async () => {
    await signIn(page, server, 'not-a-real-key');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.innerText(), 'The server refused the API key: Invalid API key. (401 UNAUTHENTICATED)');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await browser.screenshot('01-sign-in-wrong-key');
  });

  test('signing in shows the (empty) index list; the key stays out of the URL', async () => {
    await signIn(page, server, server.apiKey);
    await page.getByText('This project has no indexes yet.').waitFor();
    assert.ok(!page.url().includes(server.apiKey));
    assert.equal(await page.evaluate(() => sessionStorage.getItem('conifer.apiKey')), server.apiKey);
  });

  test('create: the API error is shown next to its field, then the index is created', async () => {
    await page.getByRole('link', { name: 'Create index' }).click();
    await page.getByLabel('Name').fill('movies');
    await page.getByLabel('Dimension').fill('0');
    await page.getByRole('button', { name: 'Create index' }).click();
    const fieldError = page.locator('#ci-dimension-error');
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /^dimension must be between 1 and 20000, got 0 \(400 INVALID_ARGUMENT\)$/);
    await browser.screenshot('02-create-index-error');

    await page.getByLabel('Dimension').fill(String(DIM));
    await page.getByLabel('Metric').selectOption('euclidean');
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.getByRole('heading', { name: 'movies' }).waitFor();
    const described = await api(server, 'GET', '/indexes/movies');
    assert.equal(described.status, 200);
    assert.equal(described.body.dimension, DIM);
    assert.equal(described.body.metric, 'euclidean');
    host = described.body.host as string;
    assert.equal(await page.locator('dl.details').getByText(host).count(), 1);
  });

  test('records upserted through the API show in the index list per namespace', async () => {
    const up = await api(server, 'POST', `${host}/vectors/upsert`, { body: { namespace: 'films', vectors: films() } });
    assert.equal(up.status, 200, up.text);
    const other = await api(server, 'POST', `${host}/vectors/upsert`, {
      body: { vectors: [{ id: 'solo', values: Array(DIM).fill(0.5) }] },
    });
    assert.equal(other.status, 200, other.text);

    await page.getByRole('link', { name: 'Indexes' }).first().click();
    const row = page.getByRole('row', { name: /movies/ });
    await row.getByText('films: 60').waitFor();
    await row.getByText('__default__: 1').waitFor();
    assert.match(await row.innerText(), /\b8\b[\s\S]*euclidean[\s\S]*serverless aws\/us-east-1[\s\S]*Ready/);
    await browser.screenshot('03-indexes');

    // Readable on a phone: nothing wider than the screen (tables scroll inside their box).
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    await browser.screenshot('03-indexes-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  test('browse: list by prefix, page through, open, edit metadata and delete a record', async () => {
    await page.getByRole('link', { name: 'movies' }).click();
    await page.getByRole('link', { name: 'Browse' }).click();
    await namespacePicker(page, 'browse').selectOption('films');
    const ids = page.getByRole('list', { name: 'Record ids' }).getByRole('button');
    await page.getByRole('button', { name: 'm-49' }).waitFor();
    assert.equal(await ids.count(), 50);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('button', { name: 'm-59' }).waitFor();
    assert.deepEqual(await ids.allInnerTexts(), Array.from({ length: 10 }, (_, i) => `m-${50 + i}`));
    assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);

    await page.getByLabel('Id prefix').fill('m-1');
    await page.getByRole('button', { name: 'List ids' }).click();
    await page.getByRole('button', { name: 'm-10' }).waitFor();
    assert.deepEqual(await ids.allInnerTexts(), Array.from({ length: 10 }, (_, i) => `m-1${i}`));

    await page.getByRole('button', { name: 'm-13' }).click();
    const record = page.getByRole('article', { name: 'Record m-13' });
    await record.getByText('8 dimensions').waitFor();
    const meta = record.locator('table.metadata');
    assert.equal(await meta.getByRole('row', { name: /genre/ }).innerText(), 'genre\tcomedy');
    assert.equal(await meta.getByRole('row', { name: /year/ }).innerText(), 'year\t2003');
    await browser.screenshot('04-browse-record');

    await record.getByRole('button', { name: 'Edit metadata' }).click();
    await page.getByLabel('Metadata (JSON object)').fill('{"genre": "drama", "note": "edited"}');
    await record.getByRole('button', { name: 'Save metadata' }).click();
    await meta.getByRole('row', { name: /note/ }).waitFor();
    const fetched = await api(server, 'GET', `${host}/vectors/fetch?namespace=films&ids=m-13`);
    // The removed field (year) is gone: the console rewrites the record's metadata whole.
    assert.deepEqual(fetched.body.vectors['m-13'].metadata, { genre: 'drama', note: 'edited' });
    assert.equal(fetched.body.vectors['m-13'].values.length, DIM);

    await record.getByRole('button', { name: 'Delete record' }).click();
    await record.getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByRole('button', { name: 'm-12' }).waitFor();
    await page.getByRole('button', { name: 'm-13' }).waitFor({ state: 'detached' });
    const gone = await api(server, 'GET', `${host}/vectors/fetch?namespace=films&ids=m-13`);
    assert.deepEqual(gone.body.vectors, {});
  });

  test('query: the filter is checked by the server as you type; results match the API', async () => {
    await page.getByRole('link', { name: 'Query' }).click();
    await namespacePicker(page, 'query').selectOption('films');
    await page.getByLabel('Record id').fill('m-00');
    const filterState = page.locator('#q-filter-state');

    await page.getByLabel('Filter (JSON, optional)').fill('{"genre": {"$bogus": 1}}');
    await page.locator('#q-filter-state.filter-bad').getByText('$bogus').waitFor();
    const bad = await api(server, 'POST', `${host}/vectors/fetch_by_metadata`, {
      body: { namespace: 'films', filter: { genre: { $bogus: 1 } }, limit: 1 },
    });
    assert.equal(bad.status, 400);
    assert.equal(await filterState.innerText(), `${bad.body.error.message} (400 INVALID_ARGUMENT)`);

    await page.getByLabel('Filter (JSON, optional)').fill('{"genre": {"$eq": "comedy"}}');
    await page.locator('#q-filter-state.filter-ok').waitFor();
    assert.equal(await filterState.innerText(), 'Valid filter; it matches records in this namespace.');
    await page.getByLabel('topK').fill('4');
    await page.getByRole('button', { name: 'Run query' }).click();
    const rows = page.getByRole('table', { name: 'Query results' }).locator('tbody tr');
    await rows.first().waitFor();

    const expected = await api(server, 'POST', `${host}/query`, {
      body: { namespace: 'films', id: 'm-00', topK: 4, filter: { genre: { $eq: 'comedy' } }, includeMetadata: true },
    });
    assert.equal(expected.status, 200);
    assert.equal(expected.body.matches.length, 4);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.children).map((td) => (td as HTMLElement).innerText)),
    );
    assert.deepEqual(
      shown.map((r) => [r[1], r[2]]),
      expected.body.matches.map((m: { id: string; score: number }) => [m.id, String(m.score)]),
    );
    for (const r of shown) assert.match(r[3], /genre: comedy/);

    const curl = await page.locator('figure.snippet', { hasText: 'curl' }).locator('pre').innerText();
    assert.ok(curl.includes(`'${host}/query'`));
    assert.ok(curl.includes('"filter":{"genre":{"$eq":"comedy"}}'));
    assert.ok(!curl.includes(server.apiKey), 'the key is never printed');
    const client = await page.locator('figure.snippet', { hasText: 'client 8' }).locator('pre').innerText();
    assert.match(client, /pc\.index\(\{"name":"movies","host":"[^"]+","namespace":"films"\}\)/);
    await browser.screenshot('05-query');
  });

  test('"more like this" from a record queries with its vector and leaves it out', async () => {
    await page.getByRole('link', { name: 'Browse' }).click();
    await explained(page, browser, 'open m-10 in Browse', async () => {
      await namespacePicker(page, 'browse').selectOption('films');
      await page.getByRole('button', { name: 'm-10' }).click();
      await page.getByRole('link', { name: 'More like this' }).click();
    });
    assert.equal(await page.getByRole('radio', { name: 'More like this record' }).isChecked(), true);
    assert.equal(await page.getByLabel('Record id').inputValue(), 'm-10');
    await page.getByRole('button', { name: 'Run query' }).click();
    const rows = page.getByRole('table', { name: 'Query results' }).locator('tbody tr');
    await rows.first().waitFor();
    const expected = await api(server, 'POST', `${host}/query`, { body: { namespace: 'films', id: 'm-10', topK: 6 } });
    const ids = expected.body.matches.map((m: { id: string }) => m.id);
    assert.equal(ids[0], 'm-10');
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => (tr.children[1] as HTMLElement).innerText));
    assert.deepEqual(shown, ids.slice(1));
  });

  test('map: the sample is projected, coloured by a field, and a click shows the neighbours', async () => {
    await page.getByRole('link', { name: 'Map' }).click();
    await namespacePicker(page, 'map').selectOption('films');
    const caption = page.locator('p.map-caption');
    await caption.getByText('Showing 59 vectors').waitFor();
    await page.getByLabel('Colour by').selectOption('genre');
    const legend = await page.getByRole('list', { name: 'Legend' }).innerText();
    // 20 of each genre, less m-13 (a comedy, deleted above).
    assert.match(legend, /drama \(20\)/);
    assert.match(legend, /comedy \(19\)/);
    assert.match(legend, /horror \(20\)/);

    // Find a drawn point on the canvas (any non-white pixel), hover it, click it.
    const canvas = page.locator('.scatter canvas');
    const spot = await canvas.evaluate((el: HTMLCanvasElement) => {
      const g = el.getContext('2d')!;
      const { data, width, height } = g.getImageData(0, 0, el.width, el.height);
      const ratio = el.width / el.clientWidth;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const o = 4 * (y * width + x);
          if (data[o] < 200 || data[o + 1] < 200 || data[o + 2] < 200) return { x: x / ratio, y: y / ratio };
        }
      }
      return null;
    });
    assert.ok(spot, 'the map draws points');
    await canvas.hover({ position: { x: spot.x + 1, y: spot.y + 2 } });
    const tooltip = page.getByRole('tooltip');
    await tooltip.waitFor();
    const id = (await tooltip.innerText()).split(' — ')[0];
    assert.match(id, /^m-\d\d$/);
    await canvas.click({ position: { x: spot.x + 1, y: spot.y + 2 } });
    const list = page.getByRole('list', { name: 'Neighbours' });
    await list.locator('li').first().waitFor();

    const expected = await api(server, 'POST', `${host}/query`, { body: { namespace: 'films', id, topK: 11 } });
    const neighbours = expected.body.matches.map((m: { id: string }) => m.id).filter((m: string) => m !== id);
    const shown = await list.locator('li').allInnerTexts();
    assert.deepEqual(
      shown.map((t) => t.split(' ')[0]),
      neighbours.slice(0, 10),
    );
    await browser.screenshot('06-map');
  });

  test('backups: create one, restore it into a new index with progress', async () => {
    await page.getByRole('link', { name: 'Backups & collections' }).click();
    await page.getByLabel('Backup name (optional)').fill('movies-bk');
    await page.getByRole('button', { name: 'Create backup' }).click();
    const row = page.getByRole('row', { name: /movies-bk/ });
    await row.getByText('Ready').waitFor();
    assert.match(await row.innerText(), /movies-bk\tmovies\tReady\t60\t/);

    await page.getByRole('button', { name: 'Restore movies-bk' }).click();
    await page.getByLabel('New index name').fill('movies-copy');
    await page.getByRole('button', { name: 'Start restore' }).click();
    await page.getByText('Restore completed: 100%').waitFor();
    assert.equal(await page.getByRole('progressbar', { name: 'Restore progress' }).getAttribute('value'), '100');
    await browser.screenshot('07-backups');

    const copy = await api(server, 'GET', '/indexes/movies-copy');
    assert.equal(copy.status, 200);
    await until('movies-copy to be ready', async () => (await api(server, 'GET', '/indexes/movies-copy')).body.status.ready);
    const stats = await api(server, 'POST', `${copy.body.host}/describe_index_stats`, { body: {} });
    assert.deepEqual(stats.body.namespaces, {
      films: { vectorCount: 59, recordCount: 59 },
      __default__: { vectorCount: 1, recordCount: 1 },
    });
    await page.getByRole('link', { name: 'open movies-copy' }).click();
    await page.getByRole('heading', { name: 'movies-copy' }).waitFor();
  });

  test('health: live charts of requests, latency, unindexed records and memory from /metrics', async () => {
    await page.getByRole('link', { name: 'Health' }).click();
    const now = (title: string) => page.locator('figure.chart', { hasText: title }).locator('.chart-now');
    await now('Resident memory').waitFor();
    const rss = await api(server, 'GET', '/metrics');
    assert.equal(rss.status, 200);
    assert.match(rss.text, /^process_resident_memory_bytes \d+/m);
    assert.match(await now('Resident memory').innerText(), /^\d+(\.\d)? MiB$/);
    // Requests made between two scrapes show as a rate above zero, with a p95 latency.
    await until('a request rate above zero', async () => {
      await api(server, 'GET', '/indexes');
      return Number(await now('Requests per second').innerText()) > 0;
    });
    assert.match(await now('p95 latency').innerText(), /^\d+\.\d ms$/);
    await browser.screenshot('08-health');
  });

  test('configure tags and deletion protection; delete needs the typed name and no protection', async () => {
    await page.goto(`${server.url}/console/#/index/movies`);
    await page.getByLabel('Tags', { exact: true }).fill('team=search');
    await page.getByLabel('Deletion protection').selectOption('enabled');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText('Saved.').waitFor();
    const configured = await api(server, 'GET', '/indexes/movies');
    assert.deepEqual(configured.body.tags, { team: 'search' });
    assert.equal(configured.body.deletion_protection, 'enabled');

    const del = page.getByRole('button', { name: 'Delete index' });
    assert.equal(await del.isDisabled(), true);
    await page.getByLabel('Type movies to confirm').fill('movies');
    await del.click();
    const refusal = page.locator('form.danger').getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /deletion protection/i);
    assert.match(await refusal.innerText(), /\(403 FORBIDDEN\)$/);
    await browser.screenshot('09-index-overview');

    await page.getByLabel('Deletion protection').selectOption('disabled');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText('Saved.').waitFor();
    await del.click();
    await page.getByRole('heading', { name: 'Indexes' }).waitFor();
    await page.getByRole('link', { name: 'movies-copy' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'movies', exact: true }).count(), 0);
    assert.equal((await api(server, 'GET', '/indexes/movies')).status, 404);
  });

  test('a hand-edited place that is not valid URI encoding shows the API\'s 404, not a script error', async () => {
    await page.evaluate(() => {
      location.hash = '#/index/%E0%A4%A';
    });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /404/);
  });

  test('an unreachable server is a clear message, not a blank page', async () => {
    const doomed = await startServer();
    try {
      await signIn(page, doomed, doomed.apiKey);
      await page.getByText('This project has no indexes yet.').waitFor();
      await doomed.stop();
      await page.getByRole('link', { name: 'Backups & collections' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.equal(await alert.innerText(), `Cannot reach the Conifer server at ${doomed.url}. Is it running?`);
      await browser.screenshot('10-unreachable');
    } finally {
      await doomed.kill();
    }
  });

  test('no script error happened on any page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
