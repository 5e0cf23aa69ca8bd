// `conifer import --index NAME DIR`: a bulk import through the running server's API
// (POST /bulk/imports), then its progress until it ends. It goes through the server
// rather than writing the data directory itself because the server holds the directory's
// lock while it runs, and because the server's import is the one that validates, resumes
// after a restart and keeps the index searchable meanwhile. The server must have
// CONIFER_IMPORT_ROOT set to a directory containing DIR.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { initialKeyFile } from '../catalog/paths.js';
import type { Config } from '../config.js';
import { CURRENT_VERSION } from '../server/api-version.js';
import { UsageError } from './admin.js';
import { Progress } from './progress.js';

const POLL_MS = 500;

export interface ImportOptions {
  index?: string;
  dir?: string;
  url?: string;
  onError?: string;
}

interface ImportModel {
  id: string;
  status: string;
  percentComplete: number;
  recordsImported: number;
  error?: string;
}

export async function importCommand(config: Config, opts: ImportOptions): Promise<ImportModel> {
  if (!opts.index) throw new UsageError('--index NAME is required');
  if (!opts.dir) throw new UsageError('the directory to import is required: conifer import --index NAME DIR');
  if (opts.onError !== undefined && opts.onError !== 'abort' && opts.onError !== 'continue') {
    throw new UsageError(`--on-error must be abort or continue, got ${JSON.stringify(opts.onError)}`);
  }
  const base = (opts.url ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`).replace(/\/+$/, '');
  const key = config.apiKey ?? readInitialKey(config.dataDir);
  const call = async (method: string, url: string, body?: unknown): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          'Api-Key': key,
          'X-Pinecone-Api-Version': CURRENT_VERSION,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new UsageError(`cannot reach the Conifer server at ${base} (set --url): ${err instanceof Error ? err.message : String(err)}`);
    }
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const error = json.error as { message?: string } | undefined;
      throw new UsageError(`${method} ${url}: ${res.status} ${error?.message ?? JSON.stringify(json)}`);
    }
    return json;
  };

  const index = await call('GET', `${base}/indexes/${encodeURIComponent(opts.index)}`);
  const host = String(index.host);
  const started = await call('POST', `${host}/bulk/imports`, {
    uri: resolve(opts.dir),
    errorMode: { onError: opts.onError ?? 'abort' },
  });
  const id = String(started.id);
  const progress = new Progress(`import ${id} into ${opts.index}`);
  // Ctrl-C cancels the import on the server (at its next batch) rather than orphaning it.
  const onInterrupt = (): void => {
    void call('DELETE', `${host}/bulk/imports/${id}`).finally(() => process.exit(130));
  };
  process.once('SIGINT', onInterrupt);
  try {
    for (;;) {
      const model = (await call('GET', `${host}/bulk/imports/${id}`)) as unknown as ImportModel;
      progress.update(model.percentComplete, model.recordsImported);
      if (model.status === 'Completed' || model.status === 'Failed' || model.status === 'Cancelled') {
        progress.done();
        if (model.status !== 'Completed') {
          throw new UsageError(`import ${id} ${model.status.toLowerCase()}: ${model.error ?? 'no reason given'}`);
        }
        return model;
      }
      await sleep(POLL_MS);
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}

function readInitialKey(dataDir: string): string {
  const file = initialKeyFile(dataDir);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new UsageError('an API key is required: --api-key KEY or CONIFER_API_KEY');
}
