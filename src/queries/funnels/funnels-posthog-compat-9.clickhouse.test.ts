/** funnels-posthog-compat-9.test.ts on ClickHouse: the same file, the same PostHog expectations (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('funnels-posthog-compat-9.test.ts', () => require('./funnels-posthog-compat-9.test'));
