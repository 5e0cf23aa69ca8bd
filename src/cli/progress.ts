// Progress of a long command on stderr: a bar redrawn in place on a terminal, plain
// lines at most every few seconds otherwise (logs and CI keep a readable record).
const LINE_INTERVAL_MS = 5000;
const BAR_WIDTH = 30;

export class Progress {
  private readonly started = Date.now();
  private lastLine = 0;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = out.isTTY === true;
  }

  /** `percent` 0-100; `records` done so far. */
  update(percent: number, records: number): void {
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? records / seconds : 0;
    const eta = percent > 0 && percent < 100 ? (seconds * (100 - percent)) / percent : 0;
    const text = `${percent.toFixed(1)}% ${records} records ${Math.round(rate)} records/s ETA ${formatSeconds(eta)}`;
    if (this.tty) {
      const filled = Math.round((Math.min(100, percent) / 100) * BAR_WIDTH);
      this.out.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${text}\x1b[K`);
      return;
    }
    const now = Date.now();
    if (now - this.lastLine < LINE_INTERVAL_MS && percent < 100) return;
    this.lastLine = now;
    this.out.write(`${this.label}: ${text}\n`);
  }

  done(): void {
    if (this.tty) this.out.write('\n');
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${Math.round(s % 60)}s` : `${Math.floor(m / 60)}h${m % 60}m`;
}
