// Index lifecycle: create, list, describe, configure, delete (DESIGN.md decision 10).
// Every change is one catalog transaction; work that continues after the answer (a
// scaling change settling, files of a deleted index being removed) is a durable job.
import type { Catalog } from '../catalog/catalog.js';
import { randomAlnum, newId, nowIso } from '../catalog/ids.js';
import type { CollectionRow } from '../catalog/collections.js';
import type { IndexRow, IndexSpec, IndexState, PodSpec, ServerlessSpec } from '../catalog/indexes.js';
import { isPodSpec } from '../catalog/indexes.js';
import type { Project } from '../catalog/projects.js';
import type { Config } from '../config.js';
import { conflict, failedPrecondition, invalid, notFound, paymentRequired, forbidden } from '../errors.js';
import type { ConfigureIndexBody, CreateIndexBody } from './index-bodies.js';
import {
  checkCloudRegion,
  checkDeletionProtection,
  checkDimension,
  checkEnvironment,
  checkMetadataFieldName,
  checkMetadataSchema,
  checkMetric,
  checkName,
  checkPodResize,
  checkPodType,
  checkPositive,
  checkReadCapacity,
  checkTagCount,
  checkTags,
  checkVectorType,
  TAG_RULES,
  type TagRules,
} from './index-rules.js';
import { checkPodQuota, checkServerlessQuota, podsUsed } from './quotas.js';
import type { RestoreRunner } from './restore-runner.js';

/** Whether an index's data plane can serve (see IndexStorage.loadState). */
export type LoadState = 'loaded' | 'loading' | 'failed';

/** What the index service needs of index storage (implemented by the data plane). */
export interface IndexStorage {
  /** Creates the empty storage of a new index; throws (nothing kept) when it cannot be stored. */
  create(index: IndexRow): void;
  /** Forgets and removes the storage of an index whose catalog row was never committed. */
  discard(indexId: string): void;
  /** 'loading' while the engine loads an index (after a restart); 'failed' if it could not. */
  loadState(index: IndexRow): LoadState;
}

export interface JobScheduler {
  /** Wakes the job runner: a job was queued in the transaction that just committed. */
  nudge(): void;
}

/**
 * Create fields that configure cannot change, by where they sit in a configure body. Other
 * unknown fields are ignored (DESIGN decision 4), but a 202 for one of these would promise
 * a change that never comes: a client waiting for it to apply would wait forever.
 */
const FIXED_FIELDS: [path: string, at: (body: Record<string, unknown>) => Record<string, unknown> | undefined, names: string[]][] = [
  ['', (b) => b, ['dimension', 'metric', 'vector_type']],
  ['spec.serverless.', (b) => objectAt(objectAt(b, 'spec'), 'serverless'), ['cloud', 'region']],
  ['spec.pod.', (b) => objectAt(objectAt(b, 'spec'), 'pod'), ['environment', 'pods', 'shards', 'metadata_config']],
];

function objectAt(o: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const v = o?.[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function refuseFixedFields(body: ConfigureIndexBody): void {
  for (const [path, at, names] of FIXED_FIELDS) {
    const o = at(body as Record<string, unknown>);
    for (const name of names) {
      if (o?.[name] !== undefined) throw invalid(`${path}${name} cannot be changed by configure: it is fixed when the index is created`);
    }
  }
}

export class IndexService {
  constructor(
    private readonly config: Config,
    private readonly catalog: Catalog,
    private readonly storage: IndexStorage,
    private readonly jobs: JobScheduler,
    private readonly restorer: RestoreRunner,
  ) {}

  /** The indexes of a project as callers see them (state as the data plane serves). */
  list(project: Project): IndexRow[] {
    return this.catalog.indexes.list(project.id).map((i) => this.asServed(i));
  }

  /** One index as callers see it (state as the data plane serves); 404 when unknown. */
  describe(project: Project, name: string): IndexRow {
    return this.asServed(this.row(project, name));
  }

  /** The catalog row, for changes: its state is the stored one. */
  private row(project: Project, name: string): IndexRow {
    const index = this.catalog.indexes.get(project.id, name);
    if (!index) throw notFound(`Index ${name} not found.`);
    return index;
  }

  /**
   * The record must say what the data plane does (decision 10): an index whose storage
   * is still loading (after a restart) is Initializing, not ready; one whose load failed
   * is InitializationFailed. Stored states that already say "not ready" are kept.
   */
  private asServed(index: IndexRow): IndexRow {
    if (index.state === 'Initializing' || index.state === 'InitializationFailed') return index;
    const load = this.storage.loadState(index);
    if (load === 'loaded') return index;
    return { ...index, state: load === 'loading' ? 'Initializing' : 'InitializationFailed' };
  }

  /** `tagRules`: those of the request's API version (index-rules.ts TagRules). */
  create(project: Project, body: CreateIndexBody, tagRules: TagRules = TAG_RULES): IndexRow {
    requireActive(project);
    const name = checkName('name', body.name);
    const vectorType = checkVectorType(body.vector_type ?? 'dense');
    const metric = checkMetric(body.metric);
    const dimension = checkDimension(vectorType, metric, body.dimension);
    const deletionProtection = checkDeletionProtection('deletion_protection', body.deletion_protection ?? 'disabled');
    const tags = body.tags ?? {};
    checkTags(tags, false, tagRules);
    const spec = this.checkSpec(body.spec);
    const source = this.sourceCollection(project, body.spec, dimension);

    const index: IndexRow = {
      id: newId(),
      projectId: project.id,
      name,
      hostId: `${name}-${randomAlnum(7)}`,
      dimension,
      metric,
      vectorType,
      deletionProtection,
      tags,
      spec,
      // Decision 10: an empty index is usable at once; one built from a collection
      // is Initializing until its records are loaded.
      state: source ? 'Initializing' : 'Ready',
      createdAt: nowIso(),
    };
    let stored = false;
    let restore;
    try {
      restore = this.catalog.transaction(() => {
        this.insertChecked(project, index);
        if (!source) {
          // Last, so a failure here rolls the catalog row back with it.
          this.storage.create(index);
          stored = true;
          return undefined;
        }
        return this.restorer.record(project, 'collection', source.id, index);
      });
    } catch (err) {
      // The commit itself failed (a full disk): the storage made for it belongs to nothing.
      if (stored) this.storage.discard(index.id);
      throw err;
    }
    if (restore) this.restorer.start(restore, index);
    return index;
  }

  /** Inserts a new index row after the name and quota checks (inside a transaction). */
  insertChecked(project: Project, index: IndexRow): void {
    if (this.catalog.indexes.get(project.id, index.name)) {
      throw conflict(`Resource already exists: index ${index.name}.`);
    }
    const existing = this.catalog.indexes.list(project.id);
    if (isPodSpec(index.spec)) checkPodQuota(this.config, existing, null, podsUsed(index.spec.pod));
    else checkServerlessQuota(this.config, existing);
    this.catalog.indexes.insert(index);
  }

  /** The collection named by spec.*.source_collection, checked against the new index. */
  private sourceCollection(
    project: Project,
    spec: CreateIndexBody['spec'],
    dimension: number | null,
  ): CollectionRow | undefined {
    const field = spec.pod ? 'spec.pod' : 'spec.serverless';
    const name = spec.pod?.source_collection ?? spec.serverless?.source_collection;
    if (name === undefined) return undefined;
    const collection = this.catalog.collections.get(project.id, name);
    if (!collection || collection.status === 'Terminating') {
      throw notFound(`${field}.source_collection: collection ${name} not found`);
    }
    if (collection.status !== 'Ready') {
      throw invalid(`${field}.source_collection: collection ${name} is ${collection.status}, not Ready`);
    }
    if (collection.dimension !== dimension) {
      throw invalid(
        `dimension ${dimension ?? '(none)'} does not match the dimension ${collection.dimension} of collection ${name}`,
      );
    }
    return collection;
  }

  configure(project: Project, name: string, body: ConfigureIndexBody, tagRules: TagRules = TAG_RULES): IndexRow {
    requireActive(project);
    const deletionProtection = this.checkProtectionPatch(body);
    if (body.tags !== undefined) checkTags(body.tags, true, tagRules);
    if (body.embed !== undefined) {
      throw invalid('embed is not supported: Conifer stores vectors and does not embed text');
    }
    if (body.spec?.byoc !== undefined) throw invalid('spec.byoc is not supported by Conifer');
    refuseFixedFields(body);

    const updated = this.catalog.transaction(() => {
      const current = this.row(project, name);
      const next: IndexRow = structuredClone(current);
      let transition: IndexState | undefined;
      if (body.spec?.pod !== undefined) {
        if (!isPodSpec(next.spec)) throw invalid('spec.pod cannot be configured on a serverless index');
        transition = this.applyPodPatch(project, next as IndexRow & { spec: PodSpec }, body.spec.pod);
      }
      if (body.spec?.serverless !== undefined) {
        if (isPodSpec(next.spec)) throw invalid('spec.serverless cannot be configured on a pod index');
        const rc = body.spec.serverless.read_capacity;
        if (rc !== undefined) next.spec.serverless.read_capacity = checkReadCapacity('spec.serverless.read_capacity', rc);
      }
      if (deletionProtection !== undefined) next.deletionProtection = deletionProtection;
      if (body.tags !== undefined) {
        for (const [key, value] of Object.entries(body.tags)) {
          if (value === '') delete next.tags[key];
          else next.tags[key] = value;
        }
        checkTagCount(Object.keys(next.tags).length, Object.keys(current.tags).length, tagRules);
      }
      if (transition !== undefined) {
        next.state = transition;
        this.catalog.jobs.cancel(next.id, 'finish-scaling');
        this.catalog.jobs.add('finish-scaling', next.id, {}, Date.now() + this.config.scalingDelayMs);
      }
      this.catalog.indexes.update(next);
      return next;
    });
    if (updated.state !== 'Ready') this.jobs.nudge();
    return this.asServed(updated);
  }

  delete(project: Project, name: string): void {
    const deleted = this.catalog.transaction(() => {
      const index = this.row(project, name);
      const pending = this.catalog.collections.pendingFrom(index.id);
      if (pending.length > 0) {
        throw failedPrecondition(
          `Unable to delete index ${name}: there are pending collections for this index: ` +
            `[${pending.map((c) => `'${c.name}'`).join(', ')}]. Retry when they are Ready.`,
        );
      }
      if (index.deletionProtection === 'enabled') {
        throw forbidden(
          `Deletion protection is enabled for index ${name}. Disable deletion protection ` +
            '(PATCH deletion_protection "disabled") before retrying.',
        );
      }
      this.restorer.failForDeletedIndex(index);
      this.catalog.indexes.delete(index.id);
      this.catalog.jobs.cancel(index.id, 'finish-scaling');
      this.catalog.jobs.add('remove-index-files', index.id, {});
      return index;
    });
    this.restorer.cancel(deleted.id);
    this.jobs.nudge();
  }

  private checkSpec(spec: CreateIndexBody['spec']): IndexSpec {
    // Unknown keys are ignored (decision 4); only the deployment kinds count.
    const kinds = (['serverless', 'pod', 'byoc'] as const).filter((k) => spec[k] !== undefined);
    if (kinds.length !== 1) {
      throw invalid(`spec must have exactly one of "serverless" or "pod", got ${kinds.length === 0 ? 'none' : kinds.join(' and ')}`);
    }
    if (spec.byoc !== undefined) throw invalid('spec.byoc is not supported by Conifer; use "serverless" or "pod"');
    if (spec.serverless !== undefined) {
      const s = spec.serverless;
      checkCloudRegion(this.config, s.cloud, s.region);
      const out: ServerlessSpec = {
        serverless: {
          cloud: s.cloud,
          region: s.region,
          read_capacity: checkReadCapacity('spec.serverless.read_capacity', s.read_capacity ?? { mode: 'OnDemand' }),
        },
      };
      if (s.schema !== undefined) out.serverless.schema = checkMetadataSchema('spec.serverless.schema', s.schema);
      if (s.source_collection !== undefined) out.serverless.source_collection = s.source_collection;
      return out;
    }
    const p = spec.pod!;
    checkEnvironment(this.config, p.environment);
    const out: PodSpec = {
      pod: {
        environment: p.environment,
        pod_type: checkPodType('spec.pod.pod_type', p.pod_type ?? 'p1.x1'),
        pods: checkPositive('spec.pod.pods', p.pods ?? 1),
        replicas: checkPositive('spec.pod.replicas', p.replicas ?? 1),
        shards: checkPositive('spec.pod.shards', p.shards ?? 1),
      },
    };
    if (p.metadata_config !== undefined) {
      for (const name of p.metadata_config.indexed) checkMetadataFieldName('spec.pod.metadata_config.indexed', name);
      out.pod.metadata_config = { indexed: [...p.metadata_config.indexed] };
    }
    if (p.source_collection !== undefined) out.pod.source_collection = p.source_collection;
    return out;
  }

  private checkProtectionPatch(body: ConfigureIndexBody): IndexRow['deletionProtection'] | undefined {
    const a = body.deletion_protection;
    const b = body.delete_protection;
    if (a !== undefined && b !== undefined && a !== b) {
      throw invalid('deletion_protection and delete_protection disagree; send one of them');
    }
    const value = a ?? b;
    if (value === undefined) return undefined;
    return checkDeletionProtection(a !== undefined ? 'deletion_protection' : 'delete_protection', value);
  }

  /** Applies a pod patch to `next` and returns the transitional state it starts, if any. */
  private applyPodPatch(
    project: Project,
    next: IndexRow & { spec: PodSpec },
    patch: { pod_type?: string; replicas?: number },
  ): IndexState | undefined {
    const pod = next.spec.pod;
    let state: IndexState | undefined;
    if (patch.replicas !== undefined) {
      const replicas = checkPositive('spec.pod.replicas', patch.replicas);
      if (replicas > pod.replicas) {
        const wanted = podsUsed({ ...pod, replicas });
        checkPodQuota(this.config, this.catalog.indexes.list(project.id), next.id, wanted);
        state = 'ScalingUp';
      } else if (replicas < pod.replicas) {
        state = 'ScalingDown';
      }
      pod.replicas = replicas;
      // Pods are shards × replicas (pinecone-wire.md): the record's count follows a replica change.
      pod.pods = pod.shards * replicas;
    }
    if (patch.pod_type !== undefined) {
      const podType = checkPodType('spec.pod.pod_type', patch.pod_type);
      checkPodResize(pod.pod_type, podType);
      if (podType !== pod.pod_type) state = 'ScalingUpPodSize';
      pod.pod_type = podType;
    }
    return state;
  }
}

export function requireActive(project: Project): void {
  if (project.suspended) {
    throw paymentRequired(
      `Project ${project.name} is suspended; resume it (conifer projects resume ${project.name}) to make changes.`,
    );
  }
}
