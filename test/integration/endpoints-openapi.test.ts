import SwaggerParser from '@apidevtools/swagger-parser';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { startServer, type TestServer } from '../helpers/server';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** Per-endpoint OpenAPI documents: valid 3.0.3, typed, and good enough to generate a typed client from. */
describe('endpoint OpenAPI documents', () => {
  let s: TestServer;
  const P = '/api/environments/1/endpoints';
  const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  const docs: Record<string, any> = {};
  let tmp: string;

  beforeAll(async () => {
    s = await startServer();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-openapi-'));
    const events = [];
    for (let i = 0; i < 12; i++) {
      events.push({ event: i % 3 === 0 ? 'signup' : '$pageview', distinct_id: `u${i % 4}`, timestamp: day(1 + (i % 3)), properties: { customer_id: i % 2 ? 'acme' : 'globex', n: i, $browser: 'Chrome' } });
    }
    expect(await s.server.services.ingestor.import(1, { events })).toMatchObject({ errors: [] });
    await s.server.services.ingestor.flush();

    const bodies = [
      {
        name: 'customer-events',
        description: 'Events of one customer',
        query: {
          kind: 'HogQLQuery',
          query:
            'SELECT event, count() AS c, max(timestamp) AS last_seen, toDate(min(timestamp)) AS first_day, toBool(count() > {variables.min_n}) AS busy FROM events WHERE properties.customer_id = {variables.customer_id} AND event IN {variables.events} GROUP BY event ORDER BY event',
        },
        variables: [
          { name: 'customer_id', type: 'String', required: true, description: 'Customer to report on' },
          { name: 'min_n', type: 'Number', default: 2 },
          { name: 'events', type: 'List', default: ['$pageview', 'signup'] },
        ],
      },
      { name: 'totals', query: { kind: 'HogQLQuery', query: 'SELECT count() AS total, uniq(distinct_id) AS users FROM events' } },
      { name: 'trend', query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$browser' }, dateRange: { date_from: '-7d' } } },
    ];
    for (const b of bodies) {
      expect((await s.api('POST', `${P}/`, b)).status).toBe(201);
      const doc = await s.api('GET', `${P}/${b.name}/openapi.json`);
      expect(doc.status).toBe(200);
      docs[b.name] = doc.body;
    }
  });
  afterAll(async () => {
    await s.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it.each(['customer-events', 'totals', 'trend'])('%s validates with swagger-parser', async (name) => {
    const api = await SwaggerParser.validate(structuredClone(docs[name]));
    expect(api.info.title).toBe(name);
  });

  it('follows PostHog: 3.0.3, one literal POST path, bearer auth, string version', () => {
    const d = docs['customer-events'];
    expect(d.openapi).toBe('3.0.3');
    expect(d.info).toEqual({ title: 'customer-events', description: 'Events of one customer', version: '1' });
    expect(Object.keys(d.paths)).toEqual(['/api/projects/1/endpoints/customer-events/run']);
    const op = d.paths['/api/projects/1/endpoints/customer-events/run'].post;
    expect(op).toMatchObject({ operationId: 'run_customer_events', summary: 'Execute customer-events', security: [{ PersonalAPIKey: [] }] });
    expect(op.requestBody.required).toBe(true);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429']);
    expect(d.components.securitySchemes.PersonalAPIKey).toEqual({ type: 'http', scheme: 'bearer' });
    expect(docs.totals.info.description).toBe('PostHog Endpoint: totals');
    expect(docs.totals.components.schemas.Variables).toBeUndefined();
    expect(docs.totals.paths['/api/projects/1/endpoints/totals/run'].post.requestBody.required).toBe(false);
  });

  it('types variables from the declarations and columns from the result', () => {
    const sc = docs['customer-events'].components.schemas;
    expect(sc.EndpointRunRequest.required).toEqual(['variables']);
    expect(sc.EndpointRunRequest.additionalProperties).toBe(false);
    expect(sc.Variables).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['customer_id'],
      properties: {
        customer_id: { type: 'string', description: 'Customer to report on', nullable: true },
        min_n: { type: 'number', description: 'Variable: min_n', example: 2, nullable: true },
        events: { type: 'array', items: { type: 'string' }, description: 'Variable: events', example: ['$pageview', 'signup'], nullable: true },
      },
    });
    expect(sc.RunResult.properties.columns.items.enum).toEqual(['event', 'c', 'last_seen', 'first_day', 'busy']);
    expect(sc.Row.properties).toEqual({
      event: { type: 'string', nullable: true },
      c: { type: 'integer', nullable: true },
      last_seen: { type: 'string', format: 'date-time', nullable: true },
      first_day: { type: 'string', format: 'date', nullable: true },
      busy: { type: 'boolean', nullable: true },
    });
    expect(sc.Error.required).toEqual(['type', 'code', 'detail', 'attr']);
    expect(Object.keys(docs.trend.components.schemas.Variables.properties).sort()).toEqual(['$browser', 'date_from', 'date_to']);
  });

  it('a new version shows in the document; ?version=N selects one', async () => {
    await s.api('PATCH', `${P}/totals/`, { query: { kind: 'HogQLQuery', query: 'SELECT count() AS total FROM events' } });
    const v2 = (await s.api('GET', `${P}/totals/openapi.json`)).body;
    expect(v2.info.version).toBe('2');
    expect(v2.components.schemas.Row.required).toEqual(['total']);
    const v1 = (await s.api('GET', `${P}/totals/openapi.json?version=1`)).body;
    expect(v1.components.schemas.Row.required).toEqual(['total', 'users']);
  });

  it('openapi-typescript generates types; a typed client compiles and gets typed rows from the live server', async () => {
    const specPath = path.join(tmp, 'spec.json');
    fs.writeFileSync(specPath, JSON.stringify(docs['customer-events']));
    await run(process.execPath, [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), specPath, '-o', path.join(tmp, 'api.ts')], { cwd: tmp });
    const generated = fs.readFileSync(path.join(tmp, 'api.ts'), 'utf8');
    expect(generated).toContain('customer_id');

    const client = `
import type { components } from './api';
type RunRequest = components['schemas']['EndpointRunRequest'];
type RunObjects = components['schemas']['RunResultObjects'];
type Row = components['schemas']['Row'];

async function main(): Promise<void> {
  const [url, key] = process.argv.slice(2);
  const body: RunRequest = { variables: { customer_id: 'acme', min_n: 1 }, result_format: 'objects' };
  const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as RunObjects;
  const rows: Row[] = json.results;
  const events: string[] = rows.map((r) => r.event ?? '');
  const total: number = rows.reduce((a, r) => a + (r.c ?? 0), 0);
  const busy: (boolean | null | undefined)[] = rows.map((r) => r.busy);
  console.log(JSON.stringify({ events, total, busy, version: json.endpoint_version }));
}
void main();
`;
    let previous: ts.Program | undefined;
    const compile = (source: string): string[] => {
      const file = path.join(tmp, 'client.ts');
      fs.writeFileSync(file, source);
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
        types: ['node'],
        skipLibCheck: true,
      }, undefined, previous);
      previous = program;
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    };
    expect(compile(client)).toEqual([]);
    // the types have teeth: an undeclared variable and a wrongly typed cell do not compile
    expect(compile(client.replace("customer_id: 'acme'", "customer: 'acme'")).join('\n')).toMatch(/customer/);
    expect(compile(client.replace('const total: number', 'const total: string')).length).toBeGreaterThan(0);

    fs.writeFileSync(path.join(tmp, 'client.ts'), client);
    const js = ts.transpileModule(client, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
    fs.writeFileSync(path.join(tmp, 'client.js'), js);
    const key = (await s.api('POST', '/api/projects/1/project_secret_api_keys/', { label: 'client', scopes: ['endpoint:read'] })).body.value;
    const url = docs['customer-events'].servers[0].url + Object.keys(docs['customer-events'].paths)[0];
    const { stdout } = await run(process.execPath, [path.join(tmp, 'client.js'), url, key]);
    const out = JSON.parse(stdout);
    const expected = await s.api('POST', `${P}/customer-events/run`, { variables: { customer_id: 'acme', min_n: 1 }, result_format: 'objects' });
    expect(out).toEqual({
      events: expected.body.results.map((r: { event: string }) => r.event),
      total: 6,
      busy: expected.body.results.map((r: { busy: boolean }) => r.busy),
      version: 1,
    });
    expect(out.events).toEqual(['$pageview', 'signup']);
  });
});
