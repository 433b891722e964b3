import { loadConfig } from '../../../lib/config';
import { emailMessageId, EMAIL_KINDS, parseEmailData, renderEmail, type EmailMerchant } from '../../../lib/email';
import { configProblems } from '../../helpers/config';

const merchant: EmailMerchant = {
  name: 'Acme <img src=x onerror=alert(1)>',
  brandColor: '#ff6600',
  logoUrl: 'https://cdn.acme.test/logo.png',
  manualPayment: { bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'PT <Acme>', instructions: 'Transfer within 24 hours.\n<b>Quote the reference</b>' },
};

const receipt = parseEmailData('checkout_receipt', {
  buyerName: '<script>alert("buyer")</script>',
  orderNumber: 'cs_01',
  currency: 'USD',
  lines: [{ name: 'Ebook <script>alert(1)</script>', quantity: 2, amount: 3998 }],
  subtotal: 3998,
  discount: { code: 'SPRING<10>', amount: 400 },
  total: 3598,
  downloads: [{ name: 'book.pdf', url: 'https://files.acme.test/d/tok?a=1&b=2' }],
  licenceKeys: [{ product: 'App', key: 'KEY-<1>' }],
  orderUrl: 'https://acme.test/order/del_01J00000000000000000000000',
});

describe('renderEmail', () => {
  it('escapes every merchant- and buyer-supplied value in the HTML part and keeps the text part literal', () => {
    const { html, text, subject } = renderEmail('checkout_receipt', receipt, merchant);
    expect(html).not.toMatch(/<script|<img src=x|<b>Quote|<1>/);
    expect(html).toContain('&lt;script&gt;alert(&quot;buyer&quot;)&lt;/script&gt;');
    expect(html).toContain('Ebook &lt;script&gt;alert(1)&lt;/script&gt; × 2');
    expect(html).toContain('KEY-&lt;1&gt;');
    expect(text).toContain('Hi <script>alert("buyer")</script>,');
    expect(text).toContain('- Ebook <script>alert(1)</script> × 2: $39.98');
    expect(subject).toBe('Your receipt from Acme <img src=x onerror=alert(1)> (cs_01)');
  });

  it('carries lines, subtotal, discount, total, download links, licence keys and the order link in both parts, with the merchant’s branding', () => {
    const { html, text } = renderEmail('checkout_receipt', receipt, merchant);
    for (const part of [html, text]) {
      expect(part).toContain('$39.98');
      expect(part).toContain('$35.98');
      expect(part).toContain('book.pdf');
      expect(part).toContain('KEY-');
    }
    expect(html).toContain('href="https://files.acme.test/d/tok?a&#x3D;1&amp;b&#x3D;2"');
    expect(html).toContain('href="https://acme.test/order/del_01J00000000000000000000000"');
    expect(html).toContain('<td>Discount (SPRING&lt;10&gt;)</td><td align="right">−$4.00</td>');
    expect(html).toContain('background:#ff6600');
    expect(html).toContain('<img src="https://cdn.acme.test/logo.png"');
    expect(text).toContain('book.pdf: https://files.acme.test/d/tok?a=1&b=2');
    expect(text).toContain('Subtotal: $39.98\nDiscount (SPRING<10>): −$4.00\nTotal: $35.98');
    expect(text).toContain('View your order: https://acme.test/order/del_01J00000000000000000000000');
    expect(text.trim().endsWith(merchant.name)).toBe(true);
  });

  it('drops a brand colour or logo it cannot trust, falling back to the name on a neutral colour', () => {
    const { html } = renderEmail('payment_confirmed', parseEmailData('payment_confirmed', { orderNumber: 'cs_02', currency: 'IDR', amount: 150000 }), {
      ...merchant,
      brandColor: 'red;background:url(https://evil.test)',
      logoUrl: 'javascript:alert(1)',
    });
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('evil.test');
    expect(html).toContain('background:#18181b');
    expect(html).toMatch(/IDR\s150,000/);
  });

  it('refuses non-http(s) links, multi-line names and unknown fields when the data is checked', () => {
    const base = { orderNumber: 'cs_03', currency: 'USD', lines: [{ name: 'A', quantity: 1, amount: 1 }], total: 1 };
    expect(() => parseEmailData('checkout_receipt', { ...base, downloads: [{ name: 'x', url: 'javascript:alert(1)' }] })).toThrow();
    expect(() => parseEmailData('checkout_receipt', { ...base, orderUrl: 'data:text/html,hi' })).toThrow();
    expect(() => parseEmailData('checkout_receipt', { ...base, buyerName: 'Eve\nBcc: x@y.test' })).toThrow();
    expect(() => parseEmailData('checkout_receipt', { ...base, extra: 1 })).toThrow();
  });

  it('shows the merchant’s bank details and instructions in the manual-order e-mail, escaped line by line', () => {
    const { html, text } = renderEmail('manual_order_instructions', parseEmailData('manual_order_instructions', { orderNumber: 'mord_1', currency: 'IDR', amount: 250000 }), merchant);
    expect(html).toContain('<strong>1234567890</strong>');
    expect(html).toContain('PT &lt;Acme&gt;');
    expect(html).toContain('Transfer within 24 hours.<br>&lt;b&gt;Quote the reference&lt;/b&gt;');
    expect(text).toContain('Account number: 1234567890');
    expect(text).toContain('Reference: mord_1');
    expect(text).toMatch(/IDR\s250,000/);
  });

  it('names courier and tracking number in the shipping notification only when set', () => {
    const full = renderEmail('shipping_notification', parseEmailData('shipping_notification', { orderNumber: 'mord_2', courier: 'JNE', trackingNumber: 'JN123', trackingUrl: 'https://track.test/JN123' }), merchant);
    expect(full.text).toContain('Courier: JNE');
    expect(full.text).toContain('Tracking number: JN123');
    expect(full.html).toContain('href="https://track.test/JN123"');
    const bare = renderEmail('shipping_notification', parseEmailData('shipping_notification', { orderNumber: 'mord_2' }), merchant);
    expect(bare.text).not.toMatch(/Courier|Tracking/);
    expect(bare.subject).toBe('Your order mord_2 has shipped');
  });

  it('renders every kind with an HTML document and a plain-text part', () => {
    const samples: Record<(typeof EMAIL_KINDS)[number], unknown> = {
      checkout_receipt: receipt,
      manual_order_instructions: { orderNumber: 'o', currency: 'USD', amount: 1 },
      payment_confirmed: { orderNumber: 'o', currency: 'USD', amount: 1 },
      shipping_notification: { orderNumber: 'o' },
      subscription_payment_failed: { invoiceNumber: 'INV-1', description: 'Pro', currency: 'USD', amount: 1, payUrl: 'https://shop.test/checkout/cs_1' },
      api_key_rotated: {
        keyName: 'Zapier',
        keyHint: 'sk_test_…a1b2',
        environment: 'test',
        rotatedBy: 'ana@shop.test',
        rotatedAt: 'Nov 27, 2026, 9:40 PM UTC',
        oldValueExpiresAt: 'Nov 28, 2026, 9:40 PM UTC',
        keysUrl: 'https://shop.test/dashboard/developers/api-keys',
      },
    };
    for (const kind of EMAIL_KINDS) {
      const rendered = renderEmail(kind, parseEmailData(kind, samples[kind]), merchant);
      expect(rendered.html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(rendered.text).not.toMatch(/<(p|table|td|a|br)\b/);
      expect(rendered.subject).not.toMatch(/\n/);
    }
  });
});

describe('emailMessageId', () => {
  it('is the same for the same business key and sender domain, and differs per key, workspace and environment', () => {
    const key = { accountId: 'acc_1', environment: 'test', businessKey: 'checkout_receipt:cs_1' };
    const id = emailMessageId(key, 'Shop <no-reply@Shop.Example>');
    expect(id).toMatch(/^<[0-9a-f]{64}@shop\.example>$/);
    expect(emailMessageId(key, 'no-reply@shop.example')).toBe(id);
    expect(emailMessageId({ ...key, businessKey: 'checkout_receipt:cs_2' }, 'no-reply@shop.example')).not.toBe(id);
    expect(emailMessageId({ ...key, environment: 'live' }, 'no-reply@shop.example')).not.toBe(id);
    expect(emailMessageId({ ...key, accountId: 'acc_2' }, 'no-reply@shop.example')).not.toBe(id);
  });
});

describe('EMAIL_FROM', () => {
  it('defaults to a local sender and accepts one address with or without a name', () => {
    expect(loadConfig({}).EMAIL_FROM).toBe('Commerce Service <no-reply@localhost>');
    expect(configProblems({ EMAIL_FROM: 'Shop <shop@example.com>' })).toEqual([]);
    expect(configProblems({ EMAIL_FROM: 'shop@example.com' })).toEqual([]);
  });

  it('refuses something that is not one address', () => {
    for (const bad of ['shop', 'a@b.test, c@d.test', 'Shop <>', 'Group: a@b.test;']) {
      expect(configProblems({ EMAIL_FROM: bad })).toEqual([expect.stringMatching(/^EMAIL_FROM: must be one e-mail address/)]);
    }
  });
});
