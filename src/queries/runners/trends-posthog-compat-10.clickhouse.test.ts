/** trends-posthog-compat-10.test.ts on ClickHouse: the same PostHog scenarios, the same expected results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('trends-posthog-compat-10.test.ts', () => require('./trends-posthog-compat-10.test'));
