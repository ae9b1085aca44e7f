import type { FastifyInstance } from 'fastify';
import { registerBackupRoute } from '../src/backup/backup-route';
import type { Services } from '../src/services';
import { registerActionRoutes } from './actions';
import { registerCohortRoutes } from './cohorts';
import { registerElementRoutes } from './elements';
import { registerEndpointRoutes } from './endpoints';
import { registerEventRoutes } from './events';
import { registerGroupRoutes } from './groups';
import { registerInsightRoutes } from './insights';
import { registerInsightVariableRoutes } from './insight-variables';
import { registerKeyRoutes } from './keys';
import { registerFormParser } from './multipart';
import { registerProjectRoutes } from './projects';
import { registerQueryRoutes } from './query';
import { registerSessionRoutes } from './sessions';

/** The REST paths PostHog users already call, each a thin call into the service layer. */
export function registerRestRoutes(app: FastifyInstance, services: Services): void {
  registerFormParser(app);
  registerProjectRoutes(app, services);
  registerKeyRoutes(app, services);
  registerQueryRoutes(app, services);
  registerEventRoutes(app, services);
  registerEndpointRoutes(app, services);
  registerInsightRoutes(app, services);
  registerInsightVariableRoutes(app, services);
  registerActionRoutes(app, services);
  registerCohortRoutes(app, services);
  registerGroupRoutes(app, services);
  registerSessionRoutes(app, services);
  registerElementRoutes(app, services);
  registerBackupRoute(app, services);
}
