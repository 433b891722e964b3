import type { HttpResult } from './context';

/** Asserts the failure envelope: status, code, `data: null`, and a request id that matches the header. */
export function expectError(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, code: (res.body.error as { code?: string } | null)?.code }).toEqual({ status, code });
  expect(res.body.data).toBeNull();
  expect(typeof (res.body.error as { message?: unknown }).message).toBe('string');
  const meta = res.body.meta as { requestId: string; timestamp: string };
  expect(meta.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(new Date(meta.timestamp).toISOString()).toBe(meta.timestamp);
  expect(res.headers.get('x-request-id')).toBe(meta.requestId);
}
