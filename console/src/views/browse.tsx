// Browse records: list ids of a namespace by prefix, page by page (the API's keyset
// tokens: a stack of them gives "previous"), open one to see its values summarised,
// sparse values, metadata as a table; edit the metadata or delete the record.
import { useEffect, useState } from 'preact/hooks';
import { type Api, type IndexModel, type Metadata, type VectorRecord, describeError } from '../api';
import { DEFAULT_NAMESPACE, NamespacePicker, useNamespaces } from '../namespaces';
import { go, href } from '../router';
import { ErrorMessage, Field, Notice } from '../ui';

const PAGE_SIZE = 50;

export function BrowseView({ api, index, namespace }: { api: Api; index: IndexModel; namespace?: string }) {
  const { names, error: nsError } = useNamespaces(api, index);
  const ns = namespace ?? names[0]?.[0] ?? DEFAULT_NAMESPACE;
  const [prefix, setPrefix] = useState('');
  const [appliedPrefix, setAppliedPrefix] = useState('');
  // tokens[i] is the token that fetches page i (page 0 has none).
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState(0);
  const [ids, setIds] = useState<string[] | null>(null);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setError(null);
    api.listIds(index.host, ns, { prefix: appliedPrefix, limit: PAGE_SIZE, token: tokens[page] }).then(
      (res) => {
        if (!live) return;
        setIds(res.vectors.map((v) => v.id));
        setNext(res.pagination?.next);
      },
      (err: unknown) => live && setError(describeError(err)),
    );
    return () => {
      live = false;
    };
  }, [api, index.host, ns, appliedPrefix, page, tokens, reload]);

  const restart = (): void => {
    setTokens([undefined]);
    setPage(0);
    setOpen(null);
  };

  return (
    <div class="browse">
      <ErrorMessage message={nsError} />
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setAppliedPrefix(prefix);
          restart();
        }}
      >
        <NamespacePicker
          id="browse-ns"
          names={names}
          value={ns}
          onChange={(n) => {
            restart();
            go('index', index.name, 'browse', n);
          }}
        />
        <Field id="browse-prefix" label="Id prefix">
          <input id="browse-prefix" value={prefix} onInput={(e) => setPrefix(e.currentTarget.value)} />
        </Field>
        <button type="submit">List ids</button>
      </form>
      <ErrorMessage message={error} />
      <div class="browse-panes">
        <div class="id-list">
          {ids !== null && ids.length === 0 ? <Notice>No ids{appliedPrefix ? ` starting with "${appliedPrefix}"` : ''}.</Notice> : null}
          <ul aria-label="Record ids">
            {(ids ?? []).map((id) => (
              <li key={id}>
                <button type="button" class={open === id ? 'link selected' : 'link'} onClick={() => setOpen(id)}>
                  {id}
                </button>
              </li>
            ))}
          </ul>
          <div class="pager">
            <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <span>Page {page + 1}</span>
            <button
              type="button"
              class="secondary"
              disabled={!next}
              onClick={() => {
                const t = tokens.slice(0, page + 1);
                t.push(next);
                setTokens(t);
                setPage(page + 1);
              }}
            >
              Next page
            </button>
          </div>
        </div>
        {open !== null ? (
          <RecordPanel
            key={`${ns}/${open}`}
            api={api}
            index={index}
            namespace={ns}
            id={open}
            onDeleted={() => {
              setOpen(null);
              setReload(reload + 1);
            }}
          />
        ) : null}
      </div>
    </div>
  );
}

function RecordPanel(props: { api: Api; index: IndexModel; namespace: string; id: string; onDeleted: () => void }) {
  const { api, index, namespace, id } = props;
  const [record, setRecord] = useState<VectorRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [saved, setSaved] = useState(0);

  useEffect(() => {
    let live = true;
    api.fetch(index.host, namespace, [id]).then(
      (vectors) => {
        if (!live) return;
        const r = vectors[id];
        if (r) setRecord(r);
        else setError(`Record ${id} no longer exists in namespace ${namespace}.`);
      },
      (err: unknown) => live && setError(describeError(err)),
    );
    return () => {
      live = false;
    };
  }, [api, index.host, namespace, id, saved]);

  const save = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (editing === null || record === null) return;
    let metadata: Metadata;
    try {
      const parsed: unknown = JSON.parse(editing);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('Metadata must be a JSON object.');
      metadata = parsed as Metadata;
    } catch (err) {
      setEditError(`Not valid JSON: ${describeError(err)}`);
      return;
    }
    // Upsert the whole record so removed fields go too (update's setMetadata only merges).
    const next: VectorRecord = { id: record.id };
    if (record.values && record.values.length > 0) next.values = record.values;
    if (record.sparseValues) next.sparseValues = record.sparseValues;
    if (Object.keys(metadata).length > 0) next.metadata = metadata;
    try {
      await api.upsert(index.host, namespace, [next]);
      setEditing(null);
      setEditError(null);
      setSaved(saved + 1);
    } catch (err) {
      setEditError(describeError(err));
    }
  };

  const remove = async (): Promise<void> => {
    try {
      await api.deleteIds(index.host, namespace, [id]);
      props.onDeleted();
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <article class="record panel" aria-label={`Record ${id}`}>
      <h2>
        Record <code>{id}</code>
      </h2>
      <ErrorMessage message={error} />
      {record ? (
        <>
          <ValuesSummary values={record.values} />
          {record.sparseValues ? <SparseSummary sparse={record.sparseValues} /> : null}
          <h3>Metadata</h3>
          {editing === null ? (
            <>
              <MetadataTable metadata={record.metadata} />
              <button type="button" class="secondary" onClick={() => setEditing(JSON.stringify(record.metadata ?? {}, null, 2))}>
                Edit metadata
              </button>
            </>
          ) : (
            <form onSubmit={save}>
              <Field id="meta-edit" label="Metadata (JSON object)" error={editError ?? undefined}>
                <textarea id="meta-edit" rows={8} value={editing} onInput={(e) => setEditing(e.currentTarget.value)} />
              </Field>
              <button type="submit">Save metadata</button>{' '}
              <button type="button" class="secondary" onClick={() => setEditing(null)}>
                Cancel
              </button>
            </form>
          )}
          <div class="record-actions">
            <a class="button secondary" href={href('index', index.name, 'query', namespace, id)}>
              More like this
            </a>{' '}
            {confirmDelete ? (
              <>
                <span>Delete {id}?</span>{' '}
                <button type="button" class="danger" onClick={() => void remove()}>
                  Confirm delete
                </button>{' '}
                <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                Delete record
              </button>
            )}
          </div>
        </>
      ) : null}
    </article>
  );
}

function ValuesSummary({ values }: { values: number[] | undefined }) {
  if (!values || values.length === 0) return <p class="muted">No dense values.</p>;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sq = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    sq += v * v;
  }
  const head = values.slice(0, 8).map((v) => v.toPrecision(4));
  return (
    <dl class="details values-summary">
      <dt>Dense values</dt>
      <dd>
        {values.length} dimensions: [{head.join(', ')}
        {values.length > 8 ? ', …' : ''}]
      </dd>
      <dt>Min / max</dt>
      <dd>
        {min.toPrecision(4)} / {max.toPrecision(4)}
      </dd>
      <dt>Mean / norm</dt>
      <dd>
        {(sum / values.length).toPrecision(4)} / {Math.sqrt(sq).toPrecision(4)}
      </dd>
    </dl>
  );
}

function SparseSummary({ sparse }: { sparse: { indices: number[]; values: number[] } }) {
  const pairs = sparse.indices.slice(0, 16).map((i, k) => `${i}: ${sparse.values[k].toPrecision(4)}`);
  return (
    <dl class="details">
      <dt>Sparse values</dt>
      <dd>
        {sparse.indices.length} non-zero: {pairs.join(', ')}
        {sparse.indices.length > 16 ? ', …' : ''}
      </dd>
    </dl>
  );
}

export function MetadataTable({ metadata }: { metadata: Metadata | undefined }) {
  const entries = Object.entries(metadata ?? {});
  if (entries.length === 0) return <p class="muted">No metadata.</p>;
  return (
    <table class="metadata">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{Array.isArray(v) ? v.join(', ') : String(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
