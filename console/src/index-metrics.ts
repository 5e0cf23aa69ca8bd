// Per-index figures from /metrics (disk bytes). The `index` label may hold the index name
// or its id (the host's `<name>-<id7>` suffix); both are matched so the console does not
// depend on which one the server chose.
import type { IndexModel } from './api';
import type { Sample } from './prometheus';

export function labelIsIndex(label: string | undefined, index: IndexModel): boolean {
  if (!label) return false;
  const hostId = index.host.split('/').pop() ?? '';
  return label === index.name || label === hostId || hostId === `${index.name}-${label}`;
}

export function indexFigure(samples: Sample[] | null, name: string, index: IndexModel): number | undefined {
  if (!samples) return undefined;
  const s = samples.find((x) => x.name === name && labelIsIndex(x.labels.index, index));
  return s?.value;
}
