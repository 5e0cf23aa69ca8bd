// A latency probe on its own thread: one request, a pause, again, until stopped. The
// benches' clients share the bench process's event loop with the work that builds and
// sends 2 MB upsert bodies (JSON.stringify of ~100k numbers per body, tens of ms each),
// so a probe on that loop measures the bench as much as the server (ingest-health.ts
// prints the bench loop's own delay: p99 in the hundreds of ms). On its own thread with
// its own connection, the probe waits only for the server (and for a core).
import { Worker } from 'node:worker_threads';

export interface ProbeRequest {
  method: 'GET' | 'POST';
  url: string;
  apiKey: string;
  body?: string;
  /** Pause between one answer and the next request. */
  intervalMs: number;
}

export interface Probe {
  /** Stops after the request in flight; every latency measured, in ms. */
  stop(): Promise<number[]>;
}

export function startProbe(request: ProbeRequest): Probe {
  const worker = new Worker(new URL('./probe-worker.js', import.meta.url), { workerData: request });
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once('message', (latencies: number[]) => resolve(latencies));
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const latencies = await done;
      await worker.terminate();
      return latencies;
    },
  };
}
