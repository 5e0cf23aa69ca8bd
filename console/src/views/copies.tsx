// Backups (of serverless indexes) and collections (of pod indexes): list, create,
// restore a backup into a new index, delete. While a copy or a restore runs, the lists
// and the restore job are polled so the page shows its progress.
import { useEffect, useState } from 'preact/hooks';
import { type Api, type Backup, type Collection, type IndexModel, type RestoreJob, describeError } from '../api';
import { bytes, count } from '../format';
import { href } from '../router';
import { ErrorMessage, Field, Notice } from '../ui';

const POLL_MS = 1000;

export function CopiesView({ api }: { api: Api }) {
  const [indexes, setIndexes] = useState<IndexModel[]>([]);
  const [backups, setBackups] = useState<Backup[] | null>(null);
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const refresh = (): void => setVersion((v) => v + 1);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      try {
        const [i, b, c] = await Promise.all([api.listIndexes(), api.listBackups(), api.listCollections()]);
        if (!live) return;
        setIndexes(i);
        setBackups(b);
        setCollections(c);
        setError(null);
        const running = b.some((x) => x.status === 'Initializing' || x.status === 'Pending') || c.some((x) => x.status === 'Initializing');
        if (running) timer = setTimeout(refresh, POLL_MS);
      } catch (err) {
        if (live) setError(describeError(err));
      }
    })();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, version]);

  const serverless = indexes.filter((i) => i.spec.serverless);
  const pods = indexes.filter((i) => i.spec.pod);
  return (
    <section>
      <h1>Backups &amp; collections</h1>
      <ErrorMessage message={error} />
      <h2>Backups</h2>
      <CreateBackup api={api} indexes={serverless} onCreated={refresh} />
      {backups === null ? <Notice>Loading backups…</Notice> : <BackupTable api={api} backups={backups} onChanged={refresh} />}
      <h2>Collections</h2>
      <CreateCollection api={api} indexes={pods} onCreated={refresh} />
      {collections === null ? (
        <Notice>Loading collections…</Notice>
      ) : (
        <CollectionTable api={api} collections={collections} onChanged={refresh} />
      )}
    </section>
  );
}

function CreateBackup({ api, indexes, onCreated }: { api: Api; indexes: IndexModel[]; onCreated: () => void }) {
  const [source, setSource] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const chosen = source || indexes[0]?.name || '';
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const body: { name?: string; description?: string } = {};
      if (name.trim()) body.name = name.trim();
      if (description.trim()) body.description = description.trim();
      await api.createBackup(chosen, body);
      setName('');
      setDescription('');
      onCreated();
    } catch (err) {
      setError(describeError(err));
    }
  };
  if (indexes.length === 0) return <Notice>Backups are made from serverless indexes; this project has none.</Notice>;
  return (
    <form class="toolbar panel" onSubmit={submit}>
      <Field id="bk-source" label="Index">
        <IndexSelect id="bk-source" indexes={indexes} value={chosen} onChange={setSource} />
      </Field>
      <Field id="bk-name" label="Backup name (optional)">
        <input id="bk-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field id="bk-description" label="Description (optional)">
        <input id="bk-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <button type="submit">Create backup</button>
      <ErrorMessage message={error} />
    </form>
  );
}

function BackupTable({ api, backups, onChanged }: { api: Api; backups: Backup[]; onChanged: () => void }) {
  const [restoring, setRestoring] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (backups.length === 0) return <Notice>No backups yet.</Notice>;
  // Gone from the list (deleted meanwhile): the restore form goes with it.
  const toRestore = backups.find((b) => b.backup_id === restoring);
  return (
    <>
      <ErrorMessage message={error} />
      <div class="table-wrap">
        <table class="backups">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Index</th>
              <th scope="col">Status</th>
              <th scope="col">Records</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {backups.map((b) => (
              <tr key={b.backup_id}>
                <th scope="row">
                  {b.name}
                  {b.description ? <div class="muted">{b.description}</div> : null}
                </th>
                <td>{b.source_index_name}</td>
                <td>
                  <span class={`state state-${b.status}`}>{b.status}</span>
                </td>
                <td>{count(b.record_count)}</td>
                <td>{bytes(b.size_bytes)}</td>
                <td>{b.created_at ?? '—'}</td>
                <td class="actions">
                  <button type="button" class="secondary small" disabled={b.status !== 'Ready'} onClick={() => setRestoring(b.backup_id)}>
                    Restore {b.name}
                  </button>{' '}
                  <button
                    type="button"
                    class="danger small"
                    onClick={() => {
                      setError(null);
                      api.deleteBackup(b.backup_id).then(onChanged, (err: unknown) => setError(describeError(err)));
                    }}
                  >
                    Delete {b.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {toRestore ? <Restore key={toRestore.backup_id} api={api} backup={toRestore} onDone={onChanged} /> : null}
    </>
  );
}

function Restore({ api, backup, onDone }: { api: Api; backup: Backup; onDone: () => void }) {
  const [name, setName] = useState(`${backup.source_index_name}-restored`.slice(0, 45));
  const [protection, setProtection] = useState('disabled');
  const [job, setJob] = useState<RestoreJob | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (job === null || job.status === 'Completed' || job.status === 'Failed') return;
    const timer = setTimeout(() => {
      api.restoreJob(job.restore_job_id).then(
        (j) => {
          setJob(j);
          if (j.status === 'Completed' || j.status === 'Failed') onDone();
        },
        (err: unknown) => setError(describeError(err)),
      );
    }, POLL_MS / 2);
    return () => clearTimeout(timer);
  }, [api, job]);

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const started = await api.restoreBackup(backup.backup_id, { name: name.trim(), deletion_protection: protection });
      setJob(await api.restoreJob(started.restore_job_id));
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <form class="panel" onSubmit={submit} aria-label={`Restore ${backup.name}`}>
      <h3>Restore {backup.name} into a new index</h3>
      <Field id="rs-name" label="New index name">
        <input id="rs-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field id="rs-protection" label="Deletion protection">
        <select id="rs-protection" value={protection} onChange={(e) => setProtection(e.currentTarget.value)}>
          <option value="disabled">disabled</option>
          <option value="enabled">enabled</option>
        </select>
      </Field>
      <button type="submit" disabled={job !== null && job.status !== 'Failed'}>
        Start restore
      </button>
      <ErrorMessage message={error} />
      {job ? (
        <div class="progress-row" role="status">
          <progress max={100} value={job.percent_complete ?? 0} aria-label="Restore progress" />{' '}
          <span>
            Restore {job.status.toLowerCase()}: {job.percent_complete ?? 0}%
          </span>
          {job.status === 'Completed' ? (
            <>
              {' '}
              — <a href={href('index', job.target_index_name)}>open {job.target_index_name}</a>
            </>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}

function CreateCollection({ api, indexes, onCreated }: { api: Api; indexes: IndexModel[]; onCreated: () => void }) {
  const [source, setSource] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const chosen = source || indexes[0]?.name || '';
  if (indexes.length === 0) return <Notice>Collections are made from pod indexes; this project has none.</Notice>;
  return (
    <form
      class="toolbar panel"
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        api.createCollection({ name: name.trim(), source: chosen }).then(
          () => {
            setName('');
            onCreated();
          },
          (err: unknown) => setError(describeError(err)),
        );
      }}
    >
      <Field id="col-source" label="Pod index">
        <IndexSelect id="col-source" indexes={indexes} value={chosen} onChange={setSource} />
      </Field>
      <Field id="col-name" label="Collection name">
        <input id="col-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <button type="submit">Create collection</button>
      <ErrorMessage message={error} />
    </form>
  );
}

function CollectionTable(props: { api: Api; collections: Collection[]; onChanged: () => void }) {
  const [error, setError] = useState<string | null>(null);
  if (props.collections.length === 0) return <Notice>No collections yet.</Notice>;
  return (
    <>
      <ErrorMessage message={error} />
      <div class="table-wrap">
        <table class="collections">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Dimension</th>
              <th scope="col">Records</th>
              <th scope="col">Size</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.collections.map((c) => (
              <tr key={c.name}>
                <th scope="row">{c.name}</th>
                <td>
                  <span class={`state state-${c.status}`}>{c.status}</span>
                </td>
                <td>{c.dimension ?? '—'}</td>
                <td>{count(c.vector_count)}</td>
                <td>{bytes(c.size)}</td>
                <td class="actions">
                  <button
                    type="button"
                    class="danger small"
                    onClick={() => {
                      setError(null);
                      props.api.deleteCollection(c.name).then(props.onChanged, (err: unknown) => setError(describeError(err)));
                    }}
                  >
                    Delete {c.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="hint">To make an index from a collection, name it under "From collection" when creating an index.</p>
    </>
  );
}

/** A choice of one index by name (the source of a backup or a collection). */
function IndexSelect(props: { id: string; indexes: readonly { name: string }[]; value: string; onChange: (name: string) => void }) {
  return (
    <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
      {props.indexes.map((i) => (
        <option key={i.name} value={i.name}>
          {i.name}
        </option>
      ))}
    </select>
  );
}
