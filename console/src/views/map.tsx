// The namespace map: up to a few thousand vectors (listed and fetched through the API),
// projected to 2-D by PCA and drawn on a canvas, coloured by a chosen metadata field.
// Hovering shows the nearest point's id; clicking runs a query from that point and
// rings its neighbours — the quick check that embeddings cluster as expected.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type Api, type IndexModel, type Match, type Metadata, describeError } from '../api';
import { DEFAULT_NAMESPACE, NamespacePicker, useNamespaces } from '../namespaces';
import { pca2, type Projection } from '../pca';
import { ErrorMessage, Field, Notice } from '../ui';

const DEFAULT_SAMPLE = 2000;
const MAX_SAMPLE = 5000;
/** Values per fetch: keeps each response well under the server's 4 MB response cap. */
const FETCH_VALUES = 250_000;
const NEIGHBOURS = 10;
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
const OTHER = '#9a9a9a';
const HOVER_RADIUS_PX = 10;

interface Sample {
  ids: string[];
  metadata: (Metadata | undefined)[];
  projection: Projection;
}

export function MapView({ api, index }: { api: Api; index: IndexModel }) {
  const { names, error: nsError } = useNamespaces(api, index);
  const [nsChoice, setNs] = useState<string | undefined>(undefined);
  const ns = nsChoice ?? names[0]?.[0] ?? DEFAULT_NAMESPACE;
  const [size, setSize] = useState(String(DEFAULT_SAMPLE));
  const [sample, setSample] = useState<Sample | null>(null);
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [colourField, setColourField] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [neighbours, setNeighbours] = useState<Match[] | null>(null);
  const [load, setLoad] = useState(0);

  useEffect(() => {
    if (index.vector_type === 'sparse') return;
    let live = true;
    setSample(null);
    setSelected(null);
    setNeighbours(null);
    setError(null);
    const limit = Math.min(MAX_SAMPLE, Math.max(1, Number(size) || DEFAULT_SAMPLE));
    void (async () => {
      try {
        const ids: string[] = [];
        let token: string | undefined;
        while (ids.length < limit) {
          const page = await api.listIds(index.host, ns, { limit: Math.min(100, limit - ids.length), token });
          ids.push(...page.vectors.map((v) => v.id));
          token = page.pagination?.next;
          if (!live) return;
          setProgress(`Listed ${ids.length} ids…`);
          if (!token) break;
        }
        const rows: number[][] = [];
        const kept: string[] = [];
        const metadata: (Metadata | undefined)[] = [];
        const batchSize = Math.max(1, Math.min(100, Math.floor(FETCH_VALUES / (index.dimension ?? 1))));
        for (let i = 0; i < ids.length; i += batchSize) {
          const batch = ids.slice(i, i + batchSize);
          const vectors = await api.fetch(index.host, ns, batch);
          if (!live) return;
          for (const id of batch) {
            const r = vectors[id];
            if (!r?.values || r.values.length === 0) continue; // deleted meanwhile, or sparse-only
            kept.push(id);
            rows.push(r.values);
            metadata.push(r.metadata);
          }
          setProgress(`Fetched ${Math.min(i + batchSize, ids.length)} of ${ids.length} vectors…`);
        }
        setProgress(`Projecting ${rows.length} vectors…`);
        const projection = pca2(rows);
        if (!live) return;
        setSample({ ids: kept, metadata, projection });
        setProgress(null);
      } catch (err) {
        if (live) {
          setError(describeError(err));
          setProgress(null);
        }
      }
    })();
    return () => {
      live = false;
    };
  }, [api, index.host, ns, load]);

  const fields = useMemo(() => {
    const seen = new Set<string>();
    for (const m of sample?.metadata ?? []) for (const k of Object.keys(m ?? {})) seen.add(k);
    return [...seen].sort();
  }, [sample]);

  const runFrom = async (id: string): Promise<void> => {
    setSelected(id);
    setNeighbours(null);
    try {
      setNeighbours(await api.query(index.host, { namespace: ns, id, topK: NEIGHBOURS + 1, includeMetadata: false }));
    } catch (err) {
      setError(describeError(err));
    }
  };

  if (index.vector_type === 'sparse') {
    return <Notice>The map projects dense vectors; this index holds sparse vectors only.</Notice>;
  }

  return (
    <div class="map">
      <ErrorMessage message={nsError} />
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setLoad(load + 1);
        }}
      >
        <NamespacePicker id="map-ns" names={names} value={ns} onChange={setNs} />
        <Field id="map-size" label={`Sample size (max ${MAX_SAMPLE})`}>
          <input id="map-size" inputMode="numeric" value={size} onInput={(e) => setSize(e.currentTarget.value)} />
        </Field>
        <button type="submit">Reload sample</button>
        <Field id="map-colour" label="Colour by">
          <select id="map-colour" value={colourField} onChange={(e) => setColourField(e.currentTarget.value)}>
            <option value="">(none)</option>
            {fields.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <ErrorMessage message={error} />
      {progress ? <Notice>{progress}</Notice> : null}
      {sample && sample.ids.length === 0 ? <Notice>No vectors in this namespace.</Notice> : null}
      {sample && sample.ids.length > 0 ? (
        <>
          <p class="map-caption" role="status">
            Showing {sample.ids.length} vectors (the first by id order) on their first two principal components:{' '}
            {(sample.projection.explained[0] * 100).toFixed(1)}% and {(sample.projection.explained[1] * 100).toFixed(1)}% of the
            variance.
          </p>
          <Scatter
            sample={sample}
            colourField={colourField}
            selected={selected}
            neighbours={neighbours}
            onPick={(id) => void runFrom(id)}
          />
          <form
            class="toolbar"
            onSubmit={(e) => {
              e.preventDefault();
              const input = (e.currentTarget as HTMLFormElement).elements.namedItem('map-from') as HTMLInputElement;
              void runFrom(input.value);
            }}
          >
            <Field id="map-from" label="Neighbours of id (or click a point)">
              <input id="map-from" name="map-from" list="map-ids" />
            </Field>
            <datalist id="map-ids">
              {sample.ids.slice(0, 200).map((id) => (
                <option key={id} value={id} />
              ))}
            </datalist>
            <button type="submit">Show neighbours</button>
          </form>
          {selected && neighbours ? (
            <div class="neighbours">
              <h2>
                Neighbours of <code>{selected}</code>
              </h2>
              <ol aria-label="Neighbours">
                {neighbours
                  .filter((m) => m.id !== selected)
                  .slice(0, NEIGHBOURS)
                  .map((m) => (
                    <li key={m.id}>
                      {m.id} <span class="muted">({m.score})</span>
                    </li>
                  ))}
              </ol>
            </div>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

/** Colour of each point and the legend for a field: categories, or a ramp for many numbers. */
function colouring(metadata: (Metadata | undefined)[], field: string): { colours: string[]; legend: [string, string][] } {
  if (field === '') return { colours: metadata.map(() => PALETTE[0]), legend: [] };
  const values = metadata.map((m) => m?.[field]);
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const distinct = new Set(values.map((v) => (v === undefined ? '' : String(v))));
  if (numbers.length === values.length && distinct.size > PALETTE.length) {
    const lo = Math.min(...numbers);
    const hi = Math.max(...numbers);
    const ramp = (v: number): string => {
      const t = hi > lo ? (v - lo) / (hi - lo) : 0;
      // Blue → orange: readable on white and for the common colour-vision deficiencies.
      const r = Math.round(31 + t * (255 - 31));
      const g = Math.round(119 + t * (127 - 119));
      const b = Math.round(180 + t * (14 - 180));
      return `rgb(${r},${g},${b})`;
    };
    return { colours: numbers.map(ramp), legend: [[ramp(lo), `${field} = ${lo}`], [ramp(hi), `${field} = ${hi}`]] };
  }
  // Categories by frequency; the most common get colours, the rest are grey.
  const freq = new Map<string, number>();
  for (const v of values) {
    const k = v === undefined ? '(missing)' : Array.isArray(v) ? v.join('|') : String(v);
    freq.set(k, (freq.get(k) ?? 0) + 1);
  }
  const top = [...freq.entries()].sort((a, b) => b[1] - a[1]).slice(0, PALETTE.length);
  const colourOf = new Map(top.map(([k], i) => [k, PALETTE[i]]));
  const colours = values.map((v) => colourOf.get(v === undefined ? '(missing)' : Array.isArray(v) ? v.join('|') : String(v)) ?? OTHER);
  const legend: [string, string][] = top.map(([k, c]) => [colourOf.get(k) ?? OTHER, `${k} (${c})`]);
  if (freq.size > top.length) legend.push([OTHER, 'other']);
  return { colours, legend };
}

function Scatter(props: {
  sample: Sample;
  colourField: string;
  selected: string | null;
  neighbours: Match[] | null;
  onPick: (id: string) => void;
}) {
  const { sample, colourField, selected, neighbours } = props;
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<{ i: number; x: number; y: number } | null>(null);
  const { colours, legend } = useMemo(() => colouring(sample.metadata, colourField), [sample, colourField]);
  const indexOfId = useMemo(() => new Map(sample.ids.map((id, i) => [id, i])), [sample]);

  // Pixel position of each point in CSS pixels, recomputed when the canvas is drawn.
  const pixels = useRef<Float64Array>(new Float64Array(0));

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const draw = (): void => {
      const width = el.clientWidth;
      const height = el.clientHeight;
      const ratio = window.devicePixelRatio || 1;
      el.width = Math.round(width * ratio);
      el.height = Math.round(height * ratio);
      const g = el.getContext('2d');
      if (!g) return;
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.fillStyle = '#ffffff';
      g.fillRect(0, 0, width, height);
      const p = sample.projection.points;
      const n = sample.ids.length;
      let minX = Infinity;
      let maxX = -Infinity;
      let minY = Infinity;
      let maxY = -Infinity;
      for (let i = 0; i < n; i++) {
        minX = Math.min(minX, p[2 * i]);
        maxX = Math.max(maxX, p[2 * i]);
        minY = Math.min(minY, p[2 * i + 1]);
        maxY = Math.max(maxY, p[2 * i + 1]);
      }
      const pad = 16;
      const sx = maxX > minX ? (width - 2 * pad) / (maxX - minX) : 0;
      const sy = maxY > minY ? (height - 2 * pad) / (maxY - minY) : 0;
      const px = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) {
        px[2 * i] = sx > 0 ? pad + (p[2 * i] - minX) * sx : width / 2;
        px[2 * i + 1] = sy > 0 ? height - pad - (p[2 * i + 1] - minY) * sy : height / 2; // y up
      }
      pixels.current = px;
      for (let i = 0; i < n; i++) {
        g.fillStyle = colours[i];
        g.beginPath();
        g.arc(px[2 * i], px[2 * i + 1], 3, 0, 2 * Math.PI);
        g.fill();
      }
      const from = selected === null ? undefined : indexOfId.get(selected);
      if (from !== undefined && neighbours) {
        g.strokeStyle = '#111111';
        g.lineWidth = 1.5;
        for (const m of neighbours) {
          const j = indexOfId.get(m.id);
          if (j === undefined || j === from) continue;
          g.beginPath();
          g.moveTo(px[2 * from], px[2 * from + 1]);
          g.lineTo(px[2 * j], px[2 * j + 1]);
          g.stroke();
          g.beginPath();
          g.arc(px[2 * j], px[2 * j + 1], 6, 0, 2 * Math.PI);
          g.stroke();
        }
        g.fillStyle = '#111111';
        g.beginPath();
        g.arc(px[2 * from], px[2 * from + 1], 6, 0, 2 * Math.PI);
        g.fill();
      }
    };
    draw();
    const observer = new ResizeObserver(draw);
    observer.observe(el);
    return () => observer.disconnect();
  }, [sample, colours, selected, neighbours, indexOfId]);

  const nearest = (e: MouseEvent): number | null => {
    const el = canvas.current;
    if (!el) return null;
    const rect = el.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const px = pixels.current;
    let best = -1;
    let bestD = HOVER_RADIUS_PX * HOVER_RADIUS_PX;
    for (let i = 0; i < px.length / 2; i++) {
      const d = (px[2 * i] - x) ** 2 + (px[2 * i + 1] - y) ** 2;
      if (d <= bestD) {
        bestD = d;
        best = i;
      }
    }
    return best >= 0 ? best : null;
  };

  const hovered = hover ? sample.ids[hover.i] : null;
  const hoveredValue = hover && colourField ? sample.metadata[hover.i]?.[colourField] : undefined;
  return (
    <div class="scatter">
      <canvas
        ref={canvas}
        role="img"
        aria-label={`Scatter plot of ${sample.ids.length} vectors; use the "Neighbours of id" field below to pick one by keyboard`}
        onMouseMove={(e) => {
          const i = nearest(e);
          setHover(i === null ? null : { i, x: pixels.current[2 * i], y: pixels.current[2 * i + 1] });
        }}
        onMouseLeave={() => setHover(null)}
        onClick={(e) => {
          const i = nearest(e);
          if (i !== null) props.onPick(sample.ids[i]);
        }}
      />
      {hover && hovered !== null ? (
        <div class="tooltip" role="tooltip" style={{ left: `${hover.x + 10}px`, top: `${hover.y + 10}px` }}>
          {hovered}
          {hoveredValue !== undefined ? ` — ${colourField}: ${String(hoveredValue)}` : ''}
        </div>
      ) : null}
      {legend.length > 0 ? (
        <ul class="legend" aria-label="Legend">
          {legend.map(([c, label]) => (
            <li key={label}>
              <span class="swatch" style={{ background: c }} /> {label}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
