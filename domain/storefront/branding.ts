import type { Account } from '../../db/models';

/**
 * The merchant as the buyer pages show it (the hosted checkout page, the order page): its name, and only the
 * branding a page can use safely.
 */
export interface PageMerchant {
  name: string;
  /** `#rrggbb`, or null when unset or not a colour: it is written into a <style> block. */
  brandColor: string | null;
  /** An http(s) URL or null: it becomes an image source and an origin of the page's CSP. */
  logoUrl: string | null;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

/** The URL when it is http(s); anything else (`javascript:`, `data:`, unparsable) is null, so it never becomes a link or an image. */
export function httpUrlOrNull(value: string | null): string | null {
  if (!value) return null;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}

export function pageMerchantOf(account: Pick<Account, 'name' | 'brandColor' | 'brandLogo'>): PageMerchant {
  return {
    name: account.name,
    brandColor: account.brandColor && COLOR.test(account.brandColor) ? account.brandColor : null,
    logoUrl: httpUrlOrNull(account.brandLogo),
  };
}
