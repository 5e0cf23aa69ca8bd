#!/usr/bin/env node
// The `conifer` command: start the server, or administer projects and keys.
import { parseArgs } from 'node:util';
import { DataDirLockedError } from '../catalog/data-dir-lock.js';
import { BOOLEAN_SETTINGS, ConfigError, SETTINGS, loadConfig } from '../config.js';
import { UsageError, keysCommand, projectsCommand } from './admin.js';

const USAGE = `usage:
  conifer start [--host H] [--port P] [--data-dir DIR] [--public-url URL] [--api-key KEY] [--log-level L] [--dev]
                [--log-format json|pretty] [--metrics-auth none|key]
  conifer projects create NAME | list | suspend NAME | resume NAME   [--data-dir DIR]
  conifer keys create|list --project NAME [--name LABEL]             [--data-dir DIR]
  conifer keys revoke KEY_ID --project NAME                          [--data-dir DIR]
  conifer export --index NAME [--namespace NS] --out DIR [--project NAME] [--data-dir DIR]
  conifer import --index NAME DIR [--url URL] [--api-key KEY] [--on-error abort|continue]
Every setting can also come from the environment (CONIFER_DATA_DIR, CONIFER_PORT, ...).`;

async function main(argv: string[]): Promise<void> {
  const settingFlags = Object.fromEntries(
    Object.entries(SETTINGS).map(([key, [, flag]]) => [
      flag,
      { type: BOOLEAN_SETTINGS.has(key as keyof typeof SETTINGS) ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...settingFlags,
      project: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean' },
      index: { type: 'string' },
      namespace: { type: 'string' },
      out: { type: 'string' },
      url: { type: 'string' },
      'on-error': { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // A switch given on the command line reads as the variable's "1".
  const flags = Object.fromEntries(
    Object.entries(values).map(([flag, value]) => [flag, value === true ? '1' : (value as string | undefined)]),
  );
  const config = loadConfig(process.env, flags);
  if (command === 'projects' || command === 'keys') {
    // Said every time: a wrong directory is the usual reason a key "does not work".
    process.stderr.write(`conifer: data directory ${config.dataDir}\n`);
  }
  // The server's, export's and import's modules are loaded only by their command: the
  // server's take ~0.5 s to load, export's and import's Parquet and HTTP-client code
  // ~0.1 s more, and a start (a restart included) should not wait for code it never runs.
  switch (command) {
    case 'start':
      await (await import('./start.js')).start(config);
      return;
    case 'projects':
      print(projectsCommand(config, rest));
      return;
    case 'keys':
      print(keysCommand(config, rest, { project: values.project as string | undefined, name: values.name as string | undefined }));
      return;
    case 'export': {
      const { exportCommand } = await import('./export.js');
      print(await exportCommand(config, { index: values.index, namespace: values.namespace, out: values.out, project: values.project }));
      return;
    }
    case 'import': {
      const { importCommand } = await import('./import.js');
      print(
        await importCommand(config, {
          index: values.index,
          dir: rest[0],
          url: values.url ?? process.env.CONIFER_URL,
          onError: values['on-error'],
        }),
      );
      return;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** File system errors a path given by the user causes: reported as their message, without a stack. */
const FILE_SYSTEM_ERRORS = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'ENAMETOOLONG']);

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`conifer: ${err.message}\n`);
  } else if (err instanceof Error && (err as { code?: string }).code === 'EADDRINUSE') {
    process.stderr.write(`conifer: ${err.message}; another program uses that port (set CONIFER_PORT)\n`);
  } else if (err instanceof Error && FILE_SYSTEM_ERRORS.has((err as { code?: string }).code ?? '')) {
    // A path that cannot be used (the data directory is a file, lies under one, is read-only...): the message names it.
    process.stderr.write(`conifer: ${err.message}\n`);
  } else if (err instanceof Error && (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    process.stderr.write(`conifer: ${err.message}\n${USAGE}\n`);
  } else {
    process.stderr.write(`conifer: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
