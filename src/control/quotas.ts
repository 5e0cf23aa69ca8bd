// Per-project quotas (403 FORBIDDEN naming the quota when exceeded).
import type { IndexRow, PodSpec } from '../catalog/indexes.js';
import { isPodSpec } from '../catalog/indexes.js';
import type { Config } from '../config.js';
import { forbidden } from '../errors.js';

/**
 * Pods a pod index occupies. Pinecone asks that pods = shards × replicas; callers may
 * send a larger `pods`, so the index uses whichever is larger.
 */
export const podsUsed = (pod: PodSpec['pod']): number => Math.max(pod.pods, pod.shards * pod.replicas);

export function checkServerlessQuota(config: Config, existing: IndexRow[]): void {
  const count = existing.filter((i) => !isPodSpec(i.spec)).length;
  if (count + 1 > config.quotaServerlessIndexes) {
    throw forbidden(
      `serverless index quota exceeded: the project has ${count} of ${config.quotaServerlessIndexes} ` +
        'allowed (CONIFER_QUOTA_SERVERLESS_INDEXES). Delete an index or raise the quota.',
    );
  }
}

/** `wanted` pods for `changing` (an index being created or resized), on top of the rest. */
export function checkPodQuota(config: Config, existing: IndexRow[], changingId: string | null, wanted: number): void {
  let others = 0;
  for (const i of existing) {
    if (i.id !== changingId && isPodSpec(i.spec)) others += podsUsed(i.spec.pod);
  }
  if (others + wanted > config.quotaPods) {
    throw forbidden(
      `pod quota exceeded: the project's other indexes use ${others} of ${config.quotaPods} pods and this index would use ${wanted} ` +
        '(CONIFER_QUOTA_PODS). Delete or shrink a pod index, or raise the quota.',
    );
  }
}
