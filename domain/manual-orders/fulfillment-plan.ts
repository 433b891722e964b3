import type { ManualOrderLine } from '../../db/models';

/**
 * The paid-checkout fulfillment of a confirmed manual order (document 1, States: "for digital or licence
 * products"): one delivery step per such line, then the receipt carrying their links and keys. Physical lines
 * without a licence are the merchant's to ship by hand (fulfillmentStatus, tracking fields).
 *
 * Step names are a contract with running workflows (a plan is recorded in their histories): never renamed or
 * repurposed, only added.
 */
export const MANUAL_ORDER_STEPS = { receipt: 'email:receipt' } as const;
const DELIVERY_STEP = 'delivery:';
export const deliveryStep = (lineKey: string) => `${DELIVERY_STEP}${lineKey}`;
/** The line key of a delivery step, or undefined for another step. */
export const lineKeyOfStep = (step: string) => (step.startsWith(DELIVERY_STEP) ? step.slice(DELIVERY_STEP.length) : undefined);

export const needsFulfillment = (line: Pick<ManualOrderLine, 'productType' | 'licenseEnabled'>) => line.productType === 'digital' || line.licenseEnabled;

export function planManualOrderFulfillment(lines: ManualOrderLine[]): string[] {
  const delivered = lines.filter(needsFulfillment);
  return delivered.length === 0 ? [] : [...delivered.map((line) => deliveryStep(line.lineKey)), MANUAL_ORDER_STEPS.receipt];
}
