// One index: its record and tabs for overview (configure, delete), browsing records,
// the query playground and the namespace map. While the index is not Ready (loading
// from a copy, scaling), its record is polled so the state on the page stays true.
import { useEffect, useState } from 'preact/hooks';
import { type Api, ApiFailure, type IndexModel, type Stats, describeError } from '../api';
import { type FieldNames, fieldOf, formatTags, parseTags } from '../field-errors';
import { count, specSummary } from '../format';
import { go, href } from '../router';
import { ErrorMessage, Field, Notice } from '../ui';
import { BrowseView } from './browse';
import { MapView } from './map';
import { QueryView } from './query';

const TABS = [
  ['overview', 'Overview'],
  ['browse', 'Browse'],
  ['query', 'Query'],
  ['map', 'Map'],
] as const;

/** `args` are the tab's own route segments (browse: namespace; query: namespace, id). */
export function IndexView({ api, name, tab, args }: { api: Api; name: string; tab: string; args: string[] }) {
  const [index, setIndex] = useState<IndexModel | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      try {
        const i = await api.describeIndex(name);
        if (!live) return;
        setIndex(i);
        setError(null);
        if (i.status.state !== 'Ready') timer = setTimeout(() => void load(), 1000);
      } catch (err) {
        if (live) setError(describeError(err));
      }
    };
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, name, version]);

  return (
    <section>
      <p class="crumbs">
        <a href={href('indexes')}>Indexes</a> / <strong>{name}</strong>
      </p>
      <ErrorMessage message={error} />
      {index === null && !error ? <Notice>Loading {name}…</Notice> : null}
      {index !== null ? (
        <>
          <div class="title-row">
            <h1>{index.name}</h1>
            <span class={`state state-${index.status.state}`}>{index.status.state}</span>
          </div>
          <nav class="tabs" aria-label="Index">
            {TABS.map(([id, label]) => (
              <a key={id} href={href('index', name, id)} aria-current={tab === id ? 'page' : undefined}>
                {label}
              </a>
            ))}
          </nav>
          {tab === 'browse' ? <BrowseView api={api} index={index} namespace={args[0]} /> : null}
          {tab === 'query' ? <QueryView key={args.join('/')} api={api} index={index} args={args} /> : null}
          {tab === 'map' ? <MapView api={api} index={index} /> : null}
          {tab === 'overview' ? <Overview api={api} index={index} onChanged={() => setVersion(version + 1)} /> : null}
        </>
      ) : null}
    </section>
  );
}

function Overview({ api, index, onChanged }: { api: Api; index: IndexModel; onChanged: () => void }) {
  const [stats, setStats] = useState<Stats | null>(null);
  const [statsError, setStatsError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api.stats(index.host).then(
      (s) => live && setStats(s),
      (err: unknown) => live && setStatsError(describeError(err)),
    );
    return () => {
      live = false;
    };
  }, [api, index.host, index.status.state]);

  return (
    <>
      <dl class="details">
        <dt>Host</dt>
        <dd>
          <code>{index.host}</code>
        </dd>
        <dt>Dimension</dt>
        <dd>{index.dimension ?? 'sparse'}</dd>
        <dt>Metric</dt>
        <dd>{index.metric}</dd>
        <dt>Vector type</dt>
        <dd>{index.vector_type ?? 'dense'}</dd>
        <dt>Spec</dt>
        <dd>{specSummary(index.spec)}</dd>
        <dt>Deletion protection</dt>
        <dd>{index.deletion_protection ?? 'disabled'}</dd>
        <dt>Tags</dt>
        <dd>{formatTags(index.tags) || '—'}</dd>
        <dt>Records</dt>
        <dd>
          {statsError ? <span class="muted">{statsError}</span> : null}
          {stats ? (
            <>
              {count(stats.totalVectorCount)} in {Object.keys(stats.namespaces).length} namespace(s)
              <ul class="ns-counts">
                {Object.entries(stats.namespaces).map(([ns, c]) => (
                  <li key={ns}>
                    <a href={href('index', index.name, 'browse', ns)}>
                      <code>{ns}</code>
                    </a>
                    : {count(c.vectorCount)}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </dd>
      </dl>
      <Configure api={api} index={index} onChanged={onChanged} />
      <DeleteIndex api={api} index={index} />
    </>
  );
}

const CONFIGURE_FIELDS: FieldNames = {
  'cfg-tags': ['tags'],
  'cfg-protection': ['deletion_protection', 'delete_protection'],
  'cfg-pod-type': ['spec.pod.pod_type', 'pod_type'],
  'cfg-replicas': ['spec.pod.replicas', 'replicas'],
};

function Configure({ api, index, onChanged }: { api: Api; index: IndexModel; onChanged: () => void }) {
  const [tags, setTags] = useState(formatTags(index.tags));
  const [protection, setProtection] = useState(index.deletion_protection ?? 'disabled');
  const [podType, setPodType] = useState(index.spec.pod?.pod_type ?? '');
  const [replicas, setReplicas] = useState(String(index.spec.pod?.replicas ?? 1));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setErrors({});
    setFormError(null);
    setMessage(null);
    let newTags: Record<string, string>;
    try {
      newTags = parseTags(tags);
    } catch (err) {
      setErrors({ 'cfg-tags': describeError(err) });
      return;
    }
    // A tag removed from the text is sent with "" — the API's way to delete a tag.
    for (const k of Object.keys(index.tags ?? {})) if (!(k in newTags)) newTags[k] = '';
    const body: Record<string, unknown> = { tags: newTags, deletion_protection: protection };
    if (index.spec.pod) {
      const pod: Record<string, unknown> = {};
      if (podType.trim() !== index.spec.pod.pod_type) pod.pod_type = podType.trim();
      const r = Number(replicas);
      if (replicas.trim() !== String(index.spec.pod.replicas ?? 1)) pod.replicas = Number.isFinite(r) ? r : replicas;
      if (Object.keys(pod).length > 0) body.spec = { pod };
    }
    try {
      await api.configureIndex(index.name, body);
      setMessage('Saved.');
      onChanged();
    } catch (err) {
      const text = describeError(err);
      const field = err instanceof ApiFailure ? fieldOf(err.message, CONFIGURE_FIELDS) : null;
      if (field) setErrors({ [field]: text });
      else setFormError(text);
    }
  };

  return (
    <form class="panel" onSubmit={submit} noValidate>
      <h2>Configure</h2>
      <ErrorMessage message={formError} />
      <Field id="cfg-tags" label="Tags" hint="One key=value a line; remove a line to delete the tag" error={errors['cfg-tags']}>
        <textarea id="cfg-tags" rows={3} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
      </Field>
      <Field id="cfg-protection" label="Deletion protection" error={errors['cfg-protection']}>
        <select id="cfg-protection" value={protection} onChange={(e) => setProtection(e.currentTarget.value)}>
          <option value="disabled">disabled</option>
          <option value="enabled">enabled</option>
        </select>
      </Field>
      {index.spec.pod ? (
        <>
          <Field id="cfg-pod-type" label="Pod size" error={errors['cfg-pod-type']}>
            <input id="cfg-pod-type" value={podType} onInput={(e) => setPodType(e.currentTarget.value)} />
          </Field>
          <Field id="cfg-replicas" label="Replicas" error={errors['cfg-replicas']}>
            <input
              id="cfg-replicas"
              inputMode="numeric"
              value={replicas}
              onInput={(e) => setReplicas(e.currentTarget.value)}
            />
          </Field>
        </>
      ) : null}
      <button type="submit">Save configuration</button>
      {message ? <Notice>{message}</Notice> : null}
    </form>
  );
}

function DeleteIndex({ api, index }: { api: Api; index: IndexModel }) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      await api.deleteIndex(index.name);
      go('indexes');
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <form class="panel danger" onSubmit={submit}>
      <h2>Delete this index</h2>
      <Field id="del-confirm" label={`Type ${index.name} to confirm`}>
        <input id="del-confirm" autocomplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="danger" disabled={typed !== index.name}>
        Delete index
      </button>
      <ErrorMessage message={error} />
    </form>
  );
}
