/**
 * Test support for cohort suites written after PostHog's tests: cohort and action rows saved as its tests make them
 * (`Cohort.objects.create`, `Action.objects.create`: straight into the store, the definition checked as the API
 * would), the filter shapes they use, and their persons gathered by case into one project ({@link CasePersons}).
 */
import type { TestServer } from '../../test/helpers/server';
import { ev } from '../queries/funnels/testing';
import type { Store } from '../store/store';
import { Action } from '../store/entities/action';
import { Cohort } from '../store/entities/cohort';
import { cohortGroup } from './cohort-definition';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
/** The ISO time `ms` before now. */
export const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

/** Saves a cohort row of `projectId`; a dynamic one's definition must pass what the cohort API checks (a 400 there). */
export async function saveCohortRow(store: Store, projectId: number, c: Partial<Cohort>, opts: { check?: boolean } = {}): Promise<number> {
  const now = new Date();
  if (opts.check !== false && !c.is_static) cohortGroup({ filters: c.filters ?? null, groups: c.groups ?? [] });
  const row = await store.db.getRepository(Cohort).save({
    project_id: projectId,
    name: null,
    description: '',
    groups: [],
    filters: null,
    is_static: false,
    static_person_ids: [],
    deleted: false,
    created_at: now,
    created_by_id: null,
    updated_at: now,
    ...c,
  });
  return row.id;
}

/** Saves an action row of `projectId`; each step's unset matchers are null. */
export async function saveActionRow(store: Store, projectId: number, name: string, steps: Partial<Action['steps'][number]>[]): Promise<number> {
  const now = new Date();
  const full = steps.map((s) => ({ event: null, properties: [], selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: null, url_matching: null, ...s }));
  const row = await store.db.getRepository(Action).save({
    project_id: projectId,
    name,
    description: '',
    steps: full,
    tags: [],
    post_to_slack: false,
    slack_message_format: '',
    pinned_at: null,
    deleted: false,
    created_at: now,
    created_by_id: null,
    updated_at: now,
  });
  return row.id;
}

/** A cohort's `filters`: one property group. */
export const props = (type: 'AND' | 'OR', ...values: unknown[]) => ({ properties: { type, values } });

/** A behavioral filter on an event (string key) or an action (numeric id). */
export const behavioral = (value: string, key: string | number, extra: Record<string, unknown> = {}) => ({
  type: 'behavioral',
  value,
  key,
  event_type: typeof key === 'number' ? 'actions' : 'events',
  ...extra,
});

/** A filter on membership of another cohort. */
export const cohortRef = (id: number, extra: Record<string, unknown> = {}) => ({ key: 'id', value: id, type: 'cohort', ...extra });

/** PostHog's sequence filter of test_cohort_query.py: `key` then `seq` within 3 days, both in the last 7 days. */
export const sequence = (key: string | number = '$pageview', seq: string | number = key, extra: Record<string, unknown> = {}) =>
  behavioral('performed_event_sequence', key, {
    time_interval: 'day',
    time_value: 7,
    seq_time_interval: 'day',
    seq_time_value: 3,
    seq_event: seq,
    seq_event_type: typeof seq === 'number' ? 'actions' : 'events',
    ...extra,
  });

/** PostHog's default person properties in test_cohort_query.py. */
const DEFAULT_PROPS = { name: 'test', email: 'test@posthog.com' };

/**
 * Every case's persons in one project: each PostHog test's persons named with the case as prefix (`bq_p1`…), with
 * fixed uuids, and their events (times before now). {@link members} reads back a cohort's persons of one case.
 */
export class CasePersons {
  readonly persons: { name: string; properties: Record<string, unknown> }[] = [];
  readonly events: ReturnType<typeof ev>[] = [];

  /** @param tag one hex digit that keeps these uuids apart from other files' */
  constructor(private readonly tag: string) {}

  private uuid = (i: number): string => `00000000-0000-4000-8000-0000000${this.tag}${String(i + 1).padStart(4, '0')}`;

  person = (name: string, properties: Record<string, unknown> = DEFAULT_PROPS): void => {
    this.persons.push({ name, properties });
  };

  event = (distinctId: string, name: string, msAgo: number, properties: Record<string, unknown> = {}): void => {
    this.events.push(ev(distinctId, name, ago(msAgo), properties));
  };

  /** PostHog's `_make_event_sequence`: in period k, `counts[k]` events at now - k·interval days - 1 hour - i minutes. */
  eventSequence = (distinctId: string, intervalDays: number, counts: number[], name = '$pageview', properties: Record<string, unknown> = {}): void => {
    counts.forEach((n, k) => {
      for (let i = 0; i < n; i++) this.event(distinctId, name, intervalDays * k * DAY + HOUR + i * MINUTE, properties);
    });
  };

  uuidOf = (name: string): string => this.uuid(this.persons.findIndex((p) => p.name === name));

  /** Creates the project and imports every person and event into it; answers its id. */
  async load(s: TestServer, projectName: string): Promise<number> {
    const r = await s.api('POST', '/api/projects/', { name: projectName });
    expect(r.status).toBe(201);
    const pid: number = r.body.id;
    await s.server.services.ingestor.import(pid, { persons: this.persons.map((p, i) => ({ id: this.uuid(i), distinct_ids: [p.name], properties: p.properties })), events: this.events });
    await s.server.services.ingestor.flush();
    return pid;
  }

  /** The persons of case `prefix` in the cohort, by name, read through the query API's `IN COHORT`. */
  async members(s: TestServer, projectId: number, cohortId: number, prefix: string): Promise<string[]> {
    const r = await s.api('POST', `/api/projects/${projectId}/query/`, {
      query: { kind: 'HogQLQuery', query: `SELECT id FROM persons WHERE id IN COHORT ${cohortId}` },
      refresh: 'force_blocking',
    });
    expect([r.status, r.body.detail]).toEqual([200, undefined]);
    const nameOf = new Map(this.persons.map((p, i) => [this.uuid(i), p.name]));
    return (r.body.results as string[][])
      .map(([u]) => nameOf.get(String(u).toLowerCase()) ?? String(u))
      .filter((n) => n.startsWith(`${prefix}_`))
      .sort();
  }
}
