/**
 * The groups API suite (test/helpers/groups-compat.ts) on ClickHouse: group types and groups are written through the
 * same ingest batches and read with FINAL, so the answers must be the DuckDB ones (a real ClickHouse on loopback).
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';
import { describeGroupsCompat } from '../helpers/groups-compat';

describeClickHouse('groups API on ClickHouse', () => {
  describeGroupsCompat('ClickHouse', quarryOnClickHouse('quarry_groups_api'));
});
