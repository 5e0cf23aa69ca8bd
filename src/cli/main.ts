#!/usr/bin/env node
// The `conifer` command: start the server, or administer projects and keys.
import { parseArgs } from 'node:util';
import { DataDirLockedError } from '../catalog/data-dir-lock.js';
import { ConfigError, SETTINGS, loadConfig } from '../config.js';
import { UsageError, keysCommand, projectsCommand } from './admin.js';
import { start } from './start.js';

const USAGE = `usage:
  conifer start [--host H] [--port P] [--data-dir DIR] [--public-url URL] [--api-key KEY] [--log-level L]
                [--log-format json|pretty] [--metrics-auth none|key]
  conifer projects create NAME | list | suspend NAME | resume NAME   [--data-dir DIR]
  conifer keys create|list --project NAME [--name LABEL]             [--data-dir DIR]
  conifer keys revoke KEY_ID --project NAME                          [--data-dir DIR]
Every setting can also come from the environment (CONIFER_DATA_DIR, CONIFER_PORT, ...).`;

async function main(argv: string[]): Promise<void> {
  const settingFlags = Object.fromEntries(
    Object.values(SETTINGS).map(([, flag]) => [flag, { type: 'string' as const }]),
  );
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...settingFlags, project: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean' } },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig(process.env, values as Record<string, string | undefined>);
  switch (command) {
    case 'start':
      await start(config);
      return;
    case 'projects':
      print(projectsCommand(config, rest));
      return;
    case 'keys':
      print(keysCommand(config, rest, { project: values.project as string | undefined, name: values.name as string | undefined }));
      return;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`conifer: ${err.message}\n`);
  } else if (err instanceof Error && (err as { code?: string }).code === 'EADDRINUSE') {
    process.stderr.write(`conifer: ${err.message}; another program uses that port (set CONIFER_PORT)\n`);
  } else if (err instanceof Error && (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    process.stderr.write(`conifer: ${err.message}\n${USAGE}\n`);
  } else {
    process.stderr.write(`conifer: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
