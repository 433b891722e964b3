import { sameEmail } from '../../domain/manual-orders/tracker';

// docs/decisions/manual-orders.md, "Order tracker": the buyer proves the order is theirs by its e-mail, retyped.

describe('sameEmail', () => {
  it('ignores letter case and surrounding spaces', () => {
    expect(sameEmail('  Buyer@Example.COM ', 'buyer@example.com')).toBe(true);
  });

  it('ignores the Unicode form the address was typed in (NFC on both sides)', () => {
    const composed = 'jos\u00e9@example.com';
    const decomposed = 'jose\u0301@example.com';
    expect(sameEmail(decomposed, composed)).toBe(true);
    expect(sameEmail(composed, decomposed)).toBe(true);
  });

  it('refuses any other address, a near miss or an empty one included', () => {
    expect(sameEmail('buyer@example.co', 'buyer@example.com')).toBe(false);
    expect(sameEmail('buyer+1@example.com', 'buyer@example.com')).toBe(false);
    expect(sameEmail('', 'buyer@example.com')).toBe(false);
  });
});
