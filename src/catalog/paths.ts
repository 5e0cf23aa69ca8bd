// Layout of the data directory (DESIGN.md "Storage"); the one place that knows it.
import { join } from 'node:path';

export const catalogFile = (dataDir: string): string => join(dataDir, 'catalog.db');
export const lockFile = (dataDir: string): string => join(dataDir, 'conifer.lock');
export const initialKeyFile = (dataDir: string): string => join(dataDir, 'initial-api-key');
export const indexesDir = (dataDir: string): string => join(dataDir, 'indexes');
export const indexDir = (dataDir: string, indexId: string): string => join(dataDir, 'indexes', indexId);
export const collectionDir = (dataDir: string, id: string): string => join(dataDir, 'collections', id);
export const backupDir = (dataDir: string, id: string): string => join(dataDir, 'backups', id);
/** Zeros held in reserve for a full volume (catalog/disk-space.ts). */
export const reserveFile = (dataDir: string): string => join(dataDir, 'disk-reserve');
