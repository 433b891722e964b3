import { z } from 'zod';

/** The installed instance a licence is activated on: 1 to 200 characters, no control characters, not blank. */
export const InstanceId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, 'no control characters')
  .regex(/\S/, 'must not be blank')
  .meta({ description: 'Stable per install (a machine id, an install UUID); 1 to 200 characters' });

/** The body of activate and deactivate. */
export const LicenseInstanceBody = z.object({ instanceId: InstanceId }).strict().meta({ id: 'LicenseInstanceBody' });
export type LicenseInstanceBody = z.infer<typeof LicenseInstanceBody>;
