// `conifer projects …` and `conifer keys …`: catalog administration. They open the
// catalog directly (safe beside a running server: WAL and per-request key lookups) and
// print one JSON document, so scripts can use them. They never create a data directory:
// run from the wrong directory, the default `./conifer-data` would otherwise be a new,
// empty catalog whose keys the running server does not know.
import { existsSync } from 'node:fs';
import { Catalog } from '../catalog/catalog.js';
import { catalogFile } from '../catalog/paths.js';
import type { ApiKeyInfo, Project } from '../catalog/projects.js';
import type { Config } from '../config.js';
import { NAME_MAX_LENGTH, NAME_PATTERN } from '../limits.js';

export class UsageError extends Error {}

const projectJson = (p: Project): Record<string, unknown> => ({
  id: p.id,
  name: p.name,
  suspended: p.suspended,
  created_at: p.createdAt,
});

const keyJson = (k: ApiKeyInfo, project: string): Record<string, unknown> => ({
  id: k.id,
  name: k.name,
  project,
  created_at: k.createdAt,
  revoked: k.revoked,
});

function requireProject(catalog: Catalog, name: string | undefined): Project {
  if (!name) throw new UsageError('--project NAME is required');
  const project = catalog.projects.get(name);
  if (!project) throw new UsageError(`project ${JSON.stringify(name)} does not exist`);
  return project;
}

/** Opens the catalog of a data directory that `conifer start` has initialised, or refuses. */
function openExistingCatalog(dataDir: string): Catalog {
  if (!existsSync(catalogFile(dataDir))) {
    throw new UsageError(
      `${dataDir} is not a Conifer data directory (no ${catalogFile(dataDir)}); only \`conifer start\` creates one. ` +
        'Run this command where you started Conifer, or set CONIFER_DATA_DIR (--data-dir) to its data directory.',
    );
  }
  return Catalog.open(dataDir);
}

export function projectsCommand(config: Config, args: string[]): unknown {
  const [action, name] = args;
  const catalog = openExistingCatalog(config.dataDir);
  try {
    switch (action) {
      case 'create': {
        if (!name || name.length > NAME_MAX_LENGTH || !NAME_PATTERN.test(name)) {
          throw new UsageError(
            `project name must be 1-${NAME_MAX_LENGTH} lower-case letters, digits or '-', got ${JSON.stringify(name ?? '')}`,
          );
        }
        if (catalog.projects.get(name)) throw new UsageError(`project ${JSON.stringify(name)} already exists`);
        return projectJson(catalog.projects.create(name));
      }
      case 'list':
        return { projects: catalog.projects.list().map(projectJson) };
      case 'suspend':
      case 'resume': {
        const project = requireProject(catalog, name);
        catalog.projects.setSuspended(project.id, action === 'suspend');
        return projectJson(catalog.projects.get(project.name)!);
      }
      default:
        throw new UsageError('usage: conifer projects create NAME | list | suspend NAME | resume NAME');
    }
  } finally {
    catalog.close();
  }
}

export function keysCommand(
  config: Config,
  args: string[],
  options: { project?: string; name?: string },
): unknown {
  const [action, keyId] = args;
  const catalog = openExistingCatalog(config.dataDir);
  try {
    const project = requireProject(catalog, options.project);
    switch (action) {
      case 'create': {
        const { info, secret } = catalog.projects.createKey(project.id, options.name ?? 'cli');
        return { ...keyJson(info, project.name), key: secret };
      }
      case 'list':
        return { keys: catalog.projects.listKeys(project.id).map((k) => keyJson(k, project.name)) };
      case 'revoke':
        if (!keyId) throw new UsageError('usage: conifer keys revoke KEY_ID --project NAME');
        if (!catalog.projects.revokeKey(project.id, keyId)) {
          throw new UsageError(`project ${project.name} has no active key ${JSON.stringify(keyId)}`);
        }
        return { id: keyId, project: project.name, revoked: true };
      default:
        throw new UsageError('usage: conifer keys create|list|revoke [KEY_ID] --project NAME [--name LABEL]');
    }
  } finally {
    catalog.close();
  }
}
