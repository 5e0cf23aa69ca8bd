// Data plane: every route under an index host, /svc/<name>-<id7>/... (decision 2). The
// host is resolved within the caller's project, so another project's index is a 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IndexRow } from '../../catalog/indexes.js';
import type { VectorService } from '../../data/vector-service.js';
import { invalid, notFound, unavailable } from '../../errors.js';
import { BODY_LIMIT_BYTES, UPSERT_MAX_BYTES } from '../../limits.js';
import { bodyChunksParser, isBodyChunks, type BodyChunks } from '../body-chunks.js';
import { joinChunks, parseJsonBody } from '../../data/json-body.js';
import { float32ToShortest } from '../../engine/float32.js';
import type { ServerContext } from '../context.js';
import { OverloadGuard } from '../overload.js';
import { storageEffect } from '../disk-guard.js';
import { QuietRelease } from '../../engine/worker/quiet-release.js';
import { projectOf, versionOf } from '../request-context.js';
import { bulkImportRoutes } from './bulk-imports.js';
import { displayNamespace, recordJson, recordsById } from '../serializers/vector-json.js';
import { jsonBytes, JsonText } from '../serializers/json-text.js';
import { queryAnswerJson } from '../serializers/query-json.js';
import { documentedOnly } from '../doc-schema.js';
import { syncHook } from '../sync-hook.js';
import * as doc from '../schemas/vector-schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    index: IndexRow | null;
  }
}

/**
 * Freshness headers, as Pinecone sends them: a write answers the LSN it was given, a read
 * the LSN up to which it sees every write (VectorService.lsn says why both hold). A read
 * whose LSN is >= a write's LSN reflects that write.
 */
export const REQUEST_LSN_HEADER = 'x-pinecone-request-lsn';
export const MAX_INDEXED_LSN_HEADER = 'x-pinecone-max-indexed-lsn';

/** Conifer does not bill; read units are reported because clients expect the field. */
const USAGE = { readUnits: 1 };

type Params = { indexHost: string; namespace?: string };

const PREFIX = '/svc/:indexHost';

/**
 * Replaces the JSON parser of an encapsulated context (one route's) with one that reads
 * the body as the chunks the socket delivered (body-chunks.ts: Fastify's limits and
 * errors), records its size in `bodyBytes` and makes the route's body with `convert`,
 * whose throw is the request's error.
 */
function readChunkedJson(context: FastifyInstance, convert: (body: BodyChunks) => unknown): void {
  context.removeContentTypeParser('application/json');
  const chunked = bodyChunksParser(BODY_LIMIT_BYTES);
  context.addContentTypeParser('application/json', (request, payload, done) =>
    chunked(request, payload, (err, body) => {
      if (!body) {
        done(err);
        return;
      }
      request.bodyBytes = body.bytes;
      let converted: unknown;
      try {
        converted = convert(body);
      } catch (convertErr) {
        done(convertErr as Error);
        return;
      }
      done(null, converted);
    }),
  );
}

export function dataPlaneRoutes(app: FastifyInstance, ctx: ServerContext, vectors: VectorService): void {
  const cap = ctx.config.responseCapBytes;

  /**
   * Refuses a response over the cap (decision 13), naming what to lower; the body is
   * serialized once, by the caller: records through jsonBytes, whose values are printed
   * text (vector-json.ts) only it splices in; a query answer without values by hand
   * (query-json.ts).
   */
  const sendCapped = (reply: FastifyReply, payload: string | Buffer, hint: string): FastifyReply => {
    const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
    if (bytes > cap) {
      throw invalid(`the response would be ${bytes} bytes, over the limit of ${cap} bytes; ${hint}`);
    }
    // Spelled out: Fastify appends the charset to a string's JSON type, not to a Buffer's.
    return reply.type('application/json; charset=utf-8').send(payload);
  };

  const indexOf = (request: FastifyRequest): IndexRow => {
    if (!request.index) throw new Error('data-plane route reached without an index');
    return request.index;
  };

  const overload = new OverloadGuard(ctx.config);
  const memory = new QuietRelease((err) => app.log.warn({ err }, "releasing the HTTP thread's free memory failed; it stays resident"));

  app.register(
    async (plane) => {
      plane.decorateRequest('index', null);
      // This thread's heap grows with a burst of writes (an ingest's bodies arrive here
      // chunk by chunk) and stays grown while idle, as the worker threads' do: the same
      // release QUIET_MS after the last write (quiet-release.ts says why), and after the
      // last read too, so it never lands among queries. Reads alone earn none: the young
      // generation they grow is what the next queries use, and a release leaves V8
      // collecting a shrunk one often, its helper threads busy, until it has grown back.
      // Queries after a 15 s pause in query traffic measured c1 p50 1.03 against 0.84 ms
      // right after other queries, and the next c8 pass 1,600 against 2,009 QPS, with V8's
      // four helper threads at ~150 µs of CPU a query against ~5 (50k × 384, medians of six
      // alternated rounds); with no release after reads, 0.87 against 0.85 ms and 2,149
      // against 2,187 QPS. A server answering a query every few seconds met that state on
      // every one.
      plane.addHook('onResponse', (request, _reply, done) => {
        if (storageEffect(request) !== undefined) memory.noteWork();
        else memory.noteActivity();
        done();
      });
      // After authentication (a root hook), before the body is read.
      plane.addHook('onRequest', overload.hook(PREFIX));
      plane.addHook('preHandler', syncHook((request: FastifyRequest<{ Params: Params }>) => {
        const index = ctx.catalog.indexes.getByHost(projectOf(request).id, request.params.indexHost);
        if (!index) throw notFound(`Index host ${request.params.indexHost} not found for this API key's project.`);
        if (index.state === 'Initializing') throw unavailable(`Index ${index.name} is initializing; retry shortly.`, 1);
        if (index.state === 'InitializationFailed') {
          throw unavailable(`Index ${index.name} failed to initialize; delete it and create it again.`, 60);
        }
        request.index = index;
      }));

      // The upsert body is not parsed on this thread: its bytes go to the writer thread
      // as the chunks the socket delivered (transferred, not joined: body-chunks.ts),
      // which parses and validates them with the same rules (json-body.ts,
      // vector-input.ts). Only this route's parser is replaced (an encapsulated context).
      void plane.register(async (raw) => {
        readChunkedJson(raw, (body) => body);
        raw.post('/vectors/upsert', documentedOnly({ body: doc.upsertBody }, { grows: 'an upsert' }), async (request, reply) => {
          if (request.bodyBytes > UPSERT_MAX_BYTES) {
            throw invalid(
              `Request size ${request.bodyBytes} bytes exceeds the maximum supported size of 2 MB (${UPSERT_MAX_BYTES} bytes); send fewer vectors per request`,
            );
          }
          // No body at all (no content type) stays "no body": refused as before.
          const body = isBodyChunks(request.body) ? request.body.chunks : null;
          const { upsertedCount, lsn } = await vectors.upsert(indexOf(request), body);
          reply.header(REQUEST_LSN_HEADER, lsn);
          return { upsertedCount };
        });
      });

      plane.post('/vectors/update', documentedOnly({ body: doc.updateBody }, { grows: 'an update' }), async (request, reply) => {
        const { result, lsn } = await vectors.update(indexOf(request), request.body);
        reply.header(REQUEST_LSN_HEADER, lsn);
        return result;
      });

      plane.post('/vectors/delete', documentedOnly({ body: doc.deleteBody }, { frees: true }), async (request, reply) => {
        const lsn = await vectors.delete(indexOf(request), request.body ?? {});
        reply.header(REQUEST_LSN_HEADER, lsn);
        return {};
      });

      plane.get('/vectors/fetch', documentedOnly({ querystring: doc.fetchQuery }), async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
        const lsn = vectors.lsn(indexOf(request));
        const { namespace, records } = vectors.fetch(indexOf(request), request.query.ids, request.query.namespace);
        const out = recordsById(records);
        reply.header(MAX_INDEXED_LSN_HEADER, lsn);
        return sendCapped(
          reply,
          jsonBytes({ vectors: out, namespace: displayNamespace(namespace, versionOf(request)), usage: USAGE }),
          'fetch fewer ids per request',
        );
      });

      plane.post('/vectors/fetch_by_metadata', documentedOnly({ body: doc.fetchByMetadataBody }), async (request, reply) => {
        const lsn = vectors.lsn(indexOf(request));
        const { namespace, page, tokenAfter } = await vectors.fetchByMetadata(
          indexOf(request),
          request.body ?? {},
          versionOf(request) === '2026-07',
        );
        const ns = displayNamespace(namespace, versionOf(request));
        /** The answer with the page's first `n` records, and a token for the rest. */
        const answer = (n: number): Buffer => {
          const next = n < page.items.length ? tokenAfter(page.items[n - 1].id) : page.next;
          const body: Record<string, unknown> = { vectors: recordsById(page.items.slice(0, n)), namespace: ns, usage: USAGE };
          if (next) body.pagination = { next };
          return jsonBytes(body);
        };
        // A page is paged: over the response cap it is cut short (a client cannot tell
        // which limit fits) rather than refused; only a single record over it is refused.
        let n = page.items.length;
        let payload = answer(n);
        while (payload.byteLength > cap && n > 1) {
          n = Math.max(1, Math.min(n - 1, Math.floor((n * cap * 0.95) / payload.byteLength)));
          payload = answer(n);
        }
        reply.header(MAX_INDEXED_LSN_HEADER, lsn);
        return sendCapped(reply, payload, 'one record alone is over it');
      });

      plane.get('/vectors/list', documentedOnly({ querystring: doc.listQuery }), async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
        const lsn = vectors.lsn(indexOf(request));
        const { namespace, page } = vectors.list(indexOf(request), request.query);
        const body: Record<string, unknown> = {
          vectors: page.items.map((id) => ({ id })),
          namespace: displayNamespace(namespace, versionOf(request)),
          usage: USAGE,
        };
        if (page.next) body.pagination = { next: page.next };
        reply.header(MAX_INDEXED_LSN_HEADER, lsn);
        return body;
      });

      // The query body's parser reads its dense vector natively, straight to float32
      // (json-body.ts: same answers and errors as the JSON parser of every other route,
      // without a JavaScript number per value). Only this route's parser is replaced. The
      // body is read as the socket's chunks (body-chunks.ts, Fastify's limits and errors),
      // so the usual one-chunk body is parsed in place: Fastify's `parseAs: 'buffer'`
      // copies every body into a new buffer, and a 32 KB copy per 1536-d query kept V8's
      // collector busy on external memory.
      void plane.register(async (queries) => {
        readChunkedJson(queries, (body) => parseJsonBody(joinChunks(body.chunks), 'query'));
        queries.post('/query', documentedOnly({ body: doc.queryBody }), async (request, reply) => {
          // The seq the engine held when it answered: the query saw exactly the writes up to it.
          const { namespace, matches, lsn } = await vectors.query(indexOf(request), request.body);
          reply.header(MAX_INDEXED_LSN_HEADER, lsn);
          const ns = displayNamespace(namespace, versionOf(request));
          const hasValues = (m: (typeof matches)[number]): boolean => m.record?.values !== undefined || m.record?.sparse !== undefined;
          // Most answers hold no values: printed by hand. With values, their printed text
          // (vector-json.ts) and the metadata's are spliced in by jsonBytes.
          if (!matches.some(hasValues)) return sendCapped(reply, queryAnswerJson(matches, ns, USAGE), 'lower topK or set includeMetadata to false');
          const hint = 'lower topK or set includeValues (or includeMetadata) to false';
          const body = {
            matches: matches.map((m) => {
              const out: Record<string, unknown> = { id: m.id, score: float32ToShortest(m.score) };
              if (m.record && hasValues(m)) {
                const r = recordJson(m.record);
                out.values = r.values;
                if (r.sparseValues) out.sparseValues = r.sparseValues;
              }
              if (m.metadataJson !== undefined) out.metadata = new JsonText(m.metadataJson);
              return out;
            }),
            namespace: ns,
            usage: USAGE,
          };
          return sendCapped(reply, jsonBytes(body), hint);
        });
      });

      const stats = async (request: FastifyRequest, reply: FastifyReply): Promise<Record<string, unknown>> => {
        const index = indexOf(request);
        const lsn = vectors.lsn(index); // before the (possibly engine) read: see /query
        const { counts, total } = await vectors.stats(index, request.body ?? undefined);
        reply.header(MAX_INDEXED_LSN_HEADER, lsn);
        // No prototype: a namespace may be named __proto__ (a plain {} would take it as its prototype).
        const namespaces: Record<string, unknown> = Object.create(null);
        for (const [ns, n] of counts) {
          namespaces[displayNamespace(ns, versionOf(request))] = { vectorCount: n, recordCount: n };
        }
        const capacity = vectors.capacity(index);
        // Floored to a multiple of 0.1 (decision 6); serverless indexes report 0.
        const fullness = capacity === undefined ? 0 : Math.min(1, Math.floor((total / capacity) * 10) / 10);
        const body: Record<string, unknown> = { namespaces };
        if (index.dimension !== null) body.dimension = index.dimension;
        Object.assign(body, {
          indexFullness: fullness,
          totalVectorCount: total,
          totalRecordCount: total,
          metric: index.metric,
          vectorType: index.vectorType,
        });
        return body;
      };
      plane.post('/describe_index_stats', documentedOnly({ body: doc.statsBody }), stats);
      plane.get('/describe_index_stats', stats);

      plane.get('/namespaces', documentedOnly({ querystring: doc.namespacesQuery }), async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>) => {
        const version = versionOf(request);
        const { page, total } = vectors.namespaces(indexOf(request), request.query, (ns) =>
          displayNamespace(ns, version),
        );
        const body: Record<string, unknown> = {
          namespaces: page.items.map((n) => ({ name: n.name, record_count: String(n.count) })),
        };
        if (page.next) body.pagination = { next: page.next };
        body.total_count = total;
        return body;
      });

      plane.post('/namespaces', documentedOnly({ body: doc.createNamespaceBody }, { grows: 'creating a namespace' }), async (request) => {
        const ns = await vectors.createNamespace(indexOf(request), request.body);
        return { name: ns, record_count: '0' };
      });

      plane.get('/namespaces/:namespace', async (request: FastifyRequest<{ Params: Params }>) => {
        const name = request.params.namespace ?? '';
        const { count } = vectors.describeNamespace(indexOf(request), name);
        return { name: displayNamespace(name === '__default__' ? '' : name, versionOf(request)), record_count: String(count) };
      });

      plane.delete('/namespaces/:namespace', async (request: FastifyRequest<{ Params: Params }>, reply) => {
        const lsn = await vectors.deleteNamespace(indexOf(request), request.params.namespace ?? '');
        reply.header(REQUEST_LSN_HEADER, lsn);
        return {};
      });

      bulkImportRoutes(plane, ctx.imports, indexOf);
    },
    { prefix: PREFIX },
  );
}
