// The equivalent of a playground query as curl and as code for the official TypeScript
// client 8.x, for copying. The key is never written out: both read it from an
// environment variable.
import { API_VERSION, type QueryBody } from './api';

export function curlSnippet(host: string, body: QueryBody): string {
  const json = JSON.stringify(body).replace(/'/g, `'\\''`);
  return [
    `curl -s -X POST '${host}/query' \\`,
    `  -H "Api-Key: $PINECONE_API_KEY" \\`,
    `  -H 'X-Pinecone-Api-Version: ${API_VERSION}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '${json}'`,
  ].join('\n');
}

export function clientSnippet(origin: string, indexName: string, host: string, body: QueryBody): string {
  const { namespace, ...query } = body;
  const options = JSON.stringify({ name: indexName, host, ...(namespace ? { namespace } : {}) });
  return [
    `import { Pinecone } from '@pinecone-database/pinecone'; // 8.x`,
    ``,
    `const pc = new Pinecone({ apiKey: process.env.PINECONE_API_KEY!, controllerHostUrl: '${origin}' });`,
    `const index = pc.index(${options});`,
    `const { matches } = await index.query(${JSON.stringify(query, null, 2)});`,
    `console.log(matches);`,
  ].join('\n');
}
