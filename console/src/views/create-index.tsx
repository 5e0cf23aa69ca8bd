// Create an index, serverless or pod, with every option POST /indexes takes. Nothing is
// validated here beyond building the body: the server's own message is shown next to
// the field it names, so the console can never disagree with the API.
import { useState } from 'preact/hooks';
import { type Api, ApiFailure, describeError } from '../api';
import { type FieldNames, fieldOf, parseList, parseTags } from '../field-errors';
import { go } from '../router';
import { ErrorMessage, Field } from '../ui';

const FIELDS: FieldNames = {
  'ci-name': ['name'],
  'ci-dimension': ['dimension'],
  'ci-metric': ['metric'],
  'ci-vector-type': ['vector_type'],
  'ci-protection': ['deletion_protection'],
  'ci-tags': ['tags'],
  'ci-cloud': ['spec.serverless.cloud', 'cloud'],
  'ci-region': ['spec.serverless.region', 'region'],
  'ci-source': ['spec.serverless.source_collection', 'spec.pod.source_collection', 'source_collection', 'collection'],
  'ci-schema': ['spec.serverless.schema', 'schema'],
  'ci-read-mode': ['spec.serverless.read_capacity.mode', 'read_capacity.mode', 'read_capacity'],
  'ci-node-type': ['read_capacity.dedicated.node_type', 'node_type'],
  'ci-rc-replicas': ['read_capacity.dedicated.manual.replicas'],
  'ci-rc-shards': ['read_capacity.dedicated.manual.shards'],
  'ci-environment': ['spec.pod.environment', 'environment'],
  'ci-pod-type': ['spec.pod.pod_type', 'pod_type'],
  'ci-pods': ['spec.pod.pods', 'pods'],
  'ci-replicas': ['spec.pod.replicas', 'replicas'],
  'ci-shards': ['spec.pod.shards', 'shards'],
  'ci-indexed': ['spec.pod.metadata_config', 'metadata_config'],
};

interface Form {
  name: string;
  kind: 'serverless' | 'pod';
  vectorType: 'dense' | 'sparse';
  dimension: string;
  metric: string;
  protection: string;
  tags: string;
  cloud: string;
  region: string;
  source: string;
  schema: string;
  readMode: string;
  nodeType: string;
  rcReplicas: string;
  rcShards: string;
  environment: string;
  podType: string;
  pods: string;
  replicas: string;
  shards: string;
  indexed: string;
}

const INITIAL: Form = {
  name: '',
  kind: 'serverless',
  vectorType: 'dense',
  dimension: '',
  metric: 'cosine',
  protection: 'disabled',
  tags: '',
  cloud: 'aws',
  region: 'us-east-1',
  source: '',
  schema: '',
  readMode: 'OnDemand',
  nodeType: 'b1',
  rcReplicas: '1',
  rcShards: '1',
  environment: 'us-east-1-aws',
  podType: 'p1.x1',
  pods: '1',
  replicas: '1',
  shards: '1',
  indexed: '',
};

/** A number field: sent as a JSON number when it parses, as typed otherwise (the server says why). */
function num(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

function buildBody(f: Form): Record<string, unknown> {
  const body: Record<string, unknown> = { name: f.name.trim(), metric: f.metric, vector_type: f.vectorType };
  if (f.vectorType === 'dense') body.dimension = num(f.dimension);
  body.deletion_protection = f.protection;
  const tags = parseTags(f.tags);
  if (Object.keys(tags).length > 0) body.tags = tags;
  if (f.kind === 'serverless') {
    const serverless: Record<string, unknown> = { cloud: f.cloud.trim(), region: f.region.trim() };
    if (f.source.trim()) serverless.source_collection = f.source.trim();
    const filterable = parseList(f.schema);
    if (filterable.length > 0) {
      serverless.schema = { fields: Object.fromEntries(filterable.map((n) => [n, { filterable: true }])) };
    }
    serverless.read_capacity =
      f.readMode === 'Dedicated'
        ? {
            mode: 'Dedicated',
            dedicated: {
              node_type: f.nodeType.trim(),
              scaling: 'Manual',
              manual: { replicas: num(f.rcReplicas), shards: num(f.rcShards) },
            },
          }
        : { mode: 'OnDemand' };
    body.spec = { serverless };
  } else {
    const pod: Record<string, unknown> = {
      environment: f.environment.trim(),
      pod_type: f.podType.trim(),
      pods: num(f.pods),
      replicas: num(f.replicas),
      shards: num(f.shards),
    };
    const indexed = parseList(f.indexed);
    if (indexed.length > 0) pod.metadata_config = { indexed };
    if (f.source.trim()) pod.source_collection = f.source.trim();
    body.spec = { pod };
  }
  return body;
}

export function CreateIndexView({ api }: { api: Api }) {
  const [form, setForm] = useState<Form>(INITIAL);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const set =
    <K extends keyof Form>(k: K) =>
    (e: Event): void =>
      setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value as Form[K] });

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setErrors({});
    setFormError(null);
    let body: Record<string, unknown>;
    try {
      body = buildBody(form);
    } catch (err) {
      setErrors({ 'ci-tags': describeError(err) });
      return;
    }
    setBusy(true);
    try {
      const created = await api.createIndex(body);
      go('index', created.name);
    } catch (err) {
      const message = describeError(err);
      const field = err instanceof ApiFailure ? fieldOf(err.message, FIELDS) : null;
      if (field) setErrors({ [field]: message });
      else setFormError(message);
    } finally {
      setBusy(false);
    }
  };

  const input = (id: string, k: keyof Form, extra: Record<string, unknown> = {}) => (
    <input
      id={id}
      value={form[k]}
      onInput={set(k)}
      aria-invalid={errors[id] ? 'true' : undefined}
      aria-describedby={errors[id] ? `${id}-error` : undefined}
      {...extra}
    />
  );

  return (
    <section>
      <h1>Create an index</h1>
      <form class="create-index" onSubmit={submit} noValidate>
        <ErrorMessage message={formError} />
        <fieldset>
          <legend>Index</legend>
          <Field id="ci-name" label="Name" error={errors['ci-name']} hint="1–45 lower-case letters, digits and -">
            {input('ci-name', 'name', { autocomplete: 'off' })}
          </Field>
          <Field id="ci-vector-type" label="Vector type" error={errors['ci-vector-type']}>
            <select id="ci-vector-type" value={form.vectorType} onChange={set('vectorType')}>
              <option value="dense">dense</option>
              <option value="sparse">sparse</option>
            </select>
          </Field>
          {form.vectorType === 'dense' ? (
            <Field id="ci-dimension" label="Dimension" error={errors['ci-dimension']}>
              {input('ci-dimension', 'dimension', { inputMode: 'numeric' })}
            </Field>
          ) : null}
          <Field id="ci-metric" label="Metric" error={errors['ci-metric']}>
            <select id="ci-metric" value={form.metric} onChange={set('metric')}>
              <option value="cosine">cosine</option>
              <option value="euclidean">euclidean</option>
              <option value="dotproduct">dotproduct</option>
            </select>
          </Field>
          <Field id="ci-protection" label="Deletion protection" error={errors['ci-protection']}>
            <select id="ci-protection" value={form.protection} onChange={set('protection')}>
              <option value="disabled">disabled</option>
              <option value="enabled">enabled</option>
            </select>
          </Field>
          <Field id="ci-tags" label="Tags" error={errors['ci-tags']} hint="One key=value a line">
            <textarea id="ci-tags" rows={2} value={form.tags} onInput={set('tags')} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>Deployment</legend>
          <div class="radio-row" role="radiogroup" aria-label="Deployment">
            <label>
              <input
                type="radio"
                name="ci-kind"
                value="serverless"
                checked={form.kind === 'serverless'}
                onChange={() => setForm({ ...form, kind: 'serverless' })}
              />{' '}
              Serverless
            </label>
            <label>
              <input
                type="radio"
                name="ci-kind"
                value="pod"
                checked={form.kind === 'pod'}
                onChange={() => setForm({ ...form, kind: 'pod' })}
              />{' '}
              Pod
            </label>
          </div>
          {form.kind === 'serverless' ? (
            <>
              <Field id="ci-cloud" label="Cloud" error={errors['ci-cloud']}>
                {input('ci-cloud', 'cloud')}
              </Field>
              <Field id="ci-region" label="Region" error={errors['ci-region']}>
                {input('ci-region', 'region')}
              </Field>
              <Field id="ci-schema" label="Filterable metadata fields" error={errors['ci-schema']} hint="Comma-separated; empty: all">
                {input('ci-schema', 'schema')}
              </Field>
              <Field id="ci-read-mode" label="Read capacity" error={errors['ci-read-mode']}>
                <select id="ci-read-mode" value={form.readMode} onChange={set('readMode')}>
                  <option value="OnDemand">OnDemand</option>
                  <option value="Dedicated">Dedicated</option>
                </select>
              </Field>
              {form.readMode === 'Dedicated' ? (
                <>
                  <Field id="ci-node-type" label="Node type" error={errors['ci-node-type']}>
                    {input('ci-node-type', 'nodeType')}
                  </Field>
                  <Field id="ci-rc-replicas" label="Read replicas" error={errors['ci-rc-replicas']}>
                    {input('ci-rc-replicas', 'rcReplicas', { inputMode: 'numeric' })}
                  </Field>
                  <Field id="ci-rc-shards" label="Read shards" error={errors['ci-rc-shards']}>
                    {input('ci-rc-shards', 'rcShards', { inputMode: 'numeric' })}
                  </Field>
                </>
              ) : null}
            </>
          ) : (
            <>
              <Field id="ci-environment" label="Environment" error={errors['ci-environment']}>
                {input('ci-environment', 'environment')}
              </Field>
              <Field id="ci-pod-type" label="Pod type" error={errors['ci-pod-type']} hint="s1, p1 or p2 . x1, x2, x4 or x8">
                {input('ci-pod-type', 'podType')}
              </Field>
              <Field id="ci-pods" label="Pods" error={errors['ci-pods']}>
                {input('ci-pods', 'pods', { inputMode: 'numeric' })}
              </Field>
              <Field id="ci-replicas" label="Replicas" error={errors['ci-replicas']}>
                {input('ci-replicas', 'replicas', { inputMode: 'numeric' })}
              </Field>
              <Field id="ci-shards" label="Shards" error={errors['ci-shards']}>
                {input('ci-shards', 'shards', { inputMode: 'numeric' })}
              </Field>
              <Field id="ci-indexed" label="Indexed metadata fields" error={errors['ci-indexed']} hint="Comma-separated; empty: all">
                {input('ci-indexed', 'indexed')}
              </Field>
            </>
          )}
          <Field id="ci-source" label="From collection (optional)" error={errors['ci-source']}>
            {input('ci-source', 'source')}
          </Field>
        </fieldset>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create index'}
        </button>
      </form>
    </section>
  );
}
