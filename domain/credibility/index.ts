/** The credibility area's entry: what routers, activities, the worker and other areas use of it. */
export { certifications } from './certifications';
export * as credibilityFields from './fields';
export { clearable, optionalText, recordBase, requiredText, webUrl } from './fields';
export { portfolio } from './portfolio';
export type { CredibilityResource } from './resource';
export { createCredibilityService } from './service';
export type { CredibilityService } from './service';
export { testimonials } from './testimonials';
