import { Initial1764100000001 } from './0001-initial';
import { ProjectSettings1764100000002 } from './0002-project-settings';
import { Insights1764100000003 } from './0003-insights';
import { Endpoints1764100000004 } from './0004-endpoints';
import { Actions1764100000005 } from './0005-actions';
import { Cohorts1764100000006 } from './0006-cohorts';
import { InsightFilters1764100000007 } from './0007-insight-filters';
import { InsightViewed1764100000008 } from './0008-insight-viewed';
import { KeyRolls1764100000009 } from './0009-key-rolls';
import { EndpointOptionalBreakdowns1764100000010 } from './0010-endpoint-optional-breakdowns';
import { InsightVariables1764100000011 } from './0011-insight-variables';
import { PersonDisplayNameProperties1764100000012 } from './0012-person-display-name-properties';
import { AnonymizeIps1764100000013 } from './0013-anonymize-ips';
import { KeyScopedOrganizations1764100000014 } from './0014-key-scoped-organizations';

/** Every migration, oldest first. A later issue appends its own; never edit a released one. */
export const MIGRATIONS = [
  Initial1764100000001,
  ProjectSettings1764100000002,
  Insights1764100000003,
  Endpoints1764100000004,
  Actions1764100000005,
  Cohorts1764100000006,
  InsightFilters1764100000007,
  InsightViewed1764100000008,
  KeyRolls1764100000009,
  EndpointOptionalBreakdowns1764100000010,
  InsightVariables1764100000011,
  PersonDisplayNameProperties1764100000012,
  AnonymizeIps1764100000013,
  KeyScopedOrganizations1764100000014,
];
