/**
 * An uncached ProductQL endpoint run against the same query through the query operation, on the dataset's
 * server, alternating, medians of `runs` after a warm-up. Target: the endpoint within 1.1× of the query operation.
 */
import type { DatasetSpec } from './dataset';
import { median } from './reference-sql';
import { openQueryServer, runQuery } from './queries';

export interface EndpointRunTiming {
  query: string;
  queryOperationMs: number;
  endpointRunMs: number;
  ratio: number;
  sameRows: boolean;
}

const SQL = "SELECT toStartOfDay(timestamp) AS day, count() AS n FROM events WHERE event = {variables.event} GROUP BY day ORDER BY day";

export async function benchEndpointRun(spec: DatasetSpec, opts: { runs: number; load?: 'capture' | 'copy' }): Promise<EndpointRunTiming | { skipped: string }> {
  const opened = await openQueryServer(spec, { load: opts.load });
  if ('skipped' in opened) return opened;
  const { server } = opened;
  try {
    const name = `bench_uncached_${Date.now()}`;
    const created = await server.api('POST', '/api/environments/1/endpoints/', {
      name,
      query: { kind: 'ProductQLQuery', query: SQL },
      variables: [{ name: 'event', type: 'String', default: '$pageview' }],
    });
    if (created.status !== 201) throw new Error(`creating the endpoint answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`);
    const viaQuery = () =>
      runQuery(server, { kind: 'ProductQLQuery', query: SQL, variables: { event: '$pageview' } }, 'force_blocking');
    const viaEndpoint = () =>
      server.api('POST', `/api/environments/1/endpoints/${name}/run`, { variables: { event: '$pageview' }, refresh: 'force' });
    const a = await viaQuery();
    const b = await viaEndpoint();
    const rowsOf = (r: { body: unknown }) => JSON.stringify((r.body as { results?: unknown }).results);
    const q: number[] = [];
    const e: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      let t = performance.now();
      await viaQuery();
      q.push(performance.now() - t);
      t = performance.now();
      await viaEndpoint();
      e.push(performance.now() - t);
    }
    const qm = median(q);
    const em = median(e);
    return {
      query: SQL,
      queryOperationMs: Math.round(qm * 10) / 10,
      endpointRunMs: Math.round(em * 10) / 10,
      ratio: Math.round((em / qm) * 100) / 100,
      sameRows: rowsOf(a) === rowsOf(b),
    };
  } finally {
    await server.stop();
  }
}
