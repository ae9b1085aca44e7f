/**
 * The REST surface against PostHog's API tests, seventh batch (the earlier ones are rest-posthog-compat.test.ts and -2
 * to -6): posthog/api/test/test_insight.py and the insight serializer's DRF fields (reference §2.1–§2.3): text fields
 * over their max_length, `tags` that is not a list, BooleanField and IntegerField inputs, read-only fields in a body,
 * `derived_name`, the bulk `viewed` action's ListField of integers, and list ordering on last_modified_at / created_at. Each case names the PostHog test or the reference section it ports.
 * No case reads events, so there is no ClickHouse twin.
 */
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const INSIGHTS = '/api/projects/1/insights/';
const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } };

beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe('insight fields are DRF fields (InsightSerializer, reference §2.2, §4.1)', () => {
  it.each(['name', 'description'])('%s over 400 characters: DRF’s max_length error (code max_length); 400 is fine', async (field) => {
    const long = await s.api('POST', INSIGHTS, { query: trends, [field]: 'x'.repeat(401) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ type: 'validation_error', code: 'max_length', detail: 'Ensure this field has no more than 400 characters.', attr: field });
    const ok = await s.api('POST', INSIGHTS, { query: trends, [field]: 'x'.repeat(400) });
    expect([ok.status, ok.body[field]]).toEqual([201, 'x'.repeat(400)]);
    // the same on update; the insight keeps its value
    const upd = await s.api('PATCH', `${INSIGHTS}${ok.body.id}/`, { [field]: 'y'.repeat(401) });
    expect([upd.status, upd.body.code, upd.body.attr]).toEqual([400, 'max_length', field]);
    expect((await s.api('GET', `${INSIGHTS}${ok.body.id}/`)).body[field]).toBe('x'.repeat(400));
  });

  it.each([
    ['a string', 'marketing', 'str'],
    ['an object', { marketing: true }, 'dict'],
    ['a number', 7, 'int'],
  ])('tags as %s: DRF ListField’s not_a_list, naming the Python type', async (_what, tags, type) => {
    const r = await s.api('POST', INSIGHTS, { name: 'tagged', query: trends, tags });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'not_a_list', detail: `Expected a list of items but got type "${type}".`, attr: 'tags' });
  });

  it('tags null is DRF’s null error; a list is kept, an empty list clears them', async () => {
    expect((await s.api('POST', INSIGHTS, { name: 'tagged', query: trends, tags: null })).body).toEqual({
      type: 'validation_error',
      code: 'null',
      detail: 'This field may not be null.',
      attr: 'tags',
    });
    const made = await s.api('POST', INSIGHTS, { name: 'tagged', query: trends, tags: ['a', 'b'] });
    expect([made.status, made.body.tags]).toEqual([201, ['a', 'b']]);
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { tags: 'a' })).body.code).toBe('not_a_list');
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { tags: [] })).body.tags).toEqual([]);
  });
});

describe('read-only and non-material fields (InsightSerializer.Meta.read_only_fields, reference §2.2)', () => {
  it('read-only fields in a create body are ignored, as DRF does: the server’s id, short_id, times, creator, timezone', async () => {
    const r = await s.api('POST', INSIGHTS, {
      name: 'read-only echo',
      query: trends,
      id: 999999,
      short_id: 'custom12',
      created_at: '2001-01-01T00:00:00Z',
      last_modified_at: '2001-01-01T00:00:00Z',
      created_by: { id: 42 },
      is_sample: true,
      timezone: 'Europe/Paris',
      is_cached: true,
      result: [1],
    });
    expect(r.status).toBe(201);
    expect(r.body.id).not.toBe(999999);
    expect(r.body.short_id).not.toBe('custom12');
    expect(r.body.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(r.body.created_at).not.toBe('2001-01-01T00:00:00Z');
    expect(r.body.last_modified_at).not.toBe('2001-01-01T00:00:00Z');
    expect(r.body).toMatchObject({ is_sample: false, timezone: 'UTC', is_cached: false, result: null, created_by: { id: 1 } });
    expect((await s.api('GET', `${INSIGHTS}?short_id=custom12`)).body.count).toBe(0);
  });

  it('derived_name is writable and kept over query changes; it is no material field (last_modified_at stays)', async () => {
    const made = (await s.api('POST', INSIGHTS, { query: trends })).body;
    const upd = await s.api('PATCH', `${INSIGHTS}${made.id}/`, { derived_name: 'Weekly pageviews' });
    expect([upd.status, upd.body.derived_name, upd.body.name]).toEqual([200, 'Weekly pageviews', null]);
    expect(upd.body.last_modified_at).toBe(made.last_modified_at);
    const requeried = await s.api('PATCH', `${INSIGHTS}${made.id}/`, { query: { ...trends, source: { ...trends.source, interval: 'week' } } });
    expect(requeried.body.derived_name).toBe('Weekly pageviews');
  });
});

describe('insight booleans and order are DRF BooleanField / IntegerField', () => {
  it('favorited, saved, deleted: DRF’s true/false spellings are accepted; anything else is “Must be a valid boolean.”', async () => {
    const made = await s.api('POST', INSIGHTS, { name: 'flags', query: trends, favorited: 'yes' });
    expect([made.status, made.body.favorited]).toEqual([201, true]);
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { favorited: 0 })).body.favorited).toBe(false);
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { favorited: 'True' })).body.favorited).toBe(true);
    for (const field of ['favorited', 'saved', 'deleted']) {
      const r = await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { [field]: 'maybe' });
      expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid boolean.', attr: field }]);
      expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { [field]: null })).body).toMatchObject({ code: 'null', attr: field });
    }
    // the soft delete with "true" as text, and the restore with "false"
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { deleted: 'true' })).body.deleted).toBe(true);
    expect((await s.api('GET', `${INSIGHTS}${made.body.id}/`)).status).toBe(404);
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { deleted: 'false' })).body.deleted).toBe(false);
    expect((await s.api('GET', `${INSIGHTS}${made.body.id}/`)).status).toBe(200);
  });

  it('order: an integer (text of one too) or null; otherwise IntegerField’s errors, the model’s 32-bit range included', async () => {
    const made = await s.api('POST', INSIGHTS, { name: 'ordered', query: trends, order: '3' });
    expect([made.status, made.body.order]).toEqual([201, 3]);
    expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { order: null })).body.order).toBeNull();
    const cases: [unknown, string, string][] = [
      ['first', 'invalid_input', 'A valid integer is required.'],
      [1.5, 'invalid_input', 'A valid integer is required.'],
      [2147483648, 'max_value', 'Ensure this value is less than or equal to 2147483647.'],
      [-2147483649, 'min_value', 'Ensure this value is greater than or equal to -2147483648.'],
    ];
    for (const [order, code, detail] of cases) {
      expect((await s.api('PATCH', `${INSIGHTS}${made.body.id}/`, { order })).body).toEqual({ type: 'validation_error', code, detail, attr: 'order' });
    }
  });
});

describe('POST …/insights/viewed/ (InsightViewSet.viewed: insight_ids = ListField(child=IntegerField(), 1 to 2500))', () => {
  it('an empty list: DRF’s min_length error', async () => {
    const r = await s.api('POST', `${INSIGHTS}viewed/`, { insight_ids: [] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'min_length', detail: 'Ensure this field has at least 1 elements.', attr: 'insight_ids' });
  });

  it('more than 2500 ids: DRF’s max_length error in elements', async () => {
    const r = await s.api('POST', `${INSIGHTS}viewed/`, { insight_ids: Array.from({ length: 2501 }, (_, i) => i + 1) });
    expect(r.body).toEqual({ type: 'validation_error', code: 'max_length', detail: 'Ensure this field has no more than 2500 elements.', attr: 'insight_ids' });
  });

  it('not a list: not_a_list; an element that is no integer: IntegerField’s invalid, at its index', async () => {
    expect((await s.api('POST', `${INSIGHTS}viewed/`, { insight_ids: '1' })).body).toEqual({
      type: 'validation_error',
      code: 'not_a_list',
      detail: 'Expected a list of items but got type "str".',
      attr: 'insight_ids',
    });
    for (const bad of ['one', 1.5, true]) {
      const r = await s.api('POST', `${INSIGHTS}viewed/`, { insight_ids: [1, bad] });
      expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'A valid integer is required.', attr: 'insight_ids__1' }]);
    }
    // a null element is the child field's own null error
    expect((await s.api('POST', `${INSIGHTS}viewed/`, { insight_ids: [null] })).body).toEqual({
      type: 'validation_error',
      code: 'null',
      detail: 'This field may not be null.',
      attr: 'insight_ids__0',
    });
  });

  it('an id as text is an integer to DRF: the view is recorded', async () => {
    const made = await s.api('POST', INSIGHTS, { name: 'viewed as text', query: trends });
    const r = await s.api('POST', `${INSIGHTS}viewed/`, { insight_ids: [String(made.body.id)] });
    expect(r.status).toBe(201);
    const mine = await s.api('GET', `${INSIGHTS}my_last_viewed/`);
    expect(mine.body[0]).toMatchObject({ id: made.body.id, name: 'viewed as text' });
  });
});

describe('list ordering (reference §2.3: order=<field>, - for descending)', () => {
  let p: number;
  const names = async (q: string) => (await s.api('GET', `/api/projects/${p}/insights/?basic=true&${q}`)).body.results.map((i: any) => i.name);
  beforeAll(async () => {
    p = (await s.api('POST', '/api/projects/', { name: 'compat-7 ordering' })).body.id;
    for (const name of ['first', 'second', 'third']) {
      expect((await s.api('POST', `/api/projects/${p}/insights/`, { name, query: trends })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 5));
    }
  });

  it('-last_modified_at: a renamed insight moves to the top; favoriting (not material) does not move it', async () => {
    expect(await names('order=-last_modified_at')).toEqual(['third', 'second', 'first']);
    const list = (await s.api('GET', `/api/projects/${p}/insights/?basic=true`)).body.results as any[];
    const first = list.find((i) => i.name === 'first');
    await s.api('PATCH', `/api/projects/${p}/insights/${first.id}/`, { name: 'first renamed' });
    expect(await names('order=-last_modified_at')).toEqual(['first renamed', 'third', 'second']);
    expect(await names('order=last_modified_at')).toEqual(['second', 'third', 'first renamed']);
    const second = list.find((i) => i.name === 'second');
    await s.api('PATCH', `/api/projects/${p}/insights/${second.id}/`, { favorited: true });
    expect(await names('order=-last_modified_at')).toEqual(['first renamed', 'third', 'second']);
  });

  it('-created_at and created_at: creation order, whatever was modified since', async () => {
    expect(await names('order=-created_at')).toEqual(['third', 'second', 'first renamed']);
    expect(await names('order=created_at')).toEqual(['first renamed', 'second', 'third']);
  });
});
