// Query playground: by id, by a pasted vector, or "more like this record" (the record's
// own vector, the record itself left out of the results). The filter is checked as you
// type — first as JSON here, then by the server, which answers with the same parser the
// query uses — and the query is shown as curl and client 8 code for copying.
import { useEffect, useState } from 'preact/hooks';
import { type Api, type IndexModel, type Match, type QueryBody, describeError } from '../api';
import { DEFAULT_NAMESPACE, NamespacePicker, useNamespaces } from '../namespaces';
import { clientSnippet, curlSnippet } from '../snippets';
import { ErrorMessage, Field } from '../ui';

type Mode = 'id' | 'vector' | 'more';

const FILTER_CHECK_DELAY_MS = 350;

export function QueryView({ api, index, args }: { api: Api; index: IndexModel; args: string[] }) {
  const { names, error: nsError } = useNamespaces(api, index);
  const [nsChoice, setNs] = useState<string | undefined>(args[0]);
  const ns = nsChoice ?? names[0]?.[0] ?? DEFAULT_NAMESPACE;
  const [mode, setMode] = useState<Mode>(args[1] !== undefined ? 'more' : 'id');
  const [id, setId] = useState(args[1] ?? '');
  const [vector, setVector] = useState('');
  const [topK, setTopK] = useState('5');
  const [includeMetadata, setIncludeMetadata] = useState(true);
  const [filter, setFilter] = useState('');
  const [filterState, setFilterState] = useState<{ ok: boolean; text: string } | null>(null);
  const [matches, setMatches] = useState<Match[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<QueryBody | null>(null);

  // Validate the filter as it is typed: JSON locally at once, the rest by the server.
  useEffect(() => {
    const text = filter.trim();
    if (text === '') {
      setFilterState(null);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      setFilterState({ ok: false, text: `Not JSON yet: ${describeError(err)}` });
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      api.fetchByMetadata(index.host, ns, parsed).then(
        (n) => live && setFilterState({ ok: true, text: n > 0 ? 'Valid filter; it matches records in this namespace.' : 'Valid filter; it matches no record in this namespace.' }),
        (err: unknown) => live && setFilterState({ ok: false, text: describeError(err) }),
      );
    }, FILTER_CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, index.host, ns, filter]);

  const buildBody = (): QueryBody => {
    // Only "is it a number" is checked here; the allowed range is the server's to say.
    const k = Number(topK);
    if (topK.trim() === '' || !Number.isFinite(k)) throw new Error(`topK must be a number, got "${topK}"`);
    const body: QueryBody = { namespace: ns, topK: k, includeMetadata };
    if (filter.trim() !== '') {
      try {
        body.filter = JSON.parse(filter) as Record<string, unknown>;
      } catch (err) {
        throw new Error(`The filter is not valid JSON: ${describeError(err)}`);
      }
    }
    return body;
  };

  const run = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const body = buildBody();
      let exclude: string | null = null;
      if (mode === 'id') body.id = id;
      else if (mode === 'vector') {
        try {
          body.vector = JSON.parse(vector) as number[];
        } catch (err) {
          throw new Error(`The vector is not a JSON array of numbers: ${describeError(err)}`);
        }
      } else {
        const rec = (await api.fetch(index.host, ns, [id]))[id];
        if (!rec) throw new Error(`No record ${id} in namespace ${ns}.`);
        if (!rec.values || rec.values.length === 0) throw new Error(`Record ${id} has no dense values to search with.`);
        body.vector = rec.values;
        body.topK = body.topK + 1; // the record itself comes back first; it is dropped below
        exclude = id;
      }
      setShown(body);
      const result = await api.query(index.host, body);
      setMatches(exclude === null ? result : result.filter((m) => m.id !== exclude).slice(0, body.topK - 1));
    } catch (err) {
      setMatches(null);
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="query">
      <ErrorMessage message={nsError} />
      <form class="panel" onSubmit={run} noValidate>
        <NamespacePicker id="q-ns" names={names} value={ns} onChange={setNs} />
        <div class="radio-row" role="radiogroup" aria-label="Query by">
          {(
            [
              ['id', 'By id'],
              ['vector', 'By vector'],
              ['more', 'More like this record'],
            ] as const
          ).map(([m, label]) => (
            <label key={m}>
              <input type="radio" name="q-mode" value={m} checked={mode === m} onChange={() => setMode(m)} /> {label}
            </label>
          ))}
        </div>
        {mode === 'vector' ? (
          <Field id="q-vector" label={`Vector (JSON array of ${index.dimension ?? 'n'} numbers)`}>
            <textarea id="q-vector" rows={3} value={vector} onInput={(e) => setVector(e.currentTarget.value)} />
          </Field>
        ) : (
          <Field id="q-id" label="Record id">
            <input id="q-id" value={id} onInput={(e) => setId(e.currentTarget.value)} />
          </Field>
        )}
        <div class="inline-fields">
          <Field id="q-topk" label="topK">
            <input id="q-topk" inputMode="numeric" value={topK} onInput={(e) => setTopK(e.currentTarget.value)} />
          </Field>
          <label class="check">
            <input type="checkbox" checked={includeMetadata} onChange={(e) => setIncludeMetadata(e.currentTarget.checked)} />{' '}
            includeMetadata
          </label>
        </div>
        <Field id="q-filter" label="Filter (JSON, optional)" hint='For example {"genre": {"$eq": "drama"}}'>
          <textarea
            id="q-filter"
            rows={3}
            value={filter}
            aria-invalid={filterState && !filterState.ok ? 'true' : undefined}
            aria-describedby="q-filter-state"
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
        </Field>
        <p id="q-filter-state" class={filterState ? (filterState.ok ? 'filter-ok' : 'filter-bad') : 'hint'} aria-live="polite">
          {filterState?.text ?? 'No filter: every record is a candidate.'}
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Querying…' : 'Run query'}
        </button>
      </form>
      <ErrorMessage message={error} />
      {matches !== null ? <Results matches={matches} /> : null}
      {shown !== null ? (
        <div class="snippets">
          <h2>Same query elsewhere</h2>
          <Snippet title="curl" text={curlSnippet(index.host, shown)} />
          <Snippet title="TypeScript client 8" text={clientSnippet(location.origin, index.name, index.host, shown)} />
        </div>
      ) : null}
    </div>
  );
}

function Results({ matches }: { matches: Match[] }) {
  if (matches.length === 0) return <p class="notice">No matches.</p>;
  return (
    <div class="table-wrap">
      <table class="results" aria-label="Query results">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Id</th>
            <th scope="col">Score</th>
            <th scope="col">Metadata</th>
          </tr>
        </thead>
        <tbody>
          {matches.map((m, i) => (
            <tr key={m.id}>
              <td>{i + 1}</td>
              <th scope="row">{m.id}</th>
              <td class="num">{m.score}</td>
              <td>
                {m.metadata
                  ? Object.entries(m.metadata)
                      .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join('|') : String(v)}`)
                      .join(', ')
                  : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Snippet({ title, text }: { title: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <figure class="snippet">
      <figcaption>
        {title}{' '}
        <button
          type="button"
          class="secondary small"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </figcaption>
      <pre>
        <code>{text}</code>
      </pre>
    </figure>
  );
}
