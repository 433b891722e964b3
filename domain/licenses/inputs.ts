import { z } from 'zod';
import { singleLine } from '../../lib/text';

/** The installed instance a licence is activated on: 1 to 200 characters, no control characters, not blank. */
export const InstanceId = singleLine({ max: 200, min: 1 }).meta({ description: 'Stable per install (a machine id, an install UUID); 1 to 200 characters, trimmed' });

/** The body of activate and deactivate. */
export const LicenseInstanceBody = z.object({ instanceId: InstanceId }).strict().meta({ id: 'LicenseInstanceBody' });
export type LicenseInstanceBody = z.infer<typeof LicenseInstanceBody>;
