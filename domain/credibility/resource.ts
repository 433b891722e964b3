import type { Model, ModelStatic } from 'sequelize';
import type { z } from 'zod';
import type { IdPrefix } from '../../lib/ids';

/** What distinguishes one credibility resource (portfolio, testimonials, certifications) from the others. */
export interface CredibilityResource {
  /** Singular, for messages: "Portfolio item not found". */
  name: string;
  path: string;
  /** OpenAPI tag. */
  tag: string;
  /** OpenAPI component name of the record; the bodies are `Create<schemaName>Body` and `Update<schemaName>Body`. */
  schemaName: string;
  idPrefix: IdPrefix;
  /** Keys wrapping the record(s) in `data`. */
  keys: { single: string; list: string };
  model: ModelStatic<Model>;
  /** Whether records carry `productId`, validated on write and hidden on read once the product is archived. */
  linksProduct: boolean;
  /**
   * Writable fields, named as the model's attributes. No defaults here: the table holds them, and a default
   * would make an omitted field on PATCH overwrite the stored value.
   */
  fields: Record<string, z.ZodType>;
  /** Fields required on create. */
  required: readonly string[];
  /** Response fields besides id, accountId, createdAt and updatedAt, in response order. */
  output: Record<string, z.ZodType>;
}
