/** groups-posthog-compat-2.test.ts on ClickHouse: the same PostHog scenarios, the same expected results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('groups-posthog-compat-2.test.ts', () => require('./groups-posthog-compat-2.test'));
