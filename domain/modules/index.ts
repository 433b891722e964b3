/** The modules area's entry: what routers, activities, the worker and other areas use of it. */
export { MODULES, assertModuleEnabled, createModuleService } from './service';
export type { GatedModule } from './service';
