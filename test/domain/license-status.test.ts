import { licenseKeyPrefix, newLicenseKey } from '../../domain/licenses/key';
import { licenseStatus } from '../../domain/licenses/status';

// docs/decisions/licenses.md, "Status" and "Keys": the derived status and the key's shape, with no licence row.

const now = Date.parse('2026-06-01T00:00:00Z');

describe('licenseStatus', () => {
  it('reads an active licence as expired from its expiresAt on (the instant included)', () => {
    expect(licenseStatus({ status: 'active', expiresAt: new Date(now + 1) }, now)).toBe('active');
    expect(licenseStatus({ status: 'active', expiresAt: new Date(now) }, now)).toBe('expired');
    expect(licenseStatus({ status: 'active', expiresAt: new Date(now - 1) }, now)).toBe('expired');
  });

  it('takes expiresAt as stored text too, with its offset', () => {
    expect(licenseStatus({ status: 'active', expiresAt: '2026-06-01T06:59:59+07:00' }, now)).toBe('expired');
    expect(licenseStatus({ status: 'active', expiresAt: '2026-06-01T07:00:01+07:00' }, now)).toBe('active');
  });

  it('keeps an active licence without expiresAt active for ever', () => {
    expect(licenseStatus({ status: 'active', expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe('active');
  });

  it('honours a written revocation or expiry whatever the date', () => {
    expect(licenseStatus({ status: 'revoked', expiresAt: new Date(now + 86_400_000) }, now)).toBe('revoked');
    expect(licenseStatus({ status: 'revoked', expiresAt: new Date(now - 86_400_000) }, now)).toBe('revoked');
    expect(licenseStatus({ status: 'expired', expiresAt: null }, now)).toBe('expired');
  });
});

describe('licence key prefix and shape', () => {
  it('keeps at most six letters and digits, dropping separators wherever they are', () => {
    expect(licenseKeyPrefix('ab_cd.ef-gh')).toBe('ABCDEF');
    expect(licenseKeyPrefix('abcdef')).toBe('ABCDEF');
    expect(licenseKeyPrefix('2030')).toBe('2030');
    expect(licenseKeyPrefix('')).toBe('LIC');
  });

  it('puts the given prefix before four groups of four symbols', () => {
    const key = newLicenseKey('LIC');
    expect(key.split('-').map((part) => part.length)).toEqual([3, 4, 4, 4, 4]);
    expect(key.startsWith('LIC-')).toBe(true);
  });
});
