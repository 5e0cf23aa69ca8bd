// Small display helpers shared by the views.
export function bytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export function count(n: number | undefined): string {
  return n === undefined ? '—' : n.toLocaleString('en-US');
}

/** "serverless aws/us-east-1" or "pod p1.x1 × 1 (us-east-1-aws)". */
export function specSummary(spec: {
  serverless?: { cloud: string; region: string };
  pod?: { pod_type: string; pods?: number; replicas?: number; environment: string };
}): string {
  if (spec.serverless) return `serverless ${spec.serverless.cloud}/${spec.serverless.region}`;
  if (spec.pod) {
    const p = spec.pod;
    return `pod ${p.pod_type} × ${p.pods ?? 1}, ${p.replicas ?? 1} replica(s) (${p.environment})`;
  }
  return 'unknown';
}
