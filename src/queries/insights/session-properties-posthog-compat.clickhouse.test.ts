/** session-properties-posthog-compat.test.ts on ClickHouse: the same scenarios, the same expected results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('session-properties-posthog-compat.test.ts', () => require('./session-properties-posthog-compat.test'));
