// The API key lives in this tab's sessionStorage only: gone when the tab closes, never
// in a URL (the router uses the hash for places, never for secrets) and never logged.
const KEY = 'conifer.apiKey';

export function savedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function saveKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
