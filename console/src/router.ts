// Places in the console are hash routes (#/index/movies/query), so the server serves one
// page and a reload keeps the place. Segments are URI-encoded names, never secrets.
import { useEffect, useState } from 'preact/hooks';

export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = (): void => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s.length > 0)
    .map(decodeSegment);
}

/** A segment as written when it is not valid URI encoding (a hand-edited hash): a name no index has, not an uncaught error. */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function href(...parts: string[]): string {
  return `#/${parts.map((p) => encodeURIComponent(p)).join('/')}`;
}

export function go(...parts: string[]): void {
  location.hash = href(...parts);
}
