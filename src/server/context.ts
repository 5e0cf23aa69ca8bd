// What the HTTP layer is given: configuration and the services it calls.
import type { Catalog } from '../catalog/catalog.js';
import type { DiskSpace } from '../catalog/disk-space.js';
import type { Config } from '../config.js';
import type { BackupService } from '../control/backup-service.js';
import type { CollectionService } from '../control/collection-service.js';
import type { IndexService } from '../control/index-service.js';
import type { ImportService } from '../data/import-service.js';
import type { VectorService } from '../data/vector-service.js';

export interface ServerContext {
  config: Config;
  catalog: Catalog;
  /** Free-space threshold and disk reserve of the data directory. */
  disk: DiskSpace;
  indexes: IndexService;
  collections: CollectionService;
  backups: BackupService;
  vectors: VectorService;
  imports: ImportService;
  /** True once every index has been recovered (GET /ready). */
  isReady(): boolean;
}
