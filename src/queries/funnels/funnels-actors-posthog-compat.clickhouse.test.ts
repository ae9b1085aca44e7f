/** funnels-actors-posthog-compat.test.ts on ClickHouse: the same file, the same PostHog expectations (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('funnels-actors-posthog-compat.test.ts', () => require('./funnels-actors-posthog-compat.test'));
