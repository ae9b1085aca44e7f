import '../../productql/clickhouse';
import { compileProductQL, shutdownParser, type CompileProductQLInput } from '../../productql';
import { compileMemo } from './productql-runner';

/** Repeated compilations of the same input are remembered; anything that changes the printed SQL is in the key. */
describe('compileMemo', () => {
  afterAll(() => shutdownParser());

  const base: CompileProductQLInput = {
    query: 'SELECT event, count() FROM events WHERE event = {variables.e} GROUP BY event',
    projectId: 1,
    timezone: 'UTC',
    variables: { e: '$pageview' },
    dialect: 'duckdb',
  };

  it('answers the same input with the same compiled query', async () => {
    const a = await compileMemo({ ...base });
    const b = await compileMemo({ ...base, variables: { e: '$pageview' } });
    expect(b).toBe(a);
  });

  it.each<[string, Partial<CompileProductQLInput>]>([
    ['project', { projectId: 2 }],
    ['timezone', { timezone: 'Europe/Berlin' }],
    ['variable value', { variables: { e: 'signed_up' } }],
    ['limit', { limit: 5 }],
    ['offset', { offset: 10 }],
    ['values', { values: { x: 1 } }],
    ['dialect', { dialect: 'clickhouse' }],
  ])('compiles afresh when the %s differs', async (_what, change) => {
    const a = await compileMemo({ ...base });
    const b = await compileMemo({ ...base, ...change });
    expect(b).not.toBe(a);
    expect(b).toEqual(await compileProductQL({ ...base, ...change }));
    expect(await compileMemo({ ...base, ...change })).toBe(b);
  });

  it('does not remember values whose JSON text would be ambiguous', async () => {
    const when = new Date('2024-01-01T00:00:00Z');
    const a = await compileMemo({ ...base, variables: { e: when } }).catch((e: unknown) => e);
    const b = await compileMemo({ ...base, variables: { e: when } }).catch((e: unknown) => e);
    expect(b).not.toBe(a);
  });

  it('does not remember errors', async () => {
    const bad = { ...base, query: 'SELECT FROM WHERE' };
    await expect(compileMemo(bad)).rejects.toMatchObject({ status: 400 });
    await expect(compileMemo(bad)).rejects.toMatchObject({ status: 400 });
  });
});
