// A minimal keep-alive HTTP client for loopback (node:http, no dependencies), so the
// client adds as little as possible to the latencies it measures.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Reply {
  status: number;
  text: string;
  /** Wall time from sending the request to the last byte of the answer. */
  ms: number;
}

export class Client {
  private readonly agent: http.Agent;

  constructor(
    private readonly apiKey: string,
    maxSockets = 16,
    private readonly timeoutMs = 120_000,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  request(method: string, url: string, body?: string | Buffer): Promise<Reply> {
    const headers: Record<string, string | number> = {
      'Api-Key': this.apiKey,
      'X-Pinecone-Api-Version': '2026-04',
    };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    return new Promise<Reply>((resolve, reject) => {
      const started = performance.now();
      const req = http.request(url, { method, headers, agent: this.agent, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out after ${this.timeoutMs} ms`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** A request that must answer 2xx; returns the parsed JSON body. */
  async json(method: string, url: string, body?: string | Buffer): Promise<{ body: unknown; ms: number }> {
    const r = await this.request(method, url, body);
    if (r.status < 200 || r.status >= 300) {
      throw new Error(`${method} ${url} answered ${r.status}: ${r.text.slice(0, 500)}`);
    }
    return { body: r.text.length ? (JSON.parse(r.text) as unknown) : undefined, ms: r.ms };
  }

  /**
   * Closes the idle keep-alive connections. A phase that follows a long pause (upsert
   * bodies are encoded before an ingest starts: 20 s for the medium hybrid set) must not
   * reuse a connection the server is closing at that moment for having idled
   * CONIFER_KEEP_ALIVE_TIMEOUT_MS (30 s): the write would fail with EPIPE.
   */
  closeIdle(): void {
    for (const sockets of Object.values(this.agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Runs `count` operations with `concurrency` in flight, stopping early at `maxMs` of wall
 * time. Returns each completed operation's latency and the wall time.
 */
export async function runLoad(
  concurrency: number,
  count: number,
  maxMs: number,
  op: (i: number) => Promise<number>,
): Promise<{ latencies: number[]; wallMs: number; completed: number; stoppedEarly: boolean }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + maxMs;
  let stoppedEarly = false;
  const lane = async (): Promise<void> => {
    while (next < count) {
      if (performance.now() > deadline) {
        stoppedEarly = true;
        return;
      }
      const i = next++;
      latencies[i] = await op(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  const wallMs = performance.now() - started;
  const done = latencies.filter((v) => v !== undefined);
  return { latencies: done, wallMs, completed: done.length, stoppedEarly };
}
