// Principal component analysis to two dimensions, for the namespace map.
//
// Why power iteration: the map needs only the top two eigenvectors of the covariance
// matrix C of a few thousand vectors. C is d×d (d up to 20,000 — 3 GB as float64), so it
// is never formed: C·v = Xᵀ(X·v)/n costs O(n·d) with X the centred sample. Repeating
// v ← C·v / |C·v| converges to the top eigenvector u1 at the rate λ2/λ1; the second is
// found the same way while projecting u1 out of v at each step (deflation), which keeps
// the iteration in the subspace orthogonal to u1. A few hundred steps of O(n·d) are well
// under a second for 5,000 × 1,536 in a browser.

export interface Projection {
  /** x, y per input row, interleaved: [x0, y0, x1, y1, …]. */
  points: Float64Array;
  /** Share of the total variance along each component (0..1). */
  explained: [number, number];
}

const MAX_STEPS = 300;
const TOLERANCE = 1e-10;

export function pca2(rows: ArrayLike<number>[]): Projection {
  const n = rows.length;
  const d = n > 0 ? rows[0].length : 0;
  const points = new Float64Array(2 * n);
  if (n === 0 || d === 0) return { points, explained: [0, 0] };

  // Centre the sample: PCA is about variance around the mean.
  const mean = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / n;
  const x: Float64Array[] = rows.map((r) => {
    const c = new Float64Array(d);
    for (let j = 0; j < d; j++) c[j] = r[j] - mean[j];
    return c;
  });
  let totalVariance = 0;
  for (const c of x) for (let j = 0; j < d; j++) totalVariance += (c[j] * c[j]) / n;

  const u1 = topEigenvector(x, d, null);
  const u2 = d > 1 ? topEigenvector(x, d, u1.vector) : { vector: new Float64Array(d), value: 0 };
  for (let i = 0; i < n; i++) {
    points[2 * i] = dot(x[i], u1.vector);
    points[2 * i + 1] = dot(x[i], u2.vector);
  }
  const share = (v: number): number => (totalVariance > 0 ? v / totalVariance : 0);
  return { points, explained: [share(u1.value), share(u2.value)] };
}

/** Power iteration for the top eigenvector of XᵀX/n, orthogonal to `exclude` if given. */
function topEigenvector(
  x: Float64Array[],
  d: number,
  exclude: Float64Array | null,
): { vector: Float64Array; value: number } {
  // A fixed, deterministic start (same map for the same data), not orthogonal to any
  // axis-aligned direction in practice.
  let v: Float64Array = new Float64Array(d);
  for (let j = 0; j < d; j++) v[j] = 1 + ((j * 7919) % 13) / 13;
  if (exclude) removeComponent(v, exclude);
  normalise(v);
  let value = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    const next = covarianceTimes(x, d, v);
    if (exclude) removeComponent(next, exclude);
    value = Math.sqrt(dot(next, next)); // |C·v| → λ as v → the eigenvector
    if (value === 0) break; // no variance left in this subspace
    for (let j = 0; j < d; j++) next[j] /= value;
    let change = 0;
    for (let j = 0; j < d; j++) change += (next[j] - v[j]) ** 2;
    v = next;
    if (change < TOLERANCE) break;
  }
  return { vector: v, value };
}

/** C·v = Xᵀ(X·v)/n without forming C. */
function covarianceTimes(x: Float64Array[], d: number, v: Float64Array): Float64Array {
  const out = new Float64Array(d);
  for (const row of x) {
    const s = dot(row, v) / x.length;
    for (let j = 0; j < d; j++) out[j] += s * row[j];
  }
  return out;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += a[j] * b[j];
  return s;
}

function normalise(v: Float64Array): void {
  const len = Math.sqrt(dot(v, v));
  if (len > 0) for (let j = 0; j < v.length; j++) v[j] /= len;
}

/** v ← v − (v·u)u for a unit vector u. */
function removeComponent(v: Float64Array, u: Float64Array): void {
  const s = dot(v, u);
  for (let j = 0; j < v.length; j++) v[j] -= s * u[j];
}
