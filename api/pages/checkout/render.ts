import type { Response } from 'express';
import type { HostedCheckoutView, ReceiptItem } from '../../../domain/checkout';
import type { PaymentMethod } from '../../../db/models';
import { engine, renderMessage as renderPageMessage, sendPage, type PageKind } from '../shared/render';
import { COMPLETED, EXPIRED, FAILED, OPEN, PARTIALS, PENDING } from './templates';

/** How each payment method value reads on the page (docs/decisions/checkout.md names the values). */
export const METHOD_LABELS: Record<PaymentMethod, string> = {
  qris: 'QRIS',
  va: 'Bank transfer (virtual account)',
  card: 'Card',
  ewallet: 'E-wallet',
  intl_wallet: 'International wallet',
};

for (const [name, source] of Object.entries(PARTIALS)) engine.registerPartial(name, source);
const bodies = {
  open: engine.compile(OPEN),
  pending_review: engine.compile(PENDING),
  completed: engine.compile(COMPLETED),
  expired: engine.compile(EXPIRED),
  failed: engine.compile(FAILED),
};

const kindAt = (base: string): PageKind => ({ base, footer: 'Checkout' });

function methodsOf(view: HostedCheckoutView) {
  return view.paymentMethods.map((value, index) => ({ value, label: METHOD_LABELS[value], checked: index === 0 }));
}

function receiptContext(view: HostedCheckoutView) {
  const items = view.receipt?.items ?? [];
  const of = <K extends ReceiptItem['kind']>(...kinds: K[]) => items.filter((item): item is Extract<ReceiptItem, { kind: K }> => (kinds as string[]).includes(item.kind));
  return {
    ready: view.receipt?.ready ?? false,
    completedAt: view.receipt?.completedAt,
    downloads: of('download', 'download_unavailable'),
    licenses: view.receipt?.licenses ?? [],
    orderPages: view.receipt?.orderPages ?? [],
    others: of('shipment', 'manual').map((item) => ({ lineName: item.lineName, note: item.kind === 'shipment' ? 'Shipped to your address.' : 'Delivered by the merchant directly.' })),
  };
}

const TITLES: Record<HostedCheckoutView['state'], string> = {
  open: 'Checkout',
  pending_review: 'Awaiting confirmation',
  completed: 'Receipt',
  expired: 'Checkout expired',
  failed: 'Checkout not completed',
};

/** The page of one session in its current state; `notice` explains a refused pay. */
export function renderSession(res: Response, base: string, view: HostedCheckoutView, { status = 200, notice }: { status?: number; notice?: string } = {}): void {
  const methods = methodsOf(view);
  const qrisImageUrl = view.instructions?.qrisImageUrl;
  const context = {
    ...view,
    base,
    lines: view.lines.map((line) => ({ ...line, showQuantity: line.quantity !== 1 })),
    methods,
    singleMethod: methods.length === 1 ? methods[0] : null,
    methodLabel: view.paymentMethod ? METHOD_LABELS[view.paymentMethod] : null,
    ...receiptContext(view),
  };
  sendPage(res, {
    ...kindAt(base),
    status,
    title: TITLES[view.state],
    merchant: view.merchant,
    testMode: view.testMode,
    reference: view.id,
    notice,
    images: qrisImageUrl ? [qrisImageUrl] : [],
    formOrigins: view.state === 'open' && view.providerOrigin ? [view.providerOrigin] : [],
    body: bodies[view.state](context),
  });
}

/** A page without a session: unknown id, a refused request, a failure. */
export function renderMessage(res: Response, base: string, text: { status: number; heading: string; message: string }): void {
  renderPageMessage(res, kindAt(base), text);
}
