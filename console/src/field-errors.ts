// The API's error messages name the field they are about ("dimension must be between 1
// and 20000, got 0", "spec.pod.replicas must be ..."). A form shows the message next to
// the field it names: the field whose name (or dotted path) occurs first in the message;
// a message naming none is shown above the form.

/** Form field id → spellings the server may use for it, most specific first. */
export type FieldNames = Record<string, string[]>;

export function fieldOf(message: string, fields: FieldNames): string | null {
  let best: { field: string; at: number; length: number } | null = null;
  for (const [field, spellings] of Object.entries(fields)) {
    for (const spelling of spellings) {
      const escaped = spelling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const m = new RegExp(`(^|[^A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`).exec(message);
      if (!m) continue;
      const at = m.index + m[1].length;
      if (!best || at < best.at || (at === best.at && spelling.length > best.length)) {
        best = { field, at, length: spelling.length };
      }
    }
  }
  return best?.field ?? null;
}

/** "a=1\nb=2" (one tag a line) → {a:"1", b:"2"}; throws naming the bad line. */
export function parseTags(text: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`Write each tag as key=value, got "${line}"`);
    tags[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return tags;
}

export function formatTags(tags: Record<string, string> | undefined): string {
  return Object.entries(tags ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

/** "a, b ,c" → ["a","b","c"]. */
export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
