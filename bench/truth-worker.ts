// One ground-truth worker: computes its slice of queries and posts it back.
import { parentPort, workerData } from 'node:worker_threads';
import { denseTruthRange, type TruthJob } from './truth.js';

const job = workerData as TruthJob;
const slice = denseTruthRange(job.vectors, job.queries, job.bucket, job.n, job.dim, job.k, job.masks, job.q0, job.q1);
parentPort?.postMessage(slice);
