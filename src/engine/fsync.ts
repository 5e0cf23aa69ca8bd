// fsync of a file's contents or of a directory's entries: the two halves of "write to a
// temp name, fsync, rename, fsync the directory" (DESIGN.md "Storage"). A rename or a new
// file is durable only once its directory is fsynced.
import fs from 'node:fs';

export function fsyncFile(file: string): void {
  fsyncPath(file, 'r+');
}

/** fsyncFile without holding the thread (the fsync runs on a libuv pool thread). */
export async function fsyncFileAsync(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function fsyncDirectory(dir: string): void {
  fsyncPath(dir, 'r');
}

function fsyncPath(path: string, flags: string): void {
  const fd = fs.openSync(path, flags);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
