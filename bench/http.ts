// The bench's HTTP client: a minimal keep-alive HTTP/1.1 client over plain sockets, for
// loopback only, so that it adds as little as possible to what it measures. On the shared
// cores of a small machine the client's CPU is taken from the server: Node's own
// http.request client cost ~140-170 µs of CPU per small query here, this one ~60-90 µs,
// and at concurrency 8 that difference alone moved Conifer's QPS by a third (20k × 128,
// measured side by side). `NodeHttpClient` below keeps Node's client for the report's
// comparison row. Like wrk or autocannon, it sends each request as one write and reads
// the answer by its Content-Length (or chunked encoding, or until the server closes).
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Reply {
  status: number;
  text: string;
  /** Wall time from sending the request to the last byte of the answer. */
  ms: number;
}

/** What the harness needs of a client (both clients below). */
export interface HttpClient {
  request(method: string, url: string, body?: string | Buffer): Promise<Reply>;
  close(): void;
}

const CRLF_CRLF = Buffer.from('\r\n\r\n');

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (err: Error) => void;
  started: number;
  timer: NodeJS.Timeout;
  /** A HEAD request's answer has no body whatever its headers say. */
  head: boolean;
}

/** One keep-alive connection; one request in flight at a time. */
class Connection {
  readonly socket: net.Socket;
  private pending: Pending | undefined;
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Set once the head is parsed: where the body starts in the joined chunks, and how it ends. */
  private bodyAt = -1;
  private status = 0;
  private length = -1;
  private chunked = false;
  private closeAfter = false;
  dead = false;

  constructor(host: string, port: number, private readonly onIdle: (c: Connection) => void) {
    this.socket = net.connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => {
      // Read until the server closed: the body is what arrived.
      if (this.pending && this.bodyAt >= 0 && this.length < 0 && !this.chunked) this.finish(this.join().length);
      else this.fail(new Error('the server closed the connection'));
    });
  }

  send(method: string, url: URL, headers: string, body: Buffer | undefined, timeoutMs: number): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`${method} ${url.href} timed out after ${timeoutMs} ms`)), timeoutMs);
      this.pending = { resolve, reject, started: performance.now(), timer, head: method === 'HEAD' };
      this.chunks = [];
      this.bytes = 0;
      this.bodyAt = -1;
      const head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${headers}\r\n`;
      // One write: the head and the body leave in one segment (a corked pair is one writev).
      this.socket.cork();
      this.socket.write(head, 'latin1');
      if (body) this.socket.write(body);
      this.socket.uncork();
    });
  }

  private join(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.bytes)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private onData(chunk: Buffer): void {
    if (!this.pending) return; // nothing asked: a stray byte after an answer (none expected)
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bodyAt < 0 && !this.parseHead()) return;
    const end = this.bodyEnd();
    if (end >= 0) this.finish(end);
  }

  /** Parses the status line and headers once they have all arrived; false until then. */
  private parseHead(): boolean {
    const all = this.join();
    const at = all.indexOf(CRLF_CRLF);
    if (at < 0) return false;
    const lines = all.toString('latin1', 0, at).split('\r\n');
    this.status = Number(lines[0].slice(9, 12));
    this.length = -1;
    this.chunked = false;
    this.closeAfter = false;
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      const name = lines[i].slice(0, colon).trim().toLowerCase();
      const value = lines[i].slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') this.length = Number(value);
      else if (name === 'transfer-encoding') this.chunked = value.includes('chunked');
      else if (name === 'connection') this.closeAfter = value === 'close';
    }
    if (this.pending?.head || this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200)) this.length = 0;
    this.bodyAt = at + 4;
    return true;
  }

  /** Where the body ends in the joined chunks once all of it has arrived; -1 until then. */
  private bodyEnd(): number {
    if (this.chunked) return this.dechunk();
    if (this.length < 0) return -1; // until the server closes
    return this.bytes >= this.bodyAt + this.length ? this.bodyAt + this.length : -1;
  }

  /** Chunked encoding: once the last chunk is in, rewrites the body in place unchunked; its end, or -1. */
  private dechunk(): number {
    const all = this.join();
    const parts: Buffer[] = [];
    let at = this.bodyAt;
    for (;;) {
      const line = all.indexOf('\r\n', at, 'latin1');
      if (line < 0) return -1;
      const size = parseInt(all.toString('latin1', at, line), 16);
      if (size === 0) {
        const trailerEnd = all.indexOf(CRLF_CRLF, line, 'latin1');
        if (trailerEnd < 0 && all.length < line + 4) return -1;
        const body = Buffer.concat(parts);
        this.chunks = [Buffer.concat([all.subarray(0, this.bodyAt), body])];
        this.bytes = this.chunks[0].length;
        return this.bytes;
      }
      if (all.length < line + 2 + size + 2) return -1;
      parts.push(all.subarray(line + 2, line + 2 + size));
      at = line + 2 + size + 2;
    }
  }

  private finish(end: number): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    const text = this.join().toString('utf8', this.bodyAt, end);
    const reply = { status: this.status, text, ms: performance.now() - p.started };
    this.chunks = [];
    if (this.closeAfter || this.length < 0) this.destroy();
    else this.onIdle(this);
    p.resolve(reply);
  }

  private fail(err: Error): void {
    this.destroy();
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    p.reject(err);
  }

  destroy(): void {
    this.dead = true;
    this.socket.destroy();
  }
}

/** Connections to one host:port: up to `max` open, idle ones reused, requests beyond them queued. */
class Pool {
  private readonly idle: Connection[] = [];
  private open = 0;
  private readonly waiting: ((c: Connection) => void)[] = [];

  constructor(private readonly host: string, private readonly port: number, private readonly max: number) {}

  acquire(): Promise<Connection> {
    while (this.idle.length > 0) {
      const c = this.idle.pop() as Connection;
      if (!c.dead) return Promise.resolve(c); // a dead one is counted out by closed()
    }
    if (this.open < this.max) {
      this.open++;
      const c = new Connection(this.host, this.port, (done) => this.release(done));
      c.socket.once('close', () => this.closed(c));
      return Promise.resolve(c);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(c: Connection): void {
    const next = this.waiting.shift();
    if (next) next(c);
    else this.idle.push(c);
  }

  private closed(c: Connection): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    this.open--;
    // A request waiting for a connection gets a new one in place of the closed one.
    const next = this.waiting.shift();
    if (next) void this.acquire().then(next);
  }

  closeIdle(): void {
    for (const c of this.idle.splice(0)) c.destroy();
  }
}

export class Client implements HttpClient {
  private readonly pools = new Map<string, Pool>();
  private readonly headers: string;

  constructor(
    apiKey: string,
    private readonly maxSockets = 16,
    private readonly timeoutMs = 120_000,
  ) {
    this.headers = `Api-Key: ${apiKey}\r\nX-Pinecone-Api-Version: 2026-04\r\n`;
  }

  async request(method: string, url: string, body?: string | Buffer): Promise<Reply> {
    const u = new URL(url);
    let pool = this.pools.get(u.host);
    if (!pool) this.pools.set(u.host, (pool = new Pool(u.hostname, Number(u.port || 80), this.maxSockets)));
    const bytes = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    const headers = bytes === undefined ? this.headers : `${this.headers}Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\n`;
    const connection = await pool.acquire();
    return connection.send(method, u, headers, bytes, this.timeoutMs);
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
    for (const pool of this.pools.values()) pool.closeIdle();
  }

  close(): void {
    this.closeIdle();
    this.pools.clear();
  }
}

/** Node's own http.request client, for the report's comparison with the client above. */
export class NodeHttpClient implements HttpClient {
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
