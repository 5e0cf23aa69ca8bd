// Builds the web console into dist/console (served by src/server/routes/console.ts).
// Everything is bundled: the console works offline and loads nothing from a CDN.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // JSX compiled for Preact (no React): `<div>` → preact's jsx() from preact/jsx-runtime.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // Small enough to read in the browser's devtools without maps; keeps dist small.
    sourcemap: false,
  },
  logLevel: 'warn',
});
