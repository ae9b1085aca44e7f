/**
 * PostHog's entity comparison for funnel exclusions (reference §3.3 Exclusions: "exclusion may not equal/be a superset
 * of a step event in its range"; posthog/hogql_queries/insights/utils/entities.py is_equal / is_superset).
 */
import { exclusionCoversStep, isEqualEntity, isSupersetEntity } from './entities';

const P = (key: string, value: unknown, type = 'event') => ({ key, value, operator: 'exact', type });
const ev = (event: string | null, properties?: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'EventsNode', event, ...(properties ? { properties } : {}), ...extra });
const ex = (node: Record<string, unknown>) => ({ ...node, funnelFromStep: 0, funnelToStep: 1 });

describe('isEqualEntity', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, boolean]>([
    ['same event, no filters', ev('a'), ev('a'), true],
    ['missing and empty filters', ev('a'), ev('a', []), true],
    ['filters in another order', ev('a', [P('x', 1), P('y', 2)]), ev('a', [P('y', 2), P('x', 1)]), true],
    ['keys of a filter in another order', ev('a', [{ value: 1, key: 'x', type: 'event', operator: 'exact' }]), ev('a', [P('x', 1)]), true],
    ['another event', ev('a'), ev('b'), false],
    ['all events vs one event', ev(null), ev('a'), false],
    ['another filter value', ev('a', [P('x', 1)]), ev('a', [P('x', 2)]), false],
    ['other fixed properties', ev('a', [], { fixedProperties: [P('x', 1)] }), ev('a'), false],
    ['same action', { kind: 'ActionsNode', id: 3 }, { kind: 'ActionsNode', id: 3, name: 'n' }, true],
    ['another action', { kind: 'ActionsNode', id: 3 }, { kind: 'ActionsNode', id: 4 }, false],
    ['an action vs an event', { kind: 'ActionsNode', id: 3 }, ev('a'), false],
    ['display fields do not count', ev('a', [], { name: 'A', custom_name: 'x', math: 'dau' }), ev('a'), true],
  ])('%s → %s', (_n, a, b, expected) => {
    expect(isEqualEntity(a, b)).toBe(expected);
    expect(isEqualEntity(b, a)).toBe(expected);
  });
});

describe('isSupersetEntity(a, b): every filter of b is one of a', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, boolean]>([
    ['b without filters', ev('a', [P('x', 1)]), ev('a'), true],
    ['b with a subset', ev('a', [P('x', 1), P('y', 2)]), ev('a', [P('y', 2)]), true],
    ['b with the same filters', ev('a', [P('x', 1)]), ev('a', [P('x', 1)]), true],
    ['b with a filter a lacks', ev('a', [P('x', 1)]), ev('a', [P('x', 1), P('y', 2)]), false],
    ['b with a fixed property among a filters', ev('a', [P('x', 1)]), ev('a', [], { fixedProperties: [P('x', 1)] }), true],
    ['another event', ev('a', [P('x', 1)]), ev('b'), false],
  ])('%s → %s', (_n, a, b, expected) => {
    expect(isSupersetEntity(a, b)).toBe(expected);
  });
});

describe('exclusionCoversStep (an exclusion that would exclude its own step is refused)', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, boolean]>([
    ['the step event itself', ev('signup'), ex(ev('signup')), true],
    ['the step event without the step filters (broader)', ev('signup', [P('x', 1)]), ex(ev('signup')), true],
    ['a subset of the step filters (broader)', ev('signup', [P('x', 1), P('y', 2)]), ex(ev('signup', [P('x', 1)])), true],
    ['the step filters in another order', ev('signup', [P('x', 1), P('y', 2)]), ex(ev('signup', [P('y', 2), P('x', 1)])), true],
    ['the step action', { kind: 'ActionsNode', id: 7 }, ex({ kind: 'ActionsNode', id: 7 }), true],
    ['a narrower exclusion (an extra filter)', ev('signup'), ex(ev('signup', [P('x', 1)])), false],
    ['another value of the step filter', ev('signup', [P('x', 1)]), ex(ev('signup', [P('x', 2)])), false],
    ['another event', ev('signup'), ex(ev('x')), false],
    ['another action', { kind: 'ActionsNode', id: 7 }, ex({ kind: 'ActionsNode', id: 8 }), false],
  ])('%s → %s', (_n, step, exclusion, expected) => {
    expect(exclusionCoversStep(step, exclusion)).toBe(expected);
  });
});
