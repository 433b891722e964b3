import { invoiceNumber, taxOf } from '../../domain/invoices/issue';

// docs/decisions/billing.md, "Invoices": tax and numbers as values, without issuing an invoice.

describe('taxOf', () => {
  it('rounds exactly past 2^53: subtotal × bps is computed without losing a unit', () => {
    // 999_999_995_001 × 9_999 = 9_998_999_950_014_999 → 999_899_995_001.4999, which rounds down.
    expect(taxOf(999_999_995_001, 9_999)).toBe(999_899_995_001);
  });

  it('rounds subtotal × bps / 10000 half up to the smallest unit: 0.5 → 1, 0.4999 → 0', () => {
    expect(taxOf(5, 1_000)).toBe(1); // 0.5
    expect(taxOf(4, 1_000)).toBe(0); // 0.4
    expect(taxOf(4_999, 1)).toBe(0); // 0.4999
    expect(taxOf(5_000, 1)).toBe(1); // 0.5
    expect(taxOf(15, 1_000)).toBe(2); // 1.5: half up, not half to even
    expect(taxOf(25, 1_000)).toBe(3); // 2.5
  });

  it('is nothing at rate 0 or on a zero subtotal, and the whole subtotal at 10000 bps', () => {
    expect(taxOf(123_456, 0)).toBe(0);
    expect(taxOf(0, 10_000)).toBe(0);
    expect(taxOf(999, 10_000)).toBe(999);
  });

  it('computes on IDR rupiah and USD cents alike (the smallest unit, no decimals left)', () => {
    expect(taxOf(150_000, 1_100)).toBe(16_500); // 11 % VAT on 150 000 rupiah
    expect(taxOf(1_999, 1_100)).toBe(220); // 219.89 cents → 220
    expect(taxOf(12_345, 1_100)).toBe(1_358); // 1357.95 → 1358
  });

  it('stays exact for the largest subtotal an invoice takes (10^12) at rates whose product fits 2^53', () => {
    expect(taxOf(1_000_000_000_000, 1_100)).toBe(110_000_000_000);
    expect(taxOf(999_999_999_999, 5_000)).toBe(500_000_000_000); // 499 999 999 999.5 → up
  });
});

describe('invoiceNumber', () => {
  it('is INV-<first six letters or digits of the slug, upper-cased>-<seq padded to six>', () => {
    expect(invoiceNumber('acme', 42)).toBe('INV-ACME-000042');
    expect(invoiceNumber('warung-budi-2', 1)).toBe('INV-WARUNG-000001');
    expect(invoiceNumber('a1-b2-c3-d4', 7)).toBe('INV-A1B2C3-000007');
  });

  it('is INV-<seq> without a slug or with one of no letters or digits', () => {
    expect(invoiceNumber(null, 3)).toBe('INV-000003');
    expect(invoiceNumber('---', 3)).toBe('INV-000003');
  });

  it('pads to at least six digits and never cuts a longer sequence', () => {
    expect(invoiceNumber('acme', 999_999)).toBe('INV-ACME-999999');
    expect(invoiceNumber('acme', 1_000_000)).toBe('INV-ACME-1000000');
  });
});
