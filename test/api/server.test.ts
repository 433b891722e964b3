import express from 'express';
import { listen } from '../../api/server';
import { createLogger } from '../../lib/logger';

describe('listen', () => {
  it('bounds every request by the upload allowance (each route’s own deadline is the app’s), and headers by 60 s', async () => {
    const server = await listen(express(), 0, createLogger('silent', 'server-test'), async () => undefined);
    try {
      expect(server.requestTimeout).toBe(60 * 60 * 1000);
      expect(server.headersTimeout).toBeLessThanOrEqual(60_000);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
