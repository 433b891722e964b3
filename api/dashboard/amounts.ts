import { currencyExponent } from '../../lib/money';

/** An amount in the smallest unit as typed in a form: `1250` USD → `12.50`. */
export function majorUnits(amount: number, currency: string): string {
  const digits = currencyExponent(currency);
  return (amount / 10 ** digits).toFixed(digits);
}

/** A typed amount in whole units (`12.5`, `12.50`, `150000`) in the smallest unit; null when it is not one. */
export function smallestUnits(text: string, currency: string): number | null {
  const digits = currencyExponent(currency);
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text.replace(/,/g, ''));
  if (!match || (match[2] ?? '').length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || '0');
}
