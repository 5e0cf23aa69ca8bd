// The logger's redaction: the net under "never a key" catches fields named like keys
// wherever a future log call puts them. Run in a child process, since the logger writes
// to the process's stdout.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const logModule = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'log.js')).href;

function logOnce(format: string, fields: Record<string, unknown>): string {
  const script =
    `const { createLogger } = await import(${JSON.stringify(logModule)});` +
    `createLogger('info', ${JSON.stringify(format)}).info(${JSON.stringify(fields)}, 'hello');`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
}

describe('logger', () => {
  const fields = {
    apiKey: 'secret-one',
    key: 'secret-two',
    request: { headers: { 'api-key': 'secret-three', authorization: 'secret-four' } },
    project: { name: 'p', secret: 'secret-five' },
    kept: 'visible',
  };

  it('redacts key-like fields in JSON lines and keeps the rest', () => {
    const out = logOnce('json', fields);
    const line = JSON.parse(out.trim()) as Record<string, unknown>;
    assert.equal(line.msg, 'hello');
    assert.equal(line.kept, 'visible');
    assert.equal(line.apiKey, '[redacted]');
    assert.deepEqual((line.project as Record<string, unknown>).name, 'p');
    assert.doesNotMatch(out, /secret-/);
  });

  it('redacts the same fields in pretty output', () => {
    const out = logOnce('pretty', fields);
    assert.match(out, /hello/);
    assert.match(out, /visible/);
    assert.doesNotMatch(out, /secret-/);
  });
});
