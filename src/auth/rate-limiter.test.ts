import { rateFamilyOf } from '../../rest-compat/route';
import { DEFAULT_RATE_RULES, queryRateFamily, RateLimiter, rateRules } from './rate-limiter';
import type { Principal } from './principal';

const key = (keyId: string): Principal => ({ kind: 'personal', keyId, userId: 1, scopes: ['*'], projectIds: null });
const secret: Principal = { kind: 'project_secret', keyId: 's1', projectId: 7, scopes: ['endpoint:read'] };

describe('RateLimiter', () => {
  it('a sliding window, as DRF SimpleRateThrottle: a request is forgotten a minute after it was made, not when a clock minute turns', () => {
    let t = 30_000;
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, default: { burst: 2, sustained: 100 } }, () => t);
    rl.check(key('a'), 'default');
    t = 45_000;
    rl.check(key('a'), 'default');
    t = 61_000; // a new clock minute: a fixed window would start again here
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ status: 429, retryAfter: 29 }));
    t = 90_000; // the first request is a minute old: one place is free, the second one's is not yet
    rl.check(key('a'), 'default');
    expect(() => rl.check(key('a'), 'default')).toThrow(
      expect.objectContaining({ retryAfter: 15, message: 'Request was throttled. Expected available in 15 seconds.' }),
    );
  });

  it('the wait is rounded up to whole seconds; one second is singular', () => {
    let t = 0;
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, default: { burst: 1, sustained: 100 } }, () => t);
    rl.check(key('a'), 'default');
    t = 58_500;
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ retryAfter: 2 }));
    t = 59_500;
    expect(() => rl.check(key('a'), 'default')).toThrow(
      expect.objectContaining({ retryAfter: 1, message: 'Request was throttled. Expected available in 1 second.' }),
    );
  });

  it('every throttle judges on its own (DRF check_throttles): a request the burst refuses still counts for the sustained one', () => {
    let t = 0;
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, default: { burst: 1, sustained: 3 } }, () => t);
    rl.check(key('a'), 'default');
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ retryAfter: 60 }));
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ retryAfter: 60 }));
    // three requests in the hour so far, the refused two included: the hour is spent once the minute has passed
    t = 61_000;
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ retryAfter: 3539 }));
  });

  it('refuses over the burst until its oldest request is a minute old', () => {
    let t = 120_000;
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, default: { burst: 2, sustained: 10 } }, () => t);
    rl.check(key('a'), 'default');
    rl.check(key('a'), 'default');
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ status: 429, retryAfter: 60 }));
    t += 30_000;
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ retryAfter: 30 }));
    t += 30_000;
    rl.check(key('a'), 'default'); // a new minute
  });

  it('enforces the sustained hourly budget across minutes', () => {
    let t = 0;
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, query: { burst: 100, sustained: 3 } }, () => t);
    for (let i = 0; i < 3; i++) {
      rl.check(key('a'), 'query');
      t += 60_000;
    }
    expect(() => rl.check(key('a'), 'query')).toThrow(expect.objectContaining({ status: 429, retryAfter: 3420 }));
  });

  it('counts a project across its keys, and a secret key against its own project', () => {
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, endpoint_run: { burst: 2, sustained: 100 } }, () => 0);
    rl.check(key('a'), 'endpoint_run', 7);
    rl.check(secret, 'endpoint_run');
    expect(() => rl.check(key('b'), 'endpoint_run', 7)).toThrow(expect.objectContaining({ status: 429 }));
    rl.check(key('b'), 'endpoint_run', 8); // another project is unaffected
  });

  it.each([
    ['/projects/:projectId/query', 'query'],
    ['/projects/:projectId/query/:queryId', 'query'],
    ['/projects/:projectId/endpoints/:name/run', 'endpoint_run'],
    ['/projects/:projectId/insights', 'analytics'],
    ['/projects/:projectId/insights.:format', 'analytics'],
    ['/projects/:projectId/persons/:personId', 'analytics'],
    ['/projects/:projectId/persons', 'analytics'],
    ['/projects/:projectId/events', 'analytics'],
    ['/projects/:projectId/events/:eventId', 'analytics'],
    ['/projects', 'default'],
    ['/projects/:projectId/query_log', 'default'],
  ])('route %s is in family %s', (path, family) => {
    expect(rateFamilyOf(path)).toBe(family);
  });

  it.each([
    [{ query: { kind: 'HogQLQuery', query: 'select 1' } }, 'query'],
    [{ query: { kind: 'ProductQLQuery', query: 'select 1' } }, 'query'],
    [{ query: { kind: 'TrendsQuery', series: [] } }, 'analytics'],
    [{ query: { kind: 'EventsQuery', select: ['event'] } }, 'analytics'],
    [{ query: 'select 1' }, 'analytics'],
    [undefined, 'analytics'],
    [null, 'analytics'],
  ])('QueryViewSet.get_throttles: %j has the %s throttles', (body, family) => {
    expect(queryRateFamily(body)).toBe(family);
  });

  it('reads overrides over the defaults and rejects malformed ones', () => {
    expect(rateRules('{"query": {"burst": 1, "sustained": 2}}').query).toEqual({ burst: 1, sustained: 2 });
    expect(rateRules(undefined)).toEqual(DEFAULT_RATE_RULES);
    expect(() => rateRules('{"nope": {"burst": 1, "sustained": 2}}')).toThrow();
  });
});

describe('RateLimiter memory', () => {
  it('forgets keys and projects idle for an hour, and counts them afresh when they come back', () => {
    let t = 0;
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, query: { burst: 1, sustained: 1 } }, () => t);
    rl.check(key('a'), 'query', 1);
    expect(() => rl.check(key('a'), 'query', 1)).toThrow(expect.objectContaining({ status: 429 }));
    t = 3_600_000 + 60_000; // the hour has ended; the next check sweeps
    rl.check(key('b'), 'query', 2);
    const internals = rl as unknown as { byKey: Map<string, Map<string, unknown>>; byProject: Map<string, Map<number, unknown>> };
    expect([...internals.byKey.get('query')!.keys()]).toEqual(['b']);
    expect([...internals.byProject.get('query')!.keys()]).toEqual([2]);
    rl.check(key('a'), 'query', 1);
  });

  it('keeps families apart for the same key', () => {
    const rl = new RateLimiter({ ...DEFAULT_RATE_RULES, query: { burst: 1, sustained: 10 }, default: { burst: 1, sustained: 10 } }, () => 0);
    rl.check(key('a'), 'query');
    rl.check(key('a'), 'default');
    expect(() => rl.check(key('a'), 'query')).toThrow(expect.objectContaining({ status: 429 }));
    expect(() => rl.check(key('a'), 'default')).toThrow(expect.objectContaining({ status: 429 }));
  });
});
