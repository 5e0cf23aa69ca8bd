// The project's indexes with what a user checks first: shape, state, records per
// namespace (describe_index_stats at each index's host) and disk size (from /metrics
// when the server has it).
import { useEffect, useState } from 'preact/hooks';
import { type Api, type IndexModel, type Stats, describeError } from '../api';
import { bytes, count, specSummary } from '../format';
import { indexFigure } from '../index-metrics';
import { parsePrometheus, type Sample } from '../prometheus';
import { href } from '../router';
import { ErrorMessage, Notice } from '../ui';

type StatsState = { stats?: Stats; error?: string };

export function IndexListView({ api }: { api: Api }) {
  const [indexes, setIndexes] = useState<IndexModel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stats, setStats] = useState<Record<string, StatsState>>({});
  const [metrics, setMetrics] = useState<Sample[] | null>(null);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const list = await api.listIndexes();
        if (!live) return;
        setIndexes(list);
        api.metrics().then(
          (text) => live && setMetrics(text === null ? null : parsePrometheus(text)),
          () => undefined, // disk sizes are optional; the health view explains a failure
        );
        for (const index of list) {
          api.stats(index.host).then(
            (s) => live && setStats((prev) => ({ ...prev, [index.name]: { stats: s } })),
            (err: unknown) => live && setStats((prev) => ({ ...prev, [index.name]: { error: describeError(err) } })),
          );
        }
      } catch (err) {
        if (live) setError(describeError(err));
      }
    })();
    return () => {
      live = false;
    };
  }, [api]);

  return (
    <section>
      <div class="title-row">
        <h1>Indexes</h1>
        <a class="button" href={href('create')}>
          Create index
        </a>
      </div>
      <ErrorMessage message={error} />
      {indexes === null && !error ? <Notice>Loading indexes…</Notice> : null}
      {indexes !== null && indexes.length === 0 ? <Notice>This project has no indexes yet.</Notice> : null}
      {indexes !== null && indexes.length > 0 ? (
        <div class="table-wrap">
          <table class="indexes">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Dimension</th>
                <th scope="col">Metric</th>
                <th scope="col">Spec</th>
                <th scope="col">State</th>
                <th scope="col">Records per namespace</th>
                <th scope="col">Disk</th>
              </tr>
            </thead>
            <tbody>
              {indexes.map((index) => (
                <tr key={index.name}>
                  <th scope="row">
                    <a href={href('index', index.name)}>{index.name}</a>
                  </th>
                  <td data-label="Dimension">{index.dimension ?? `sparse`}</td>
                  <td data-label="Metric">{index.metric}</td>
                  <td data-label="Spec">{specSummary(index.spec)}</td>
                  <td data-label="State">
                    <span class={`state state-${index.status.state}`}>{index.status.state}</span>
                  </td>
                  <td data-label="Records">
                    <NamespaceCounts state={stats[index.name]} />
                  </td>
                  <td data-label="Disk">{bytes(indexFigure(metrics, 'conifer_index_disk_bytes', index))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function NamespaceCounts({ state }: { state: StatsState | undefined }) {
  if (!state) return <span class="muted">…</span>;
  if (state.error) return <span class="muted">{state.error}</span>;
  const entries = Object.entries(state.stats?.namespaces ?? {});
  if (entries.length === 0) return <span class="muted">empty</span>;
  return (
    <ul class="ns-counts">
      {entries.map(([ns, c]) => (
        <li key={ns}>
          <code>{ns}</code>: {count(c.vectorCount)}
        </li>
      ))}
    </ul>
  );
}
