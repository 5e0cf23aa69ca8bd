// The on-disk home of each index (`<data dir>/indexes/<index id>/`).
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { indexDir } from '../catalog/paths.js';
import type { IndexStorage } from '../control/index-service.js';
import type { JobHandlers } from '../control/job-runner.js';

export class IndexFiles implements IndexStorage, JobHandlers {
  constructor(private readonly dataDir: string) {}

  create(indexId: string): void {
    mkdirSync(indexDir(this.dataDir, indexId), { recursive: true });
  }

  async removeIndexFiles(indexId: string): Promise<void> {
    await rm(indexDir(this.dataDir, indexId), { recursive: true, force: true });
  }
}
