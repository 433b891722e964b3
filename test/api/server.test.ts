import express from 'express';
import { listen } from '../../api/server';
import { createLogger } from '../../lib/logger';

describe('listen', () => {
  it('gives a request an hour, so a 500 MB upload on a slow link is not cut at Node’s 5-minute default', async () => {
    const server = await listen(express(), 0, createLogger('silent', 'server-test'), async () => undefined);
    try {
      expect(server.requestTimeout).toBe(60 * 60 * 1000);
      expect(server.headersTimeout).toBeLessThanOrEqual(60_000);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
