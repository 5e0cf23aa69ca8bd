// `conifer start`: takes the data-directory lock, opens the catalog, makes sure the
// default project has a key, serves HTTP, then recovers (runs unfinished jobs) while
// already listening (/ready says when that is done). SIGTERM/SIGINT stop it cleanly.
// In dev mode without a data directory it runs on a temporary one, removed at exit.
import { rmSync, writeFileSync } from 'node:fs';
import { Catalog } from '../catalog/catalog.js';
import { DataDirLock } from '../catalog/data-dir-lock.js';
import { DiskSpace } from '../catalog/disk-space.js';
import { initialKeyFile } from '../catalog/paths.js';
import { newApiKeySecret } from '../catalog/ids.js';
import { DEFAULT_PROJECT } from '../catalog/projects.js';
import type { Config } from '../config.js';
import { IndexService } from '../control/index-service.js';
import { BackupService } from '../control/backup-service.js';
import { CollectionService } from '../control/collection-service.js';
import { JobRunner } from '../control/job-runner.js';
import { RestoreRunner } from '../control/restore-runner.js';
import { Copies } from '../data/copies.js';
import { ImportRunner } from '../data/import-runner.js';
import { ImportService } from '../data/import-service.js';
import { IndexGauges } from '../data/index-gauges.js';
import { IndexRegistry } from '../data/index-registry.js';
import { VectorService } from '../data/vector-service.js';
import { WriterClient } from '../data/writer/writer-client.js';
import { EngineClient } from '../engine/engine-client.js';
import { writerNice } from '../engine/thread-priority.js';
import { createLogger } from '../log.js';
import { buildApp } from '../server/app.js';

export async function start(config: Config): Promise<void> {
  try {
    await serve(config);
  } catch (err) {
    removeEphemeralDataDir(config);
    throw err;
  }
}

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, config.logFormat);
  // Start-up lines print whatever CONIFER_LOG_LEVEL says (a child logger keeps its own
  // level): scripts wait for the address, and a generated key is printed only once.
  const announce = log.child({}, { level: 'info' });
  const lock = DataDirLock.acquire(config.dataDir);
  // Before the catalog opens: on a full volume the reserve makes room for its -wal/-shm.
  const disk = new DiskSpace(
    config.dataDir,
    { minFreeBytes: config.minFreeBytes, reserveBytes: config.diskReserveBytes },
    log,
  );
  disk.prepare();
  const catalog = Catalog.open(config.dataDir);
  const generatedKey = ensureDefaultProject(catalog, config);
  if (generatedKey) {
    // Printed before anything can fail (a port in use): the key is already in the catalog.
    // The one line that carries a key, on purpose.
    announce.info(
      `Generated the API key of project "${DEFAULT_PROJECT}" (shown once; also written to ` +
        `${initialKeyFile(config.dataDir)}): ${generatedKey}`,
    );
  } else if (config.apiKey !== undefined && catalog.projects.authenticate(config.apiKey)?.name !== DEFAULT_PROJECT) {
    log.warn(
      `CONIFER_API_KEY (--api-key) IS IGNORED: data directory ${config.dataDir} is already initialised and the ` +
        `key given is not a key of project "${DEFAULT_PROJECT}". It only chooses the key on first start; ` +
        `add keys with \`conifer keys create --project ${DEFAULT_PROJECT}\`.`,
    );
  } else if (config.apiKey !== undefined && config.apiKey.length < WEAK_KEY_LENGTH) {
    // The key chosen is the default project's: it guards every index, so say when it is short.
    log.warn(
      `CONIFER_API_KEY (--api-key) is ${config.apiKey.length} characters: a key that short can be guessed by ` +
        `anyone who reaches the port. Use ${WEAK_KEY_LENGTH} or more random characters, or leave it unset on ` +
        'the first start and Conifer generates one.',
    );
  }
  if (config.dev) {
    const where = config.ephemeralDataDir
      ? `temporary data directory ${config.dataDir}, removed at exit`
      : `data directory ${config.dataDir}, kept`;
    announce.warn(
      { dataDir: config.dataDir, ephemeral: config.ephemeralDataDir },
      `*** DEVELOPMENT MODE: any Api-Key value is accepted as project "${DEFAULT_PROJECT}"'s key; ${where}. ` +
        'Never expose this server. ***',
    );
  }

  let ready = false;
  const engine = new EngineClient(
    log,
    config.engineWorkers,
    { backgroundNice: config.backgroundNice, insertThreads: config.insertThreads, queryThreads: config.queryThreads },
    recoverable(catalog).length,
  );
  const writer = new WriterClient(engine, log, writerNice(config.backgroundNice));
  const registry = new IndexRegistry(config.dataDir, engine, writer, log);
  const copies = new Copies(config.dataDir, registry, log);
  const runner = new JobRunner(
    catalog,
    {
      removeIndexFiles: (id) => registry.removeIndexFiles(id),
      removeCopyFiles: (kind, id) => copies.removeFiles(kind, id),
    },
    log,
  );
  const restorer = new RestoreRunner(catalog, copies, log);
  const indexes = new IndexService(config, catalog, registry, runner, restorer);
  const collections = new CollectionService(config, catalog, copies, runner, log);
  const backups = new BackupService(config, catalog, indexes, copies, restorer, runner, log);
  const vectors = new VectorService(registry);
  const importRunner = new ImportRunner(catalog, vectors, disk, config.importRoot, log);
  const imports = new ImportService(catalog, importRunner, config.importRoot);
  const indexGauges = new IndexGauges(catalog, registry, config.dataDir);
  const app = await buildApp(
    { config, catalog, disk, indexes, collections, backups, vectors, imports, indexGauges, isReady: () => ready && engine.searchable },
    log,
  );

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    await app.close(); // stops accepting; in-flight requests finish
    await runner.stop(); // background work stops at a safe point
    await importRunner.stop(); // at a batch boundary; resumes at the next start
    await writer.stop(); // idle: every write request has been answered
    registry.close();
    await engine.stop();
    catalog.close();
    lock.release();
    removeEphemeralDataDir(config);
    process.exit(0);
  };
  // Registered before the listening line is printed: scripts (and tests) send SIGTERM as
  // soon as they read it, and a signal with no listener yet kills the process outright.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ host: config.host, port: config.port });
  announce.info({ address, dataDir: config.dataDir }, `Conifer listening on ${address} (data directory ${config.dataDir})`);
  warnIfUnreachableByPython(config, address, app.log);

  // Recovery while listening: unfinished jobs first (a deleted index's files must not be
  // loaded), then every index into the engine. Until then /ready answers 503.
  // On a full volume the catalog writes of recovery can fail; the server still serves
  // reads and deletes, and the next start repeats what did not happen.
  bestEffort(log, 'marking interrupted copies Failed', () => {
    collections.failInterrupted();
    backups.failInterrupted();
  });
  await runner.start();
  // Listed again, not reused from the engine's warm-up count: runner.start() may just
  // have finished deleting an index, whose files must not be loaded.
  await registry.recover(recoverable(catalog));
  bestEffort(log, 'resuming restores', () => restorer.resume());
  importRunner.start(); // queued and interrupted imports, now that every index is loaded
  ready = true;
  log.info({ engineWorkers: engine.maxWorkers }, 'ready');
}

/** The indexes a start loads into the engine (one still Initializing has no files yet). */
function recoverable(catalog: Catalog): ReturnType<Catalog['indexes']['listAll']> {
  return catalog.indexes.listAll().filter((i) => i.state !== 'Initializing');
}

function bestEffort(log: { error(obj: object, msg: string): void }, what: string, step: () => void): void {
  try {
    step();
  } catch (err) {
    log.error({ err }, `${what} failed; will be retried at the next start`);
  }
}

function removeEphemeralDataDir(config: Config): void {
  if (config.ephemeralDataDir) rmSync(config.dataDir, { recursive: true, force: true });
}

/** Keys chosen shorter than this get a warning at start (a generated key has 47 characters). */
const WEAK_KEY_LENGTH = 16;

/** On first start: the default project and its key. Returns a key that was generated. */
function ensureDefaultProject(catalog: Catalog, config: Config): string | undefined {
  if (catalog.projects.get(DEFAULT_PROJECT)) return undefined;
  return catalog.transaction(() => {
    const project = catalog.projects.create(DEFAULT_PROJECT);
    const secret = config.apiKey ?? newApiKeySecret();
    catalog.projects.createKey(project.id, 'initial', secret);
    if (config.apiKey !== undefined) return undefined;
    writeFileSync(initialKeyFile(config.dataDir), `${secret}\n`, { mode: 0o600 });
    return secret;
  });
}

/** The Python client refuses hosts without a '.' unless they say localhost (decision 2). */
function warnIfUnreachableByPython(config: Config, address: string, log: { warn(msg: string): void }): void {
  const advertised = config.publicUrl ?? address;
  const host = new URL(advertised).hostname;
  if (!host.includes('.') && host !== 'localhost' && !host.startsWith('[')) {
    log.warn(
      `advertised host ${host} has no "." and is not localhost: the Python client will refuse index hosts ` +
        'built on it; set CONIFER_PUBLIC_URL to an address with a dot or localhost',
    );
  }
}
