/** The deliveries area's entry: what routers, activities, the worker and other areas use of it. */
export { DOWNLOAD_LINK_TTL_MS, createDownloadLinks } from './links';
export type { DownloadLinks } from './links';
export { createDeliveryService } from './service';
