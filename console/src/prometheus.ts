// Reads the Prometheus text format that GET /metrics serves (prom-client's output):
// `name{label="value",...} number` per line, `#` lines are help and type. Only what the
// console charts is derived here: sums over labels and histogram quantiles.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    if (m[2]) {
      for (const l of m[2].matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
    }
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    out.push({ name: m[1], labels, value });
  }
  return out;
}

/** Sum of every sample of `name` whose labels pass `keep`. */
export function sum(samples: Sample[], name: string, keep: (labels: Record<string, string>) => boolean = () => true): number {
  let total = 0;
  for (const s of samples) if (s.name === name && keep(s.labels)) total += s.value;
  return total;
}

export function has(samples: Sample[], name: string): boolean {
  return samples.some((s) => s.name === name);
}

/** Cumulative bucket counts of a histogram summed over its other labels, by `le`. */
export function buckets(
  samples: Sample[],
  name: string,
  keep: (labels: Record<string, string>) => boolean = () => true,
): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of samples) {
    if (s.name !== `${name}_bucket` || !keep(s.labels)) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    out.set(le, (out.get(le) ?? 0) + s.value);
  }
  return out;
}

/**
 * The q-quantile of the observations between two scrapes, from the difference of their
 * cumulative buckets, interpolated linearly inside the bucket (as Prometheus'
 * histogram_quantile does). Undefined when nothing was observed in between.
 */
export function quantileBetween(before: Map<number, number>, after: Map<number, number>, q: number): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = bounds.map((le) => (after.get(le) ?? 0) - (before.get(le) ?? 0));
  const total = delta[delta.length - 1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (delta[i] >= rank) {
      const upper = bounds[i];
      const lower = i === 0 ? 0 : bounds[i - 1];
      if (!Number.isFinite(upper)) return lower; // beyond the last bucket: its lower bound
      const below = i === 0 ? 0 : delta[i - 1];
      const inBucket = delta[i] - below;
      return inBucket <= 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
    }
  }
  return bounds[bounds.length - 2];
}
