import pino from 'pino';

/** One pino logger per process; secrets in headers and bodies are redacted before any line is written. */
export function createLogger(level: string, name: string): pino.Logger {
  return pino({
    level,
    name,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.secret',
        '*.value',
        '*.password',
        'secretKey',
        'liveSecretKey',
      ],
      censor: '[redacted]',
    },
  });
}

export type Logger = pino.Logger;
