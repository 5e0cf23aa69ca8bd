// How long to wait before restarting a thread that died (the engine worker, the writer
// thread): doubling from MIN_DELAY_MS up to MAX_DELAY_MS, so a fault that recurs at once
// (on load, say) cannot spin; back to MIN_DELAY_MS after a thread stayed up STABLE_AFTER_MS.
const MIN_DELAY_MS = 100;
const MAX_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 60_000;

export class RestartBackoff {
  private delay = MIN_DELAY_MS;
  private startedAt = Date.now();

  /** A thread was (re)started now. */
  started(): void {
    this.startedAt = Date.now();
  }

  /** The delay before the next restart (the thread died now, or its replacement failed). */
  next(): number {
    if (Date.now() - this.startedAt > STABLE_AFTER_MS) this.delay = MIN_DELAY_MS;
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    return delay;
  }
}
