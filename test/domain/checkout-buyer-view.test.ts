import type { CheckoutSession } from '../../db/models';
import { CHECKOUT_STATUSES } from '../../db/models/checkout-session';
import { buyerStatus, maskEmail, toPublicCheckoutSessionDto } from '../../domain/checkout/public-view';

// docs/decisions/checkout.md, "Sessions API": the buyer's view of a session, as values.

const deadline = new Date('2026-05-01T12:00:00Z');
const justBefore = new Date(deadline.getTime() - 1);

describe('buyerStatus', () => {
  it('reads an open session as expired from its expiresAt on, before the expiry step writes it', () => {
    expect(buyerStatus({ status: 'open', expiresAt: deadline }, justBefore)).toBe('open');
    expect(buyerStatus({ status: 'open', expiresAt: deadline }, deadline)).toBe('expired');
  });

  it('shows every other status as stored, past the deadline too (a pending_review buyer has paid in time)', () => {
    for (const status of CHECKOUT_STATUSES.filter((s) => s !== 'open')) {
      expect(buyerStatus({ status, expiresAt: deadline }, new Date(deadline.getTime() + 86_400_000))).toBe(status);
    }
  });
});

describe('maskEmail', () => {
  it('keeps the first character of the local part and the whole domain', () => {
    expect(maskEmail('buyer@example.com')).toBe('b***@example.com');
    expect(maskEmail('j@example.co.id')).toBe('j***@example.co.id');
  });

  it('never cuts a character in two, and masks up to the last @', () => {
    expect(maskEmail('😀fan@example.com')).toBe('😀***@example.com');
    expect(maskEmail('"a@b"@example.com')).toBe('"***@example.com');
  });
});

describe('the buyer’s view of a session', () => {
  const session = (status: CheckoutSession['status']) =>
    ({
      id: 'cs_1',
      accountId: 'acc_secret',
      environment: 'test',
      status,
      amount: 9_000,
      currency: 'USD',
      description: 'Order',
      customerEmail: 'buyer@example.com',
      customerId: 'cust_secret',
      metadata: { internal: 'x' },
      lineItems: [{ lineKey: '1', productId: 'prod_1', variantId: null, name: 'Ebook', variantName: 'PDF', quantity: 2, unitAmount: 4_500, amount: 9_000 }],
      subtotal: 9_000,
      discountCode: null,
      discountAmount: 0,
      paymentMethods: ['va'],
      paymentMethod: null,
      expiresAt: deadline,
      completedAt: null,
      successUrl: null,
      cancelUrl: null,
    }) as unknown as CheckoutSession;
  const account = {
    name: 'Warung',
    slug: 'warung',
    brandColor: null,
    brandLogo: null,
    manualBankName: 'BCA',
    manualAccountNumber: '123',
    manualAccountHolder: 'Budi',
    manualPaymentInstructions: 'Transfer the exact amount',
  };

  it('shows the bank details only while a local-mode payment awaits the merchant', () => {
    const bank = { bankName: 'BCA', accountNumber: '123', accountHolder: 'Budi', instructions: 'Transfer the exact amount' };
    expect(toPublicCheckoutSessionDto(session('pending_review'), account, { mode: 'local' }, justBefore).manualPayment).toEqual(bank);
    expect(toPublicCheckoutSessionDto(session('pending_review'), account, { mode: 'provider' }, justBefore).manualPayment).toBeNull();
    for (const status of ['open', 'completed', 'expired', 'failed'] as const) {
      expect(toPublicCheckoutSessionDto(session(status), account, { mode: 'local' }, justBefore).manualPayment).toBeNull();
    }
  });

  it('answers the buyer’s status, a masked e-mail and labelled lines, never the workspace, customer or metadata', () => {
    const view = toPublicCheckoutSessionDto(session('open'), account, { mode: 'local' }, deadline);
    expect(view).toMatchObject({ status: 'expired', customerEmailMasked: 'b***@example.com', lineItems: [{ name: 'Ebook (PDF)', quantity: 2, unitAmount: 4_500, amount: 9_000 }] });
    expect(JSON.stringify(view)).not.toMatch(/acc_secret|cust_secret|internal|buyer@example\.com/);
  });
});
