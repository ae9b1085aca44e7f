/**
 * Pieces every insight runner needs around a query: the common WHERE clause, `date_from: all`, bucket-key parsing.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import type { RunnerContext } from '../runner';
import { runInsightQuery, toNumber } from './execute';
import { propertiesToExpr, testAccountFiltersExpr } from './property-filters';
import { containsAggregate } from './math';
import { validationError } from '../../errors';
import type { PropertiesInput } from './schema';

/** Node fields shared by every insight that shape the global filter. */
export interface GlobalFilterInput {
  properties?: PropertiesInput;
  filterTestAccounts?: boolean | null;
}

/**
 * The node-level WHERE parts: global `properties` AND (when `filterTestAccounts`) the project's test-account filters.
 * Undefined when nothing filters.
 */
export function globalFilterExpr(node: GlobalFilterInput, ctx: Pick<RunnerContext, 'project'>, table?: string): Expr | undefined {
  const properties = propertiesToExpr(node.properties, { table, timezone: ctx.project.timezone, attr: 'properties' });
  // An insight filters events (WHERE); an aggregate has no value per event (the engine would refuse it in its own words).
  // (EventsQuery, which turns such filters into HAVING, does not come through here.)
  if (containsAggregate(properties)) throw validationError('A ProductQL filter of an insight cannot aggregate (count(), sum(), …): it filters each event.', 'properties');
  const parts = [
    properties,
    testAccountFiltersExpr(ctx.project, node.filterTestAccounts, { table, timezone: ctx.project.timezone, attr: 'filterTestAccounts' }),
  ].filter((x): x is Expr => !!x);
  return parts.length ? ast.and(...parts) : undefined;
}

/** PostHog's EARLIEST_TIMESTAMP (posthog/queries/util.py): events before it are not where `all` starts. */
const EARLIEST_TIMESTAMP = '2015-01-01 00:00:00';

/**
 * The earliest event timestamp among events matching `where` (for `date_from: "all"`); null when there is none.
 * As PostHog's get_earliest_timestamp, only events after {@link EARLIEST_TIMESTAMP} count (a device clock years
 * behind does not stretch the range back to it).
 * `alias` names the events table as the runner's own query does (stickiness: `e`), so the same filters resolve.
 */
export async function earliestTimestamp(ctx: RunnerContext, where: Expr | undefined, alias?: string): Promise<Date | null> {
  const q = ast.select({
    select: [ast.alias('t', ast.call('toUnixTimestamp', [ast.call('min', [ast.field('timestamp')])]))],
    from: 'events',
    fromAlias: alias,
    where: ast.and(where, ast.compare('>', ast.field('timestamp'), ast.constant(EARLIEST_TIMESTAMP))),
  });
  const { rows } = await runInsightQuery(ctx, q, 'earliest');
  const t = rows[0]?.t;
  // (ClickHouse's min over no rows is the type's default, the epoch, not NULL)
  return t === null || t === undefined || toNumber(t) === 0 ? null : new Date(toNumber(t) * 1000);
}

/** The local time of a bucket key (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`). */
export function parseBucketKey(key: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?/.exec(key);
  if (!m) return NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
}
