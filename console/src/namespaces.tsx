// The namespaces of an index (from describe_index_stats) and a labelled picker for them;
// browse, query and map all start by choosing one.
import { useEffect, useState } from 'preact/hooks';
import { type Api, type IndexModel, describeError } from './api';
import { count } from './format';
import { Field } from './ui';

/** API 2026-04 names the default namespace "__default__" (DESIGN decision 5). */
export const DEFAULT_NAMESPACE = '__default__';

export function useNamespaces(api: Api, index: IndexModel): { names: [string, number][]; error: string | null } {
  const [names, setNames] = useState<[string, number][]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api.stats(index.host).then(
      (s) => {
        if (!live) return;
        const entries = Object.entries(s.namespaces).map(([n, c]): [string, number] => [n, c.vectorCount]);
        setNames(entries.sort((a, b) => a[0].localeCompare(b[0])));
      },
      (err: unknown) => live && setError(describeError(err)),
    );
    return () => {
      live = false;
    };
  }, [api, index.host]);
  return { names, error };
}

export function NamespacePicker(props: {
  id: string;
  names: [string, number][];
  value: string;
  onChange: (ns: string) => void;
}) {
  const known = props.names.some(([n]) => n === props.value);
  return (
    <Field id={props.id} label="Namespace">
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {known ? null : <option value={props.value}>{props.value} (empty)</option>}
        {props.names.map(([n, c]) => (
          <option key={n} value={n}>
            {n} ({count(c)})
          </option>
        ))}
      </select>
    </Field>
  );
}
