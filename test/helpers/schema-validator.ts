// A validator compiled for a JSON schema by Fastify's own Ajv compiler with the server's
// Ajv options (AJV_OPTIONS): exactly how the server would validate a body against the
// schema if a route used it for validation. Used by the schema/checks agreement test and
// by bench/validate-upsert.ts.
import Fastify from 'fastify';
import { AJV_OPTIONS } from '../../src/server/app.js';

export type Validate = (data: unknown) => boolean;

export async function compileSchema(schema: Record<string, unknown>): Promise<Validate> {
  const app = Fastify({ ajv: { customOptions: AJV_OPTIONS } });
  let validate: Validate | undefined;
  app.post('/', async (request) => {
    const compiled = request.compileValidationSchema(schema, 'body');
    validate = (data) => compiled(data) === true;
    return {};
  });
  await app.inject({ method: 'POST', url: '/', payload: {} });
  await app.close();
  if (!validate) throw new Error('the schema could not be compiled');
  return validate;
}
