// The capacity rule of pod indexes (DESIGN.md "Pods, replicas, shards"): pod_type × pods
// bounds the records an index holds, and a write that would pass it is refused with a
// clear 400 (never 429). Used by stats (indexFullness) and by the writer thread.
import { isPodSpec, type IndexRow } from '../catalog/indexes.js';
import { invalid } from '../errors.js';
import { POD_CAPACITY_X1 } from '../limits.js';

/** Records per pod (capacity) of a pod index, or undefined for serverless. */
export function podCapacity(index: IndexRow): number | undefined {
  if (!isPodSpec(index.spec)) return undefined;
  const [family, size] = index.spec.pod.pod_type.split('.');
  const multiplier = Number(size.slice(1));
  return POD_CAPACITY_X1[family] * multiplier * index.spec.pod.pods;
}

/** Throws the 400 when `adding` records to the `holding` an index has would pass its capacity. */
export function checkPodCapacity(index: IndexRow, holding: number, adding: number): void {
  const capacity = podCapacity(index);
  if (capacity === undefined) return;
  if (holding + adding > capacity) {
    throw invalid(
      `index ${index.name} is full: ${capacity} records fit its ${isPodSpec(index.spec) ? index.spec.pod.pod_type : ''} ` +
        'pods; configure a larger pod type or delete records',
    );
  }
}
