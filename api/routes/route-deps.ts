import type { Services } from '../../domain/services';
import type { EndpointDeps } from '../endpoint';

/** What every router gets: the endpoint machinery and the domain services (apart from the registry, which imports every router). */
export interface RouteDeps extends EndpointDeps {
  services: Services;
}
