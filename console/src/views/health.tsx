// Server health from GET /metrics: requests per second, p95 latency, records not yet in
// a graph, resident memory — sampled every few seconds into small live charts. Rates and
// latency come from the difference between two scrapes (counters and histogram buckets
// are cumulative). The console's own /metrics scrapes are left out of the figures.
//
// Charts: uPlot — about 45 KB, no dependencies, draws thousands of points on a canvas
// without a virtual DOM, and needs nothing from a CDN.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { type Api, describeError } from '../api';
import { bytes } from '../format';
import { buckets, has, parsePrometheus, quantileBetween, type Sample, sum } from '../prometheus';
import { ErrorMessage, Notice } from '../ui';

const SCRAPE_MS = 2000;
const KEEP_POINTS = 90; // three minutes at one scrape every 2 s

const notMetrics = (labels: Record<string, string>): boolean => labels.route !== '/metrics';

interface Series {
  t: number[];
  qps: (number | null)[];
  p95: (number | null)[];
  unindexed: (number | null)[];
  memory: (number | null)[];
}

const EMPTY: Series = { t: [], qps: [], p95: [], unindexed: [], memory: [] };

export function HealthView({ api }: { api: Api }) {
  const [series, setSeries] = useState<Series>(EMPTY);
  const [state, setState] = useState<'loading' | 'ok' | 'unavailable'>('loading');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    let previous: { at: number; samples: Sample[] } | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const scrape = async (): Promise<void> => {
      try {
        const text = await api.metrics();
        if (!live) return;
        if (text === null) {
          setState('unavailable');
          return; // this server has no /metrics; nothing to poll
        }
        const at = Date.now() / 1000;
        const samples = parsePrometheus(text);
        setState('ok');
        setError(null);
        const point = derive(previous, { at, samples });
        previous = { at, samples };
        setSeries((s) => append(s, at, point));
      } catch (err) {
        if (live) setError(describeError(err));
      }
      if (live) timer = setTimeout(() => void scrape(), SCRAPE_MS);
    };
    void scrape();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api]);

  const last = (xs: (number | null)[]): number | null => (xs.length > 0 ? xs[xs.length - 1] : null);
  return (
    <section>
      <h1>Server health</h1>
      <ErrorMessage message={error} />
      {state === 'loading' ? <Notice>Reading /metrics…</Notice> : null}
      {state === 'unavailable' ? (
        <p class="error" role="alert">
          Metrics unavailable: this server does not serve GET /metrics (it answered 404), so there is nothing to chart.
        </p>
      ) : null}
      {state === 'ok' ? (
        <div class="charts">
          <Chart title="Requests per second" unit="req/s" t={series.t} values={series.qps} now={fmt(last(series.qps), 2)} />
          <Chart
            title="p95 latency"
            unit="ms"
            t={series.t}
            values={series.p95.map((v) => (v === null ? null : v * 1000))}
            now={last(series.p95) === null ? 'no requests' : `${fmt((last(series.p95) ?? 0) * 1000, 1)} ms`}
          />
          <Chart
            title="Records not yet indexed"
            unit="records"
            t={series.t}
            values={series.unindexed}
            now={last(series.unindexed) === null ? 'not reported' : fmt(last(series.unindexed), 0)}
          />
          <Chart
            title="Resident memory"
            unit="MiB"
            t={series.t}
            values={series.memory.map((v) => (v === null ? null : v / 2 ** 20))}
            now={bytes(last(series.memory) ?? undefined)}
          />
        </div>
      ) : null}
    </section>
  );
}

function fmt(v: number | null, digits: number): string {
  return v === null ? '—' : v.toFixed(digits);
}

interface Point {
  qps: number | null;
  p95: number | null;
  unindexed: number | null;
  memory: number | null;
}

function derive(previous: { at: number; samples: Sample[] } | null, current: { at: number; samples: Sample[] }): Point {
  const s = current.samples;
  const point: Point = {
    qps: null,
    p95: null,
    unindexed: has(s, 'conifer_engine_unindexed_records') ? sum(s, 'conifer_engine_unindexed_records') : null,
    memory: has(s, 'process_resident_memory_bytes') ? sum(s, 'process_resident_memory_bytes') : null,
  };
  if (previous !== null && current.at > previous.at) {
    const dt = current.at - previous.at;
    const before = sum(previous.samples, 'conifer_http_requests_total', notMetrics);
    const after = sum(s, 'conifer_http_requests_total', notMetrics);
    point.qps = Math.max(0, after - before) / dt;
    point.p95 =
      quantileBetween(
        buckets(previous.samples, 'conifer_http_request_duration_seconds', notMetrics),
        buckets(s, 'conifer_http_request_duration_seconds', notMetrics),
        0.95,
      ) ?? null;
  }
  return point;
}

function append(s: Series, at: number, p: Point): Series {
  const keep = <T,>(xs: T[], x: T): T[] => [...xs, x].slice(-KEEP_POINTS);
  return {
    t: keep(s.t, at),
    qps: keep(s.qps, p.qps),
    p95: keep(s.p95, p.p95),
    unindexed: keep(s.unindexed, p.unindexed),
    memory: keep(s.memory, p.memory),
  };
}

function Chart(props: { title: string; unit: string; t: number[]; values: (number | null)[]; now: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const chart = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: 140,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [{ stroke: '#555' }, { stroke: '#555', size: 50 }],
        series: [{}, { label: props.unit, stroke: '#1f77b4', width: 2, fill: 'rgba(31,119,180,0.12)', spanGaps: true }],
      },
      [[], []],
      el,
    );
    plot.current = chart;
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(200, el.clientWidth), height: 140 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData([props.t, props.values]);
  }, [props.t, props.values]);

  return (
    <figure class="chart">
      <figcaption>
        <span>{props.title}</span> <strong class="chart-now">{props.now}</strong>
      </figcaption>
      <div ref={host} role="img" aria-label={`${props.title}, last ${props.t.length} samples; now ${props.now}`} />
    </figure>
  );
}
