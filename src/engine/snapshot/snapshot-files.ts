// Graph snapshots of one index on disk, under <index dir>/engine/.
//
// What a snapshot is: for each namespace that has an HNSW graph, the graph file written
// by hnswlib and a state file mapping record ids to their graph labels, tagged with the
// index-wide sequence number S the engine had applied when it was written. It is a
// CACHE of work that is slow to redo (graph insertion); the record store stays the
// truth. At start the engine reads the store and keeps a snapshot label only for a
// record whose seq is <= S (its vector is the one in the graph); every other record is
// (re)inserted from the tail, and snapshot labels with no such record are marked deleted.
//
// File format (version SNAPSHOT_FORMAT):
//   manifest.json   {"body": {"format", "seq", "indexShape", "namespaces": [{"name",
//                   "state", "graph", "stateSha256", "graphSha256"}]}, "sha256": hex of
//                   JSON.stringify(body)}
//   <n>.state       JSON {"format", "seq", "name", "extent", "ids": [id or null per
//                   label], "indexed": base64 bitmap bytes, "inGraph": base64}
//   <n>.graph       hnswlib's own file format (writeIndexSync)
// Each file is written to a temp name, fsynced, renamed, and the directory fsynced; the
// manifest is renamed last, so a crash leaves either the old snapshot or the new one.
// Files no manifest references are removed after the manifest is replaced. A reader
// checks every checksum BEFORE handing a graph file to hnswlib (which can abort the
// process on a damaged file); any mismatch, missing file or other format means "no
// snapshot": the engine rebuilds from the store and says so in the log.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IndexShape } from '../model.js';
import { fsyncFile, fsyncFileAsync, fsyncDirectory } from '../fsync.js';

/**
 * 2: cosine graphs hold each vector as written and its inverse length (native/hnsw-index.cc);
 * format 1's held unit vectors, which the engine can no longer score or fetch from.
 */
export const SNAPSHOT_FORMAT = 2;
const MANIFEST = 'manifest.json';

export interface NamespaceState {
  name: string;
  seq: number;
  /** ids[label]: the record id under each label, null for a free label. */
  ids: (string | null)[];
  indexed: Uint8Array;
  inGraph: Uint8Array;
}

export interface LoadedNamespace {
  state: NamespaceState;
  /** Path of the verified graph file (hnswlib reads it by path). */
  graphFile: string;
}

export interface LoadedSnapshot {
  seq: number;
  namespaces: LoadedNamespace[];
}

interface ManifestEntry {
  name: string;
  state: string;
  graph: string;
  stateSha256: string;
  graphSha256: string;
}

interface ManifestBody {
  format: number;
  seq: number;
  indexShape: IndexShape;
  namespaces: ManifestEntry[];
}

export const snapshotDir = (indexDir: string): string => path.join(indexDir, 'engine');

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Why a snapshot cannot be used; the engine rebuilds instead. */
export class SnapshotUnusable extends Error {}

/**
 * Reads and verifies the snapshot of an index. Undefined when there is none;
 * throws SnapshotUnusable when one exists but cannot be trusted.
 */
export function readSnapshot(indexDir: string, shape: IndexShape): LoadedSnapshot | undefined {
  const dir = snapshotDir(indexDir);
  const manifestFile = path.join(dir, MANIFEST);
  if (!fs.existsSync(manifestFile)) return undefined;
  let body: ManifestBody;
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    body = checkedManifest(parsed);
  } catch (err) {
    throw new SnapshotUnusable(`manifest: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (body.format !== SNAPSHOT_FORMAT) throw new SnapshotUnusable(`format ${body.format}, this build reads ${SNAPSHOT_FORMAT}`);
  if (body.indexShape.dimension !== shape.dimension || body.indexShape.metric !== shape.metric) {
    throw new SnapshotUnusable('it was written for another index shape');
  }
  const namespaces: LoadedNamespace[] = [];
  for (const entry of body.namespaces) {
    const stateFile = path.join(dir, path.basename(entry.state));
    const graphFile = path.join(dir, path.basename(entry.graph));
    const stateBytes = readOrUnusable(stateFile);
    if (sha256(stateBytes) !== entry.stateSha256) throw new SnapshotUnusable(`${entry.state}: checksum mismatch`);
    if (fileSha256(graphFile) !== entry.graphSha256) throw new SnapshotUnusable(`${entry.graph}: checksum mismatch`);
    namespaces.push({ state: parseState(stateBytes.toString('utf8'), body.seq), graphFile });
  }
  return { seq: body.seq, namespaces };
}

export interface NamespaceToWrite {
  state: NamespaceState;
  /** Writes the graph to the given path (synchronously). */
  writeGraph(file: string): void;
  /**
   * Writes the graph to the given path on a native thread: the graph stays as `state`
   * describes it until the write ends, while searches go on (HnswGraph.writeInBackground).
   */
  writeGraphInBackground(file: string): Promise<void>;
}

/** Writes a complete snapshot at `seq` and removes the files of the previous one. */
export function writeSnapshot(indexDir: string, shape: IndexShape, seq: number, namespaces: NamespaceToWrite[]): void {
  const dir = snapshotDir(indexDir);
  fs.mkdirSync(dir, { recursive: true });
  const files = fileNames(seq, namespaces.length);
  const entries = namespaces.map((ns, i): ManifestEntry => {
    const { stateName, graphName } = files[i];
    const graphTemp = path.join(dir, `${graphName}.tmp`);
    ns.writeGraph(graphTemp);
    fsyncFile(graphTemp);
    fs.renameSync(graphTemp, path.join(dir, graphName));
    const state = stateText(seq, ns.state);
    writeDurably(path.join(dir, stateName), state);
    const graphSha256 = fileSha256(path.join(dir, graphName));
    return { name: ns.state.name, state: stateName, graph: graphName, stateSha256: sha256(state), graphSha256 };
  });
  commitManifest(dir, shape, seq, entries);
}

/**
 * writeSnapshot without the long stall: the graphs are written on native threads (all
 * started at once, in this call's first synchronous part, so each is written as it stood
 * when the caller captured `namespaces`), and the fsyncs and checksums of the files run
 * asynchronously (the checksum one chunk at a time), so the engine worker goes on answering
 * queries meanwhile. Only the manifest's commit at the end is synchronous, and it happens
 * only while `current()` still says so (the index is open and no other snapshot replaced
 * this one): false when it gave up, leaving files the next snapshot removes.
 */
export async function writeSnapshotInBackground(
  indexDir: string,
  shape: IndexShape,
  seq: number,
  namespaces: NamespaceToWrite[],
  current: () => boolean,
): Promise<boolean> {
  const dir = snapshotDir(indexDir);
  fs.mkdirSync(dir, { recursive: true });
  const files = fileNames(seq, namespaces.length);
  const writes = await Promise.allSettled(namespaces.map((ns, i) => ns.writeGraphInBackground(path.join(dir, `${files[i].graphName}.tmp`))));
  for (const w of writes) if (w.status === 'rejected') throw w.reason;
  const entries: ManifestEntry[] = [];
  // current() is asked again before every step that creates or renames a file: an index
  // deleted meanwhile has its directory removed, and no file may appear in it after that.
  for (const [i, ns] of namespaces.entries()) {
    if (!current()) return false;
    const { stateName, graphName } = files[i];
    const graphTemp = path.join(dir, `${graphName}.tmp`);
    await fsyncFileAsync(graphTemp);
    if (!current()) return false;
    await fs.promises.rename(graphTemp, path.join(dir, graphName));
    const state = stateText(seq, ns.state);
    if (!current()) return false;
    await writeDurablyAsync(path.join(dir, stateName), state);
    const graphSha256 = await fileSha256Async(path.join(dir, graphName));
    entries.push({ name: ns.state.name, state: stateName, graph: graphName, stateSha256: sha256(state), graphSha256 });
  }
  if (!current()) return false;
  commitManifest(dir, shape, seq, entries);
  return true;
}

/** The snapshot's file names: unique per write, so a write never touches another's files. */
function fileNames(seq: number, count: number): { stateName: string; graphName: string }[] {
  const stamp = `${seq}-${Date.now().toString(36)}-${(nameCounter++).toString(36)}`;
  return Array.from({ length: count }, (_, i) => ({ stateName: `${stamp}-${i}.state`, graphName: `${stamp}-${i}.graph` }));
}
let nameCounter = 0;

function stateText(seq: number, state: NamespaceState): string {
  return JSON.stringify({
    format: SNAPSHOT_FORMAT,
    seq,
    name: state.name,
    ids: state.ids,
    indexed: Buffer.from(state.indexed).toString('base64'),
    inGraph: Buffer.from(state.inGraph).toString('base64'),
  });
}

/**
 * Makes the snapshot whose files (durable, renamed) `entries` names the current one: the
 * directory entries are fsynced, then the manifest replaces the old one, then every file
 * no manifest names is removed. Synchronous: nothing can interleave with it.
 */
function commitManifest(dir: string, shape: IndexShape, seq: number, entries: ManifestEntry[]): void {
  fsyncDirectory(dir);
  const body: ManifestBody = { format: SNAPSHOT_FORMAT, seq, indexShape: shape, namespaces: entries };
  const bodyText = JSON.stringify(body);
  writeDurably(path.join(dir, MANIFEST), JSON.stringify({ body, sha256: sha256(bodyText) }));
  fsyncDirectory(dir);
  const keep = new Set([MANIFEST, ...entries.flatMap((e) => [e.state, e.graph])]);
  for (const name of fs.readdirSync(dir)) if (!keep.has(name)) fs.rmSync(path.join(dir, name), { force: true });
}

/** Removes the snapshot (it is a cache: the next start rebuilds from the store). */
export function removeSnapshot(indexDir: string): void {
  fs.rmSync(snapshotDir(indexDir), { recursive: true, force: true });
}

function checkedManifest(parsed: unknown): ManifestBody {
  if (typeof parsed !== 'object' || parsed === null || !('body' in parsed) || !('sha256' in parsed)) {
    throw new Error('not a manifest');
  }
  const body: unknown = parsed.body;
  if (sha256(JSON.stringify(body)) !== parsed.sha256) throw new Error('checksum mismatch');
  if (typeof body !== 'object' || body === null || !('format' in body) || !('seq' in body) || !('namespaces' in body) || !('indexShape' in body)) {
    throw new Error('missing fields');
  }
  const { format, seq, namespaces, indexShape } = body;
  if (typeof format !== 'number' || typeof seq !== 'number' || !Array.isArray(namespaces) || !isShape(indexShape)) {
    throw new Error('wrong field types');
  }
  return { format, seq, indexShape, namespaces: namespaces.map(checkedEntry) };
}

function isShape(v: unknown): v is IndexShape {
  return typeof v === 'object' && v !== null && 'dimension' in v && 'metric' in v && typeof v.dimension === 'number' &&
    (v.metric === 'cosine' || v.metric === 'euclidean' || v.metric === 'dotproduct');
}

function checkedEntry(v: unknown): ManifestEntry {
  if (typeof v !== 'object' || v === null) throw new Error('bad namespace entry');
  const get = (key: string): string => {
    const value: unknown = key in v ? Reflect.get(v, key) : undefined;
    if (typeof value !== 'string') throw new Error(`namespace entry: ${key} missing`);
    return value;
  };
  return { name: get('name'), state: get('state'), graph: get('graph'), stateSha256: get('stateSha256'), graphSha256: get('graphSha256') };
}

function parseState(text: string, seq: number): NamespaceState {
  const v: unknown = JSON.parse(text);
  if (typeof v !== 'object' || v === null || !('name' in v) || !('ids' in v) || !('indexed' in v) || !('inGraph' in v) || !('seq' in v)) {
    throw new SnapshotUnusable('state file: missing fields');
  }
  const { name, ids, indexed, inGraph } = v;
  if (v.seq !== seq || typeof name !== 'string' || !Array.isArray(ids) || typeof indexed !== 'string' || typeof inGraph !== 'string') {
    throw new SnapshotUnusable('state file: wrong fields');
  }
  const labels: (string | null)[] = ids.map((id: unknown) => {
    if (id !== null && typeof id !== 'string') throw new SnapshotUnusable('state file: bad id');
    return id;
  });
  return {
    name,
    seq,
    ids: labels,
    indexed: new Uint8Array(Buffer.from(indexed, 'base64')),
    inGraph: new Uint8Array(Buffer.from(inGraph, 'base64')),
  };
}

/** Bytes hashed per read: the graph file is not held whole (it is as large as the vectors). */
const HASH_CHUNK = 1 << 20;

/**
 * sha256 of a file, read in chunks into one reused buffer. Reading a graph file whole
 * (hundreds of MB at 100k × 384) cost more than hashing it: a fresh buffer that size
 * faults in every page, and hnswlib then reads the file again anyway.
 */
function fileSha256(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new SnapshotUnusable(`${path.basename(file)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(HASH_CHUNK);
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, HASH_CHUNK, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
    }
    return hash.digest('hex');
  } catch (err) {
    throw new SnapshotUnusable(`${path.basename(file)}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** fileSha256 without holding the thread: each chunk is read asynchronously. */
async function fileSha256Async(file: string): Promise<string> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(HASH_CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, HASH_CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

async function writeDurablyAsync(file: string, content: string): Promise<void> {
  const temp = `${file}.tmp`;
  await fs.promises.writeFile(temp, content);
  await fsyncFileAsync(temp);
  await fs.promises.rename(temp, file);
}

function readOrUnusable(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new SnapshotUnusable(`${path.basename(file)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function writeDurably(file: string, content: string): void {
  const temp = `${file}.tmp`;
  fs.writeFileSync(temp, content);
  fsyncFile(temp);
  fs.renameSync(temp, file);
}


