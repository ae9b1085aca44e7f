import { Endpoint } from './endpoint';
import { EndpointVersion } from './endpoint-version';
import { PersonalApiKey } from './personal-api-key';
import { Insight } from './insight';
import { InsightViewed } from './insight-viewed';
import { ActivityLog } from './activity-log';
import { Project } from './project';
import { ProjectSecretApiKey } from './project-secret-api-key';
import { User } from './user';
import { Action } from './action';
import { Cohort } from './cohort';
import { InsightVariable } from './insight-variable';

export { PersonalApiKey, Project, ProjectSecretApiKey, User };
export { Insight, ActivityLog, InsightViewed };
export { Endpoint, EndpointVersion };
export { Action };
export { Cohort };
export { InsightVariable };

export const ENTITIES = [
  User,
  Project,
  PersonalApiKey,
  ProjectSecretApiKey,
  Insight,
  InsightViewed,
  ActivityLog,
  Endpoint,
  EndpointVersion,
  Action,
  Cohort,
  InsightVariable,
];
