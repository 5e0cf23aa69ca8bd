import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Change, Metadata, StoredRecord } from '../../../src/engine/model.js';
import { RECORD_STORE_FILE, RecordStore } from '../../../src/engine/store/record-store.js';
import { prefixUpperBound } from '../../../src/engine/store/record-codec.js';
import { fillVolume, mountSmallVolume } from '../../helpers/small-volume.js';

// ---- helpers -----------------------------------------------------------------------

const dirs: string[] = [];
const stores: RecordStore[] = [];

afterEach(() => {
  for (const store of stores.splice(0)) {
    try {
      store.close();
    } catch {
      // already closed by the test
    }
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conifer-record-store-'));
  dirs.push(dir);
  return dir;
}

function openStore(dir = tempDir()): RecordStore {
  const store = RecordStore.open(dir);
  stores.push(store);
  return store;
}

/** A second, raw connection to the same file (WAL lets it read beside the store). */
function rawQuery<T>(dir: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(dir, RECORD_STORE_FILE), { readonly: true });
  try {
    return db.prepare<unknown[], T>(sql).all(...params);
  } finally {
    db.close();
  }
}

function dense(id: string, values: number[], metadata?: Metadata): StoredRecord {
  const record: StoredRecord = { id, values: Float32Array.from(values) };
  if (metadata !== undefined) record.metadata = metadata;
  return record;
}

interface PlainRecord {
  id: string;
  values?: number[];
  sparse?: { indices: number[]; values: number[] };
  metadata?: Metadata;
}

/** A comparable form (typed arrays as plain arrays; absent fields absent). */
function plain(record: StoredRecord | null | undefined): PlainRecord | null {
  if (record === null || record === undefined) return null;
  const out: PlainRecord = { id: record.id };
  if (record.values !== undefined) out.values = Array.from(record.values);
  if (record.sparse !== undefined) {
    out.sparse = { indices: Array.from(record.sparse.indices), values: Array.from(record.sparse.values) };
  }
  if (record.metadata !== undefined) out.metadata = record.metadata;
  return out;
}

function seqs(changes: readonly Change[]): number[] {
  return changes.map((change) => change.seq);
}

function assertStrictlyIncreasing(values: readonly number[]): void {
  for (let i = 1; i < values.length; i++) {
    assert.ok(values[i] > values[i - 1], `seq ${values[i]} after ${values[i - 1]}`);
  }
}

type State = Map<string, PlainRecord>; // key: ns + '\0' + id

function key(ns: string, id: string): string {
  return `${ns}\u0000${id}`;
}

function stateOf(store: RecordStore): State {
  const state: State = new Map();
  for (const { ns, record } of store.allRecords()) state.set(key(ns, record.id), plain(record) as PlainRecord);
  return state;
}

function apply(state: State, change: Change): void {
  if (change.kind === 'upsert') state.set(key(change.ns, change.record.id), plain(change.record) as PlainRecord);
  else if (change.kind === 'delete') state.delete(key(change.ns, change.id));
  else for (const k of [...state.keys()]) if (k.startsWith(`${change.ns}\u0000`)) state.delete(k);
}

// ---- opening -----------------------------------------------------------------------

test('open creates records.db with WAL, synchronous=FULL, 8 KiB pages and incremental auto-vacuum', () => {
  const dir = path.join(tempDir(), 'nested', 'index');
  const store = openStore(dir);
  assert.ok(fs.existsSync(path.join(dir, RECORD_STORE_FILE)));
  assert.deepEqual(store.pragmas(), { journalMode: 'wal', synchronous: 2, pageSize: 8192, autoVacuum: 2, journalSizeLimit: 8 * 1024 * 1024 });
  store.upsert('', [dense('a', [1])]);
  store.close();

  const reopened = openStore(dir);
  assert.deepEqual(reopened.pragmas(), { journalMode: 'wal', synchronous: 2, pageSize: 8192, autoVacuum: 2, journalSizeLimit: 8 * 1024 * 1024 });
  assert.deepEqual(plain(reopened.get('', 'a')), { id: 'a', values: [1] });
  const [version] = rawQuery<{ user_version: number }>(dir, 'PRAGMA user_version');
  assert.equal(version.user_version, 3);
});

test('a version 1 file (before import_progress) opens, migrates to the current version and keeps its records', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('ns', [dense('a', [1]), dense('b', [2])]);
  store.close();
  // Back to what a version 1 build wrote: no import_progress table, user_version 1.
  const db = new Database(path.join(dir, RECORD_STORE_FILE));
  db.exec('DROP TABLE import_progress; DROP INDEX records_metadata');
  db.pragma('user_version = 1');
  db.close();

  const reopened = openStore(dir);
  assert.deepEqual(rawQuery<{ user_version: number }>(dir, 'PRAGMA user_version'), [{ user_version: 3 }]);
  assert.deepEqual(plain(reopened.get('ns', 'b')), { id: 'b', values: [2] });
  assert.equal(reopened.snapshotSeq(), 2);
  assert.equal(reopened.importProgress(7), undefined);
  reopened.importBatch('ns', [dense('c', [3])], 7, { rowsDone: 1, recordsImported: 1, recordsFailed: 0, fileIndex: 0, rowInFile: 1 });
  assert.equal(reopened.count('ns'), 3);
  // A second connection opening the migrated file (the writer thread's) finds it current.
  const second = openStore(dir);
  assert.equal(second.importProgress(7)?.recordsImported, 1);
});

test('a version 2 file on a volume too full for the metadata index opens without it, and gets it once space is back', (t) => {
  // Mounting a tmpfs needs root (CI runs as root); elsewhere the test says why it skips.
  const volume = mountSmallVolume(16);
  if ('skip' in volume) {
    t.skip(volume.skip);
    return;
  }
  const opened: RecordStore[] = [];
  const open = (dir: string): RecordStore => {
    const store = RecordStore.open(dir);
    opened.push(store);
    return store;
  };
  try {
    const dir = path.join(volume.dir, 'index');
    const store = open(dir);
    const big = 'x'.repeat(900);
    store.upsert('ns', Array.from({ length: 2000 }, (_, i) => dense(`id-${i}`, [i], { text: big, i })));
    store.close();
    // Back to what a version 2 build wrote: no records_metadata.
    // incremental_vacuum gives the index's pages back to the volume (auto_vacuum is
    // INCREMENTAL), so building it again needs new space.
    const db = new Database(path.join(dir, RECORD_STORE_FILE));
    try {
      db.exec('DROP INDEX records_metadata');
      db.pragma('incremental_vacuum');
      db.pragma('user_version = 2');
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    // Leave ~256 KiB free: room to open the file, not to index ~2 MB of metadata.
    const filler = path.join(volume.dir, 'filler');
    const filled = fillVolume(filler);
    fs.truncateSync(filler, filled - 256 * 1024);

    const tight = open(dir);
    assert.deepEqual(rawQuery(dir, 'PRAGMA user_version'), [{ user_version: 2 }]);
    assert.equal(rawQuery(dir, "SELECT name FROM sqlite_schema WHERE name = 'records_metadata'").length, 0);
    assert.deepEqual(tight.metadataOf('ns', ['id-7', 'id-1999']).get('id-1999'), { text: big, i: 1999 });
    assert.equal(tight.get('ns', 'id-7')?.values?.[0], 7);
    tight.close();

    fs.rmSync(filler);
    const roomy = open(dir);
    assert.deepEqual(rawQuery(dir, 'PRAGMA user_version'), [{ user_version: 3 }]);
    assert.deepEqual(roomy.metadataOf('ns', ['id-7']).get('id-7'), { text: big, i: 7 });
  } finally {
    for (const store of opened) {
      try {
        store.close();
      } catch {
        // closed by the test already
      }
    }
    volume.unmount();
  }
});

test('open refuses a database from a newer schema and a foreign database', () => {
  const dir = tempDir();
  openStore(dir).close();
  const db = new Database(path.join(dir, RECORD_STORE_FILE));
  db.pragma('user_version = 99');
  db.close();
  assert.throws(() => RecordStore.open(dir), /schema version 99/);

  const foreign = tempDir();
  const other = new Database(path.join(foreign, RECORD_STORE_FILE));
  other.exec('CREATE TABLE t (x)');
  other.close();
  assert.throws(() => RecordStore.open(foreign), /not a Conifer record store/);
});

// ---- upsert, get, fetch ---------------------------------------------------------------

test('upsert stores dense, sparse and metadata exactly, and get returns them', () => {
  const store = openStore();
  const values = Float32Array.from([0.1, -2.5, 3.4028234663852886e38, 1e-45]);
  const sparse = { indices: Uint32Array.from([0, 7, 4294967295]), values: Float32Array.from([0.5, -0.25, 1]) };
  const metadata: Metadata = { genre: 'drama', year: 2001, good: true, tags: ['a', 'b'], empty: [] };
  const changes = store.upsert('ns', [
    { id: 'full', values, sparse, metadata },
    { id: 'sparse-only', sparse },
    { id: 'bare', values: new Float32Array([1, 2]) },
  ]);
  assert.deepEqual(
    changes.map((c) => c.kind),
    ['upsert', 'upsert', 'upsert'],
  );
  const full = store.get('ns', 'full');
  assert.ok(full !== null);
  assert.deepEqual(Array.from(full.values ?? []), Array.from(values)); // bit-exact float32
  assert.ok(full.values instanceof Float32Array);
  assert.ok(full.sparse?.indices instanceof Uint32Array);
  assert.deepEqual(plain(full), plain({ id: 'full', values, sparse, metadata }));
  assert.deepEqual(plain(store.get('ns', 'sparse-only')), plain({ id: 'sparse-only', sparse }));
  const bare = store.get('ns', 'bare');
  assert.deepEqual(Object.keys(bare ?? {}).sort(), ['id', 'values']); // absent fields are absent
  assert.equal(store.get('ns', 'missing'), null);
  assert.equal(store.get('other', 'full'), null);
});

test('sparse values stored out of index order (by a version before validation sorted them) read back ascending, pairs kept', () => {
  const store = openStore();
  // Validation now sorts what a write brings (vector-input.ts); a store written earlier
  // may hold the order a client sent. Written here straight to the store, as then.
  store.upsert('ns', [{ id: 'old', sparse: { indices: Uint32Array.from([30, 10, 4294967295, 20]), values: Float32Array.from([3, 1, 4, 2]) } }]);
  assert.deepEqual(plain(store.get('ns', 'old')), { id: 'old', sparse: { indices: [10, 20, 30, 4294967295], values: [1, 2, 3, 4] } });
});

test('upsert accepts typed arrays that are views into a larger buffer', () => {
  const store = openStore();
  const backing = new Float32Array([9, 9, 1, 2, 3, 9]);
  const view = backing.subarray(2, 5);
  const offset = new Float32Array(new Float32Array([4, 5]).buffer, 4, 1);
  store.upsert('', [{ id: 'v', values: view }, { id: 'u', values: offset }]);
  assert.deepEqual(Array.from(store.get('', 'v')?.values ?? []), [1, 2, 3]);
  assert.deepEqual(Array.from(store.get('', 'u')?.values ?? []), [5]);
});

test('upsert replaces the whole record and does not count it twice', () => {
  const store = openStore();
  store.upsert('ns', [dense('a', [1, 2], { color: 'red', size: 3 }), dense('b', [3, 4])]);
  assert.equal(store.count('ns'), 2);
  const [change] = store.upsert('ns', [dense('a', [5, 6])]);
  assert.deepEqual(plain(store.get('ns', 'a')), { id: 'a', values: [5, 6] }); // metadata gone
  assert.equal(store.count('ns'), 2);
  assert.equal(store.totalCount(), 2);
  assert.equal(change.kind, 'upsert');
  assert.deepEqual(plain(change.kind === 'upsert' ? change.record : null), { id: 'a', values: [5, 6] });

  // The same id twice in one batch: the last one wins, counted once, two changes.
  const twice = store.upsert('ns', [dense('c', [1]), dense('c', [2])]);
  assert.equal(twice.length, 2);
  assert.deepEqual(plain(store.get('ns', 'c')), { id: 'c', values: [2] });
  assert.equal(store.count('ns'), 3);
  assert.deepEqual(store.upsert('ns', []), []);
});

test('a batch whose write fails midway stores nothing and uses no sequence number', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('ns', [dense('keep', [1])]);
  const before = store.snapshotSeq();
  const badIds = ['bad\u0000id', 'x'.repeat(513), '', 'caf\u00e9'];
  for (const badId of badIds) {
    assert.throws(
      () => store.upsert('ns', [dense('first', [1]), dense('second', [2]), dense(badId, [3]), dense('last', [4])]),
      /CHECK constraint failed/,
      `id ${JSON.stringify(badId.slice(0, 10))}`,
    );
  }
  // A failing batch into a new namespace does not create the namespace either.
  assert.throws(() => store.upsert('fresh', [dense('ok', [1]), dense('\u0000', [1])]), /CHECK constraint failed/);
  assert.equal(store.get('ns', 'first'), null);
  assert.equal(store.get('ns', 'second'), null);
  assert.equal(store.count('ns'), 1);
  assert.deepEqual(store.namespaces(), [{ name: 'ns', count: 1 }]);
  assert.equal(store.snapshotSeq(), before);
  assert.deepEqual(rawQuery<{ n: number }>(dir, 'SELECT count(*) AS n FROM records'), [{ n: 1 }]);

  // 512 ASCII characters (including \x7f) are fine; the next seq follows the last committed one.
  const longest = 'y'.repeat(511) + '\u007f';
  const [ok] = store.upsert('ns', [dense(longest, [1])]);
  assert.equal(ok.seq, before + 1);
  assert.ok(store.get('ns', longest) !== null);
  store.close();
  assert.equal(RecordStore.open(dir).snapshotSeq(), before + 1);
});

test('importBatch commits the records and the import cursor together, or neither', () => {
  const dir = tempDir();
  const store = openStore(dir);
  const first = { rowsDone: 3, recordsImported: 2, recordsFailed: 1, fileIndex: 0, rowInFile: 3 };
  const changes = store.importBatch('ns', [dense('a', [1]), dense('b', [2])], 41, first);
  assert.deepEqual(seqs(changes), [1, 2]);
  assert.deepEqual(store.importProgress(41), first);
  assert.equal(store.importProgress(42), undefined, 'cursors are per import');

  // A batch that fails midway stores neither its records nor its cursor.
  const failed = { rowsDone: 6, recordsImported: 5, recordsFailed: 1, fileIndex: 0, rowInFile: 6 };
  assert.throws(() => store.importBatch('ns', [dense('c', [3]), dense('bad\u0000', [4]), dense('d', [5])], 41, failed), /CHECK constraint failed/);
  assert.deepEqual(store.importProgress(41), first);
  assert.equal(store.get('ns', 'c'), null);
  assert.equal(store.snapshotSeq(), 2);

  // A batch of skipped rows only moves the cursor, using no seq.
  const skipped = { rowsDone: 9, recordsImported: 2, recordsFailed: 4, fileIndex: 1, rowInFile: 0 };
  assert.deepEqual(store.importBatch('ns', [], 41, skipped), []);
  assert.equal(store.snapshotSeq(), 2);

  // Another import keeps its own cursor; both survive a reopen.
  const other = { rowsDone: 1, recordsImported: 1, recordsFailed: 0, fileIndex: 0, rowInFile: 1 };
  store.importBatch('other', [dense('a', [9])], 42, other);
  store.close();
  const reopened = openStore(dir);
  assert.deepEqual(reopened.importProgress(41), skipped);
  assert.deepEqual(reopened.importProgress(42), other);
  assert.equal(reopened.count('ns'), 2);
  assert.equal(reopened.count('other'), 1);
});

test('fetch returns the found records in the order asked, each once', () => {
  const store = openStore();
  store.upsert('', [dense('a', [1]), dense('b', [2]), dense('c', [3])]);
  const found = store.fetch('', ['c', 'missing', 'a', 'c']);
  assert.deepEqual(
    found.map((r) => r.id),
    ['c', 'a'],
  );
  assert.deepEqual(plain(found[0]), { id: 'c', values: [3] });
  assert.deepEqual(store.fetch('', []), []);
  assert.deepEqual(store.fetch('nowhere', ['a']), []);
});

// fetch and metadataOf pass their ids to SQLite as one JSON array: ids JSON escapes, ids
// of another namespace, and a long list must all come back right.
test('fetch reads many ids at once: JSON-escaped ids, only its namespace, order kept', () => {
  const store = openStore();
  const odd = ['quote"d', 'back\\slash', 'tab\there', '[1,2]', 'null', ' '];
  store.upsert('ns', odd.map((id, i) => dense(id, [i])));
  store.upsert('other', [dense('shared', [100]), dense('only-other', [101])]);
  store.upsert('ns', [dense('shared', [7])]);
  const asked = [...odd].reverse();
  assert.deepEqual(store.fetch('ns', [...asked, 'only-other', 'shared']).map((r) => [r.id, r.values?.[0]]), [
    ...asked.map((id) => [id, odd.indexOf(id)]),
    ['shared', 7],
  ]);
  const many = Array.from({ length: 1500 }, (_, i) => `id-${i}`);
  store.upsert('big', many.map((id, i) => dense(id, [i])));
  const order = many.map((_, i) => many[(i * 7919) % many.length]); // 7919 is prime: a permutation
  assert.deepEqual(store.fetch('big', order).map((r) => r.id), order);
});

test('metadataOf returns the metadata of the records asked, by id, from its namespace only', () => {
  const store = openStore();
  store.upsert('ns', [
    dense('a', [1], { genre: 'drama', tags: ['x'] }),
    dense('b', [2]),
    dense('c"q', [3], { n: 3 }),
  ]);
  store.upsert('other', [dense('d', [4], { n: 4 }), dense('a', [5], { genre: 'other' })]);
  const found = store.metadataOf('ns', ['c"q', 'a', 'b', 'd', 'missing', 'a']);
  assert.deepEqual([...found.entries()].sort(), [
    ['a', { genre: 'drama', tags: ['x'] }],
    ['c"q', { n: 3 }],
  ]);
  assert.equal(store.metadataOf('ns', []).size, 0);
  assert.equal(store.metadataOf('nowhere', ['a']).size, 0);
});

test('metadataOf is answered by the covering index alone, which every kind of write keeps current', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('ns', [dense('a', [1], { v: 1 }), dense('b', [2], { v: 2 }), dense('c', [3], { v: 3 }), dense('d', [4])]);
  store.update('ns', 'a', { setMetadata: { v: 10 } });
  store.upsert('ns', [dense('b', [2])]);
  store.update('ns', 'd', { setMetadata: { w: 'x' } });
  store.deleteIds('ns', ['c']);
  assert.deepEqual([...store.metadataOf('ns', ['a', 'b', 'c', 'd']).entries()].sort(), [
    ['a', { v: 10 }],
    ['d', { w: 'x' }],
  ]);
  // The plan SQLite picks for the lookup's shape: the index, without the table's pages.
  const plan = rawQuery<{ detail: string }>(
    dir,
    "EXPLAIN QUERY PLAN SELECT id, metadata FROM records WHERE nsid = (SELECT nsid FROM namespaces WHERE name = 'ns') AND id IN (SELECT value FROM json_each('[\"a\"]'))",
  );
  assert.ok(plan.some((row) => row.detail.includes('USING COVERING INDEX records_metadata')), JSON.stringify(plan));
  assert.deepEqual(rawQuery(dir, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
});

// ---- sequence numbers ------------------------------------------------------------------

test('sequence numbers strictly increase across every kind of change and are never reused', () => {
  const dir = tempDir();
  let store = openStore(dir);
  assert.equal(store.snapshotSeq(), 0);
  const all: Change[] = [];
  all.push(...store.upsert('a', [dense('1', [1]), dense('2', [2]), dense('3', [3])]));
  const updated = store.update('a', '1', { setMetadata: { k: 'v' } });
  assert.ok(updated !== null);
  all.push(updated);
  all.push(...store.updateMetadataWhere('a', () => true, { n: 1 }, false).changes);
  all.push(...store.deleteIds('a', ['3']));
  all.push(...store.deleteWhere('a', (m) => m?.k === 'v'));
  all.push(...store.upsert('b', [dense('x', [1])]));
  const drop = store.dropNamespace('b');
  assert.ok(drop !== null);
  all.push(drop);
  assertStrictlyIncreasing(seqs(all));
  assert.deepEqual(seqs(all), Array.from({ length: all.length }, (_, i) => i + 1)); // no gaps either
  assert.equal(store.snapshotSeq(), all.length);

  // Delete the record holding the highest seq, purge, restart: the counter does not go back.
  const top = store.upsert('a', [dense('top', [1])])[0].seq;
  store.deleteIds('a', ['top']);
  assert.ok(store.dropNamespace('a') !== null); // still holds '2'
  while (store.purgeStep(100));
  assert.deepEqual(rawQuery<{ n: number }>(dir, 'SELECT count(*) AS n FROM records'), [{ n: 0 }]);
  const last = store.snapshotSeq();
  assert.equal(last, top + 2);
  store.close();

  store = openStore(dir);
  assert.equal(store.snapshotSeq(), last);
  const [next] = store.upsert('a', [dense('again', [1])]);
  assert.equal(next.seq, last + 1);
});

test('every stored row carries the seq of its last change; tombstones carry theirs', () => {
  const dir = tempDir();
  const store = openStore(dir);
  const [, b] = store.upsert('ns', [dense('a', [1]), dense('b', [2])]);
  const [del] = store.deleteIds('ns', ['a', 'never-existed']);
  assert.equal(del.kind, 'delete');
  assert.deepEqual(rawQuery(dir, 'SELECT id, seq FROM records ORDER BY id'), [{ id: 'b', seq: b.seq }]);
  assert.deepEqual(rawQuery(dir, 'SELECT id, seq FROM tombstones'), [{ id: 'a', seq: del.seq }]);
  // Re-creating the id supersedes its tombstone.
  const [again] = store.upsert('ns', [dense('a', [3])]);
  assert.deepEqual(rawQuery(dir, 'SELECT id, seq FROM tombstones'), []);
  assert.deepEqual(rawQuery(dir, "SELECT seq FROM records WHERE id = 'a'"), [{ seq: again.seq }]);
});

// ---- update ------------------------------------------------------------------------------

test('update overwrites values and sparse values and merges metadata', () => {
  const store = openStore();
  store.upsert('ns', [
    {
      id: 'a',
      values: Float32Array.from([1, 2]),
      sparse: { indices: Uint32Array.from([1]), values: Float32Array.from([1]) },
      metadata: { keep: 'yes', change: 1 },
    },
  ]);
  const c1 = store.update('ns', 'a', { values: Float32Array.from([3, 4]) });
  assert.ok(c1 !== null && c1.kind === 'upsert');
  assert.deepEqual(plain(store.get('ns', 'a')), {
    id: 'a',
    values: [3, 4],
    sparse: { indices: [1], values: [1] },
    metadata: { keep: 'yes', change: 1 },
  });
  assert.deepEqual(plain(c1.record), plain(store.get('ns', 'a')));

  store.update('ns', 'a', {
    sparse: { indices: Uint32Array.from([5, 6]), values: Float32Array.from([0.5, 0.25]) },
    setMetadata: { change: 2, added: ['x'] },
  });
  assert.deepEqual(plain(store.get('ns', 'a')), {
    id: 'a',
    values: [3, 4],
    sparse: { indices: [5, 6], values: [0.5, 0.25] },
    metadata: { keep: 'yes', change: 2, added: ['x'] },
  });
  assert.equal(store.count('ns'), 1);

  // Metadata on a record that had none.
  store.upsert('ns', [dense('plain', [1])]);
  store.update('ns', 'plain', { setMetadata: { first: true } });
  assert.deepEqual(store.get('ns', 'plain')?.metadata, { first: true });
});

test('update of an unknown id or namespace stores nothing and answers null', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('ns', [dense('a', [1])]);
  store.deleteIds('ns', ['a']);
  const seq = store.snapshotSeq();
  assert.equal(store.update('ns', 'missing', { setMetadata: { x: 1 } }), null);
  assert.equal(store.update('ns', 'a', { values: Float32Array.from([2]) }), null); // deleted
  assert.equal(store.update('nowhere', 'a', { values: Float32Array.from([2]) }), null);
  assert.equal(store.snapshotSeq(), seq);
  assert.deepEqual(rawQuery(dir, 'SELECT count(*) AS n FROM records'), [{ n: 0 }]);
  assert.deepEqual(store.namespaces(), []);
});

test('updateMetadataWhere counts on a dry run and merges into every match otherwise', () => {
  const store = openStore();
  const records: StoredRecord[] = [];
  for (let i = 0; i < 2500; i++) records.push(dense(`r${String(i).padStart(4, '0')}`, [i], { even: i % 2 === 0, i }));
  records.push(dense('no-metadata', [0]));
  store.upsert('ns', records);
  const isEven = (m: Metadata | undefined): boolean => m?.even === true;

  const seq = store.snapshotSeq();
  assert.deepEqual(store.updateMetadataWhere('ns', isEven, { tag: 'x' }, true), { matched: 1250, changes: [] });
  assert.equal(store.snapshotSeq(), seq);
  assert.equal(store.get('ns', 'r0000')?.metadata?.tag, undefined);

  const result = store.updateMetadataWhere('ns', isEven, { tag: 'x', i: -1 }, false);
  assert.equal(result.matched, 1250);
  assert.equal(result.changes.length, 1250);
  assertStrictlyIncreasing(seqs(result.changes));
  assert.deepEqual(store.get('ns', 'r0002')?.metadata, { even: true, i: -1, tag: 'x' });
  assert.deepEqual(store.get('ns', 'r0003')?.metadata, { even: false, i: 3 });
  assert.deepEqual(Array.from(store.get('ns', 'r0002')?.values ?? []), [2]); // values kept
  const first = result.changes[0];
  assert.ok(first.kind === 'upsert');
  assert.deepEqual(plain(first.record), plain(store.get('ns', first.record.id)));
  assert.equal(store.count('ns'), 2501);

  // The predicate sees records without metadata as undefined.
  const seen: (Metadata | undefined)[] = [];
  store.updateMetadataWhere('ns', (m) => (m === undefined ? (seen.push(m), true) : false), { was: 'empty' }, false);
  assert.equal(seen.length, 1);
  assert.deepEqual(store.get('ns', 'no-metadata')?.metadata, { was: 'empty' });
  assert.deepEqual(store.updateMetadataWhere('nowhere', () => true, { a: 1 }, false), { matched: 0, changes: [] });
});

test('a predicate that throws midway leaves every record as it was', () => {
  const store = openStore();
  store.upsert('ns', [dense('a', [1], { n: 1 }), dense('b', [2], { n: 2 }), dense('c', [3], { n: 3 })]);
  const seq = store.snapshotSeq();
  const explode = (m: Metadata | undefined): boolean => {
    if (m?.n === 3) throw new Error('boom');
    return true;
  };
  assert.throws(() => store.updateMetadataWhere('ns', explode, { x: 1 }, false), /boom/);
  assert.throws(() => store.deleteWhere('ns', explode), /boom/);
  assert.equal(store.snapshotSeq(), seq);
  assert.deepEqual(store.get('ns', 'a')?.metadata, { n: 1 });
  assert.equal(store.count('ns'), 3);
  assert.equal(store.update('ns', 'a', { setMetadata: { y: 1 } })?.seq, seq + 1);
});

// ---- deletes ---------------------------------------------------------------------------

test('deleteIds removes records, skips unknown ids and keeps counts', () => {
  const store = openStore();
  store.upsert('ns', [dense('a', [1]), dense('b', [2]), dense('c', [3])]);
  const changes = store.deleteIds('ns', ['b', 'zzz', 'b', 'a']);
  assert.deepEqual(
    changes.map((c) => (c.kind === 'delete' ? c.id : c.kind)),
    ['b', 'a'],
  );
  assertStrictlyIncreasing(seqs(changes));
  assert.equal(store.count('ns'), 1);
  assert.deepEqual(store.namespaces(), [{ name: 'ns', count: 1 }]);
  assert.deepEqual(store.deleteIds('ns', ['a', 'b']), []);
  assert.deepEqual(store.deleteIds('nowhere', ['a']), []);
  assert.deepEqual(store.deleteIds('ns', []), []);

  // Deleting the last record removes the namespace from the listing (decision 5).
  store.deleteIds('ns', ['c']);
  assert.equal(store.count('ns'), 0);
  assert.deepEqual(store.namespaces(), []);
  assert.equal(store.totalCount(), 0);
  assert.deepEqual(store.list('ns', { limit: 10 }), { ids: [], more: false });
  // And an upsert brings it back.
  store.upsert('ns', [dense('d', [4])]);
  assert.deepEqual(store.namespaces(), [{ name: 'ns', count: 1 }]);
});

test('deleteWhere deletes every match, across scan chunks', () => {
  const store = openStore();
  const records: StoredRecord[] = [];
  for (let i = 0; i < 2300; i++) records.push(dense(`id-${String(i).padStart(5, '0')}`, [i], { keep: i % 3 === 0 }));
  store.upsert('ns', records);
  store.upsert('other', [dense('id-00001', [1], { keep: false })]);
  const changes = store.deleteWhere('ns', (m) => m?.keep === false);
  assert.equal(changes.length, 2300 - 767);
  assert.ok(changes.every((c) => c.kind === 'delete' && c.ns === 'ns'));
  assertStrictlyIncreasing(seqs(changes));
  assert.equal(store.count('ns'), 767);
  assert.equal(store.get('ns', 'id-00001'), null);
  assert.ok(store.get('ns', 'id-00003') !== null);
  assert.ok(store.get('other', 'id-00001') !== null); // other namespaces untouched
  assert.deepEqual(store.deleteWhere('nowhere', () => true), []);
});

test('by filter with candidates: the candidates and the records written after their seq are examined, no other', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('ns', [dense('old-match', [1], { g: 'a' }), dense('old-unlisted', [2], { g: 'a' }), dense('old-other', [3], { g: 'b' })]);
  store.upsert('elsewhere', [dense('x', [1], { g: 'a' })]);
  const asOf = store.snapshotSeq();
  // Written after the engine looked: a new match, a record changed to match, one changed
  // away from matching (a candidate), and a write to another namespace.
  store.upsert('ns', [dense('new-match', [4], { g: 'a' }), dense('old-other', [3], { g: 'a' })]);
  store.upsert('elsewhere', [dense('y', [1], { g: 'a' })]);
  store.update('ns', 'old-match', { setMetadata: { g: 'c' } });
  store.upsert('ns', [dense('new-nomatch', [5], { g: 'b' })]);
  const isA = (m: Metadata | undefined): boolean => m?.g === 'a';
  // 'old-unlisted' matches but was not a candidate and not written since: not examined
  // (the candidates stand for the engine's match set at asOf).
  const candidates = { ids: ['old-match'], asOf };
  const counted = store.updateMetadataWhere('ns', isA, {}, true, candidates);
  assert.equal(counted.matched, 2);
  const updated = store.updateMetadataWhere('ns', isA, { seen: true }, false, candidates);
  assert.deepEqual(updated.changes.map((c) => (c.kind === 'upsert' ? c.record.id : c.kind)).sort(), ['new-match', 'old-other']);
  const deleted = store.deleteWhere('ns', isA, { ids: ['old-match'], asOf });
  assert.deepEqual(deleted.map((c) => (c.kind === 'delete' ? c.id : c.kind)).sort(), ['new-match', 'old-other']);
  assert.ok(store.get('ns', 'old-unlisted') !== null);
  assert.ok(store.get('ns', 'old-match') !== null);
  assert.ok(store.get('elsewhere', 'y') !== null, 'other namespaces untouched');
  // The plan SQLite picks for statements.ts writtenAfter's shape: the seq index (recent
  // writes only), not the primary key (the whole namespace).
  const plan = rawQuery<{ detail: string }>(dir, 'EXPLAIN QUERY PLAN SELECT id FROM records WHERE seq > 0 AND +nsid = 1');
  assert.ok(plan.some((row) => row.detail.includes('(seq>?)')), JSON.stringify(plan));
});

// ---- namespaces, drop and purge -----------------------------------------------------------

test('namespaces lists live non-empty namespaces in byte order with counts', () => {
  const store = openStore();
  store.upsert('b', [dense('1', [1])]);
  store.upsert('', [dense('1', [1]), dense('2', [1])]);
  store.upsert('a', [dense('1', [1]), dense('2', [1]), dense('3', [1])]);
  store.upsert('B', [dense('1', [1])]);
  store.upsert('\u00e9', [dense('1', [1])]);
  store.upsert('empty', [dense('1', [1])]);
  store.deleteIds('empty', ['1']);
  assert.deepEqual(store.namespaces(), [
    { name: '', count: 2 },
    { name: 'B', count: 1 },
    { name: 'a', count: 3 },
    { name: 'b', count: 1 },
    { name: '\u00e9', count: 1 },
  ]);
  assert.equal(store.count(''), 2);
  assert.equal(store.count('missing'), 0);
  assert.equal(store.totalCount(), 8);
});

test('dropNamespace hides the namespace at once and a new upsert starts it fresh', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('gone', [dense('a', [1], { m: 1 }), dense('b', [2])]);
  store.upsert('stay', [dense('a', [9])]);
  const drop = store.dropNamespace('gone');
  assert.ok(drop !== null);
  assert.deepEqual({ kind: drop.kind, ns: drop.ns }, { kind: 'drop-namespace', ns: 'gone' });
  assert.equal(drop.seq, store.snapshotSeq());

  assert.equal(store.get('gone', 'a'), null);
  assert.deepEqual(store.fetch('gone', ['a', 'b']), []);
  assert.deepEqual(store.list('gone', { limit: 10 }), { ids: [], more: false });
  assert.deepEqual(store.scan('gone', undefined, 10), []);
  assert.equal(store.count('gone'), 0);
  assert.equal(store.totalCount(), 1);
  assert.deepEqual(store.namespaces(), [{ name: 'stay', count: 1 }]);
  assert.equal(store.update('gone', 'a', { setMetadata: { x: 1 } }), null);
  assert.deepEqual(store.deleteIds('gone', ['a']), []);
  assert.equal(store.dropNamespace('gone'), null);
  assert.equal(store.dropNamespace('never'), null);
  // The rows are still there until purged.
  assert.deepEqual(rawQuery(dir, 'SELECT count(*) AS n FROM records'), [{ n: 3 }]);

  store.upsert('gone', [dense('c', [3])]);
  assert.deepEqual(store.list('gone', { limit: 10 }), { ids: ['c'], more: false });
  assert.equal(store.count('gone'), 1);
  assert.equal(store.get('gone', 'a'), null);
  assert.deepEqual(store.get('stay', 'a')?.values, Float32Array.from([9]));
});

test('purgeStep frees a dropped namespace in bounded chunks and returns pages', () => {
  const dir = tempDir();
  const store = openStore(dir);
  const big = Array.from({ length: 250 }, (_, i) => dense(`r${i}`, Array.from({ length: 512 }, () => i)));
  store.upsert('gone', big);
  store.deleteIds('gone', ['r0', 'r1', 'r2', 'r3', 'r4']); // tombstones are purged too
  store.upsert('stay', [dense('keep', [1])]);
  const [nsid] = rawQuery<{ nsid: number }>(dir, "SELECT nsid FROM namespaces WHERE name = 'gone'");
  const rowsOfDropped = (): number =>
    rawQuery<{ n: number }>(
      dir,
      'SELECT (SELECT count(*) FROM records WHERE nsid = ?) + (SELECT count(*) FROM tombstones WHERE nsid = ?) AS n',
      nsid.nsid,
      nsid.nsid,
    )[0].n;
  assert.equal(rowsOfDropped(), 250);
  store.dropNamespace('gone');
  store.upsert('gone', [dense('new', [1])]); // a new incarnation is not purged
  const pagesBefore = rawQuery<{ page_count: number }>(dir, 'PRAGMA page_count')[0].page_count;

  const remaining: number[] = [];
  let steps = 0;
  while (store.purgeStep(60)) {
    remaining.push(rowsOfDropped());
    steps++;
    assert.ok(steps < 100, 'purge terminates');
  }
  remaining.push(rowsOfDropped());
  assert.deepEqual(remaining.slice(0, 5), [190, 130, 70, 10, 0]); // never more than 60 per step
  assert.equal(rowsOfDropped(), 0);
  assert.deepEqual(rawQuery(dir, 'SELECT purged FROM dropped_namespaces'), [{ purged: 1 }]);
  assert.deepEqual(rawQuery(dir, 'PRAGMA freelist_count'), [{ freelist_count: 0 }]);
  const pagesAfter = rawQuery<{ page_count: number }>(dir, 'PRAGMA page_count')[0].page_count;
  assert.ok(pagesAfter < pagesBefore, `file shrank: ${pagesBefore} -> ${pagesAfter} pages`);

  assert.deepEqual(store.list('gone', { limit: 10 }), { ids: ['new'], more: false });
  assert.ok(store.get('stay', 'keep') !== null);
  assert.equal(store.purgeStep(60), false);
});

// ---- list and scan -----------------------------------------------------------------------

test('list pages ids in byte order with keyset paging', () => {
  const store = openStore();
  const ids = ['b', 'a', 'A', 'a1', 'a10', 'a2', 'Z', '_x', '~', '0'];
  store.upsert('ns', ids.map((id) => dense(id, [1])));
  const sorted = [...ids].sort(); // JS order equals byte order for ASCII
  assert.deepEqual(sorted, ['0', 'A', 'Z', '_x', 'a', 'a1', 'a10', 'a2', 'b', '~']);

  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = store.list('ns', { limit: 3, after });
    pages.push(page.ids);
    if (!page.more) break;
    after = page.ids[page.ids.length - 1];
  }
  assert.deepEqual(pages, [['0', 'A', 'Z'], ['_x', 'a', 'a1'], ['a10', 'a2', 'b'], ['~']]);
  // An exact fit says no more.
  assert.deepEqual(store.list('ns', { limit: 10 }), { ids: sorted, more: false });
  assert.deepEqual(store.list('ns', { limit: 9 }).more, true);
  assert.deepEqual(store.list('ns', { limit: 5, after: '~' }), { ids: [], more: false });
  assert.deepEqual(store.list('ns', { limit: 0 }), { ids: [], more: false });
});

test('list treats the prefix as a key range, never as a LIKE pattern', () => {
  const store = openStore();
  const ids = ['a', 'A', 'ab', 'Ab', 'a_b', 'axb', 'a%b', 'azb', 'b', 'a\u007f', 'a\u007fz', 'a\u007f\u007f', '\u007f', '\u007fa', '%', '_'];
  store.upsert('', ids.map((id) => dense(id, [1])));
  const all = (prefix: string): string[] => store.list('', { prefix, limit: 100 }).ids;
  const expected = (prefix: string): string[] => ids.filter((id) => id.startsWith(prefix)).sort();

  assert.deepEqual(all('a_'), ['a_b']); // `_` is no wildcard
  assert.deepEqual(all('a%'), ['a%b']); // `%` is no wildcard
  assert.deepEqual(all('%'), ['%']);
  assert.deepEqual(all('_'), ['_']);
  assert.deepEqual(all('A'), ['A', 'Ab']); // case matters
  assert.deepEqual(all('a'), expected('a'));
  assert.ok(!all('a').includes('A'));
  assert.deepEqual(all('a\u007f'), ['a\u007f', 'a\u007fz', 'a\u007f\u007f']); // 'z' < 0x7f
  assert.deepEqual(all('\u007f'), ['\u007f', '\u007fa']);
  assert.deepEqual(all('azb'), ['azb']);
  assert.deepEqual(all('nope'), []);
  assert.deepEqual(all(''), [...ids].sort());
  for (const prefix of ['a', 'A', 'a\u007f', '\u007f', 'a%', 'a_', '', 'z', 'a\u007f\u007f']) {
    assert.deepEqual(all(prefix), expected(prefix), `prefix ${JSON.stringify(prefix)}`);
  }

  // Prefix with paging: `after` inside, before and beyond the prefix's range.
  assert.deepEqual(store.list('', { prefix: 'a', after: 'a%b', limit: 2 }), { ids: ['a_b', 'ab'], more: true });
  assert.deepEqual(store.list('', { prefix: 'a', after: 'ab', limit: 10 }).ids, ['axb', 'azb', 'a\u007f', 'a\u007fz', 'a\u007f\u007f']);
  assert.deepEqual(store.list('', { prefix: 'a', after: 'A', limit: 2 }), { ids: ['a', 'a%b'], more: true });
  assert.deepEqual(store.list('', { prefix: 'a', after: 'b', limit: 10 }), { ids: [], more: false });
  assert.deepEqual(store.list('', { prefix: 'a', after: 'a\u007f\u007f', limit: 10 }), { ids: [], more: false });
});

test('prefixUpperBound is the tightest bound above the prefix', () => {
  assert.equal(prefixUpperBound('abc'), 'abd');
  assert.equal(prefixUpperBound('a\u007f'), 'b');
  assert.equal(prefixUpperBound('a\u007f\u007f'), 'b');
  assert.equal(prefixUpperBound('\u007f'), null);
  assert.equal(prefixUpperBound(''), null);
  assert.equal(prefixUpperBound('_'), '`');
});

test('scan returns whole records in id order after a key', () => {
  const store = openStore();
  store.upsert('ns', [dense('c', [3], { n: 3 }), dense('a', [1]), dense('b', [2])]);
  assert.deepEqual(
    store.scan('ns', undefined, 2).map(plain),
    [
      { id: 'a', values: [1] },
      { id: 'b', values: [2] },
    ],
  );
  assert.deepEqual(store.scan('ns', 'b', 2).map(plain), [{ id: 'c', values: [3], metadata: { n: 3 } }]);
  assert.deepEqual(store.scan('ns', 'c', 2), []);
  assert.deepEqual(store.scan('nowhere', undefined, 2), []);
});

// ---- replay ------------------------------------------------------------------------------

test('allRecords at S plus changesSince(S) equals the final state', () => {
  const dir = tempDir();
  let store = openStore(dir);
  // Deterministic pseudo-random workload over a few namespaces and ids.
  let seed = 42; // mulberry32
  const rand = (n: number): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  const nss = ['', 'a', 'b'];
  const randomRecord = (): StoredRecord => {
    const record: StoredRecord = { id: `id${rand(40)}`, values: Float32Array.from([rand(100) / 7, rand(100)]) };
    if (rand(2) === 0) record.metadata = { g: `g${rand(3)}` };
    if (rand(4) === 0) record.sparse = { indices: Uint32Array.from([rand(10)]), values: Float32Array.from([0.5]) };
    return record;
  };
  const step = (): void => {
    const ns = nss[rand(nss.length)];
    const op = rand(20);
    if (op < 10) store.upsert(ns, [randomRecord(), randomRecord()]);
    else if (op < 13) store.update(ns, `id${rand(40)}`, { setMetadata: { u: rand(5) } });
    else if (op < 16) store.deleteIds(ns, [`id${rand(40)}`, `id${rand(40)}`]);
    else if (op < 17) store.deleteWhere(ns, (m) => m?.g === 'g1');
    else if (op < 18) store.updateMetadataWhere(ns, (m) => m?.g === 'g2', { w: true }, false);
    else if (op < 19) store.dropNamespace(ns);
    else store.purgeStep(3);
  };

  for (let i = 0; i < 150; i++) step();
  const s = store.snapshotSeq();
  const snapshot = stateOf(store);
  for (let i = 0; i < 300; i++) step();
  store.close();
  store = openStore(dir); // replay also works across a restart

  const replayed: Change[] = [...store.changesSince(s)];
  assert.ok(replayed.length > 0);
  assert.ok(replayed.every((c) => c.seq > s && c.seq <= store.snapshotSeq()));
  assertStrictlyIncreasing(seqs(replayed));
  assert.ok(replayed.some((c) => c.kind === 'delete'));
  assert.ok(replayed.some((c) => c.kind === 'drop-namespace'));
  for (const change of replayed) apply(snapshot, change);
  assert.deepEqual(snapshot, stateOf(store));

  // From the very beginning, too.
  const fromZero: State = new Map();
  for (const change of store.changesSince(0)) apply(fromZero, change);
  assert.deepEqual(fromZero, stateOf(store));
  assert.deepEqual([...store.changesSince(store.snapshotSeq())], []);

  // allRecords carries each record's seq and agrees with the counts.
  let n = 0;
  for (const { ns, seq, record } of store.allRecords()) {
    n++;
    assert.ok(seq <= store.snapshotSeq());
    assert.deepEqual(plain(store.get(ns, record.id)), plain(record));
  }
  assert.equal(n, store.totalCount());
});

test('changesSince and allRecords read past one chunk', () => {
  const store = openStore();
  const records = Array.from({ length: 2600 }, (_, i) => dense(`k${i}`, [i]));
  const committed = store.upsert('ns', records);
  store.deleteIds('ns', ['k1', 'k2']);
  const changes = [...store.changesSince(0)];
  assert.equal(changes.length, 2600); // 2598 live rows and 2 tombstones
  assertStrictlyIncreasing(seqs(changes));
  assert.equal([...store.changesSince(committed[1200].seq)].length, 2600 - 1201 + 2);
  assert.equal([...store.allRecords()].length, 2598);
});

test('the changes a method returns are what changesSince replays', () => {
  const store = openStore();
  const before = store.snapshotSeq();
  const committed: Change[] = [
    ...store.upsert('x', [dense('a', [1]), dense('b', [2], { t: 'z' })]),
    ...store.deleteIds('x', ['a']),
  ];
  const drop = store.dropNamespace('x');
  assert.ok(drop !== null);
  committed.push(drop);
  // Replay omits the dropped incarnation's rows (the drop supersedes them) but keeps the drop.
  assert.deepEqual([...store.changesSince(before)], [drop]);
  const y = store.upsert('y', [dense('c', [3])]);
  const replay = [...store.changesSince(drop.seq)];
  assert.equal(replay.length, 1);
  assert.equal(replay[0].seq, y[0].seq);
  assert.deepEqual(replay[0].kind === 'upsert' ? plain(replay[0].record) : null, plain(y[0].kind === 'upsert' ? y[0].record : null));
  assertStrictlyIncreasing(seqs(committed));
});

test('compactTombstones forgets old deletions and refuses a replay from before them', () => {
  const dir = tempDir();
  const store = openStore(dir);
  store.upsert('ns', [dense('a', [1]), dense('b', [2]), dense('c', [3])]);
  store.deleteIds('ns', ['a', 'b']);
  store.upsert('gone', [dense('x', [1])]);
  store.dropNamespace('gone');
  while (store.purgeStep(100));
  const s = store.snapshotSeq();
  store.deleteIds('ns', ['c']);

  assert.equal(store.compactTombstones(s, 1), true); // one row per call
  assert.equal(store.compactTombstones(s, 10), false);
  assert.deepEqual(rawQuery(dir, 'SELECT id FROM tombstones'), [{ id: 'c' }]); // after s: kept
  assert.deepEqual(rawQuery(dir, 'SELECT count(*) AS n FROM dropped_namespaces'), [{ n: 0 }]);
  assert.throws(() => [...store.changesSince(s - 1)], /compacted/);
  const replay = [...store.changesSince(s)];
  assert.deepEqual(
    replay.map((c) => c.kind),
    ['delete'],
  );
});

test('sparsePairs counts the sparse pairs of the live records of the namespace only (a load sizes its pools with it)', () => {
  const store = openStore();
  const sparse = (n: number): StoredRecord['sparse'] => ({
    indices: Uint32Array.from({ length: n }, (_, i) => i * 3),
    values: Float32Array.from({ length: n }, (_, i) => i + 0.5),
  });
  store.upsert('a', [
    { id: 'x', sparse: sparse(5) },
    { id: 'y', sparse: sparse(7), values: Float32Array.of(1, 2) },
    { id: 'z', values: Float32Array.of(1, 2) },
  ]);
  store.upsert('b', [{ id: 'x', sparse: sparse(11) }]);
  assert.equal(store.sparsePairs('a'), 12);
  store.upsert('a', [{ id: 'x', sparse: sparse(2) }]); // replaced values
  store.deleteIds('a', ['y']);
  assert.equal(store.sparsePairs('a'), 2);
  assert.equal(store.sparsePairs('b'), 11);
  store.dropNamespace('b');
  assert.equal(store.sparsePairs('b'), 0, 'a dropped namespace holds nothing');
  assert.equal(store.sparsePairs('never'), 0);
});
