// The shell: sign-in until a key works, then a header with the places and the current
// view. A 401 from any call (key revoked meanwhile) returns to sign-in with the reason.
import { useMemo, useState } from 'preact/hooks';
import { Api, describeError } from './api';
import { href, useRoute } from './router';
import { forgetKey, saveKey, savedKey } from './session';
import { ErrorMessage, Field } from './ui';
import { CopiesView } from './views/copies';
import { CreateIndexView } from './views/create-index';
import { HealthView } from './views/health';
import { IndexListView } from './views/index-list';
import { IndexView } from './views/index-view';

export function App() {
  const [key, setKey] = useState<string | null>(savedKey());
  const [signInError, setSignInError] = useState<string | null>(null);
  const api = useMemo(() => {
    if (key === null) return null;
    const a = new Api(key);
    a.onUnauthenticated = (message) => {
      forgetKey();
      setSignInError(`The server refused the API key: ${message} Sign in again.`);
      setKey(null);
    };
    return a;
  }, [key]);

  if (api === null) {
    return (
      <SignIn
        error={signInError}
        onSignedIn={(k) => {
          saveKey(k);
          setSignInError(null);
          setKey(k);
        }}
      />
    );
  }
  return (
    <Shell
      api={api}
      onSignOut={() => {
        forgetKey();
        setKey(null);
      }}
    />
  );
}

function SignIn(props: { error: string | null; onSignedIn: (key: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(props.error);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const api = new Api(value.trim());
    try {
      await api.listIndexes();
      props.onSignedIn(value.trim());
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Conifer console</h1>
      <form onSubmit={submit}>
        <Field id="api-key" label="API key">
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            required
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </Field>
        <p class="hint">The key stays in this tab (session storage) and is sent only in the Api-Key header.</p>
        <button type="submit" disabled={busy || value.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorMessage message={error} />
      </form>
    </main>
  );
}

function Shell({ api, onSignOut }: { api: Api; onSignOut: () => void }) {
  const route = useRoute();
  const place = route[0] ?? 'indexes';
  const nav = [
    ['indexes', 'Indexes'],
    ['copies', 'Backups & collections'],
    ['health', 'Health'],
  ] as const;
  return (
    <>
      <header class="top">
        <a class="brand" href={href('indexes')}>
          Conifer
        </a>
        <nav aria-label="Main">
          {nav.map(([id, label]) => (
            <a
              key={id}
              href={href(id)}
              aria-current={place === id || (id === 'indexes' && place === 'index') ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>{view(api, place, route)}</main>
    </>
  );
}

function view(api: Api, place: string, route: string[]) {
  switch (place) {
    case 'create':
      return <CreateIndexView api={api} />;
    case 'index':
      return <IndexView key={route[1]} api={api} name={route[1] ?? ''} tab={route[2] ?? 'overview'} args={route.slice(3)} />;
    case 'copies':
      return <CopiesView api={api} />;
    case 'health':
      return <HealthView api={api} />;
    default:
      return <IndexListView api={api} />;
  }
}
