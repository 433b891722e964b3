/** The licenses area's entry: what routers, activities, the worker and other areas use of it. */
export { LicenseInstanceBody } from './inputs';
export { issueLicense } from './issue';
export { licenseKeyPrefix, newLicenseKey } from './key';
export { createPublicLicenseService } from './public';
export { createLicenseService } from './service';
export { licenseStatus } from './status';
