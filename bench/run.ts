// `npm run bench -- --size tiny|small|medium|large [--queries N] [--out DIR] [--only import]`
// `--only import` runs the bulk import phase alone (import-bench.ts).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SIZE_NAMES, type SizeName } from './data.js';
import { runBenchmark } from './harness.js';
import { runImportBenchmark } from './import-bench.js';

const here = dirname(fileURLToPath(import.meta.url));
// dist/bench -> bench/results in the source tree.
const defaultOut = join(here, '..', '..', 'bench', 'results');

function usage(message: string): never {
  console.error(`${message}\nusage: npm run bench -- [--size ${SIZE_NAMES.join('|')}] [--queries N] [--out DIR] [--only import]`);
  process.exit(2);
}

let size: SizeName = 'small';
let queries: number | undefined;
let outDir = defaultOut;
let only: 'import' | undefined;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split('=', 2);
  const value = (): string => inline ?? args[++i] ?? usage(`${flag} needs a value`);
  if (flag === '--size') {
    const v = value();
    if (!(SIZE_NAMES as readonly string[]).includes(v)) usage(`unknown size ${v}`);
    size = v as SizeName;
  } else if (flag === '--queries') {
    const n = Number(value());
    if (!Number.isInteger(n) || n < 1) usage('--queries must be a positive integer');
    queries = n;
  } else if (flag === '--out') {
    outDir = resolve(value());
  } else if (flag === '--only') {
    const v = value();
    if (v !== 'import') usage(`--only takes "import", got ${v}`);
    only = v;
  } else if (flag === '--help' || flag === '-h') {
    usage('Conifer benchmark');
  } else usage(`unknown argument ${args[i]}`);
}

try {
  if (only === 'import') await runImportBenchmark({ size, outDir });
  else await runBenchmark({ size, outDir, queries });
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
}
