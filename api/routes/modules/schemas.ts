import { z } from 'zod';
import { MODULES } from '../../../domain/modules';

export const SetModuleBody = z
  .object({ module: z.enum(MODULES), enabled: z.boolean() })
  .strict()
  .meta({ id: 'SetModuleBody' });
export type SetModuleBody = z.infer<typeof SetModuleBody>;

export const ModuleFlags = z.object({ fulfillment: z.boolean(), payment: z.boolean() }).meta({ id: 'ModuleFlags' });
