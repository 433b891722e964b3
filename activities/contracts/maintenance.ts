/** What one maintenance purge removed: expired rows by kind (db/retention.ts), and abandoned upload files. */
export interface MaintenanceResult {
  idempotencyKeys: number;
  rateLimits: number;
  deliveryAttempts: number;
  events: number;
  storefrontEvents: number;
  workflowStarts: number;
  shippingWebhookReceipts: number;
  /** Temporary files of uploads whose API process died mid-stream. */
  abandonedUploads: number;
}

/** The maintenance-purge workflow's activity (activities/maintenance.ts). */
export type MaintenanceActivities = {
  purgeExpiredRecords(): Promise<MaintenanceResult>;
};
