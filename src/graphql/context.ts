import type { Principal } from '../auth/principal';
import type { Services } from '../services';

/** What every resolver receives: the authenticated principal and the service layer. */
export interface GraphQLContext {
  principal: Principal;
  services: Services;
  requestId: string;
}
