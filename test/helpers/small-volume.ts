// A small, separately mounted volume for full-disk tests: a tmpfs of a few MiB. Mounting
// needs root (CI runs as root); elsewhere `mountSmallVolume` says why it cannot, and the
// caller skips with that reason printed.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallVolume {
  dir: string;
  unmount(): void;
}

export function mountSmallVolume(sizeMiB: number): SmallVolume | { skip: string } {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return { skip: 'full-disk test skipped: it mounts a tmpfs, which needs root (CI runs as root)' };
  }
  const dir = mkdtempSync(join(tmpdir(), 'conifer-small-volume-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `full-disk test skipped: mounting a tmpfs is not permitted here (${String(err).split('\n')[0]})` };
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `path` until the volume refuses (ENOSPC), in shrinking chunks. Returns the bytes written. */
export function fillVolume(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const chunk of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const buf = Buffer.alloc(chunk, 1);
      // Bounded: a volume of a few MiB takes at most a few thousand chunks of any size.
      for (let i = 0; i < 100_000; i++) {
        try {
          written += writeSync(fd, buf);
        } catch (err) {
          if ((err as { code?: string }).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}
