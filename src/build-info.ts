// What this build is (GET /version, the OpenAPI document): the package version from
// package.json and the git commit recorded at build time by scripts/write-build-info.mjs
// in dist/build-info.json ("unknown" when the build did not come from a git checkout).
// Paths are relative to the compiled file, dist/src/build-info.js.
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  version: string;
  commit: string;
}

let cached: BuildInfo | undefined;

function readJson(relative: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function buildInfo(): BuildInfo {
  if (!cached) {
    const pkg = readJson('../../package.json');
    const build = readJson('../build-info.json');
    cached = {
      version: typeof pkg?.version === 'string' ? pkg.version : 'unknown',
      commit: typeof build?.commit === 'string' && build.commit !== '' ? build.commit : 'unknown',
    };
  }
  return cached;
}
