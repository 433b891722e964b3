import pino from 'pino';

/**
 * One pino logger per process, writing to stdout unless given `destination`; secrets in headers and bodies
 * are redacted before any line is written.
 */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    name,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.secret', '*.value', '*.password', 'secretKey', 'liveSecretKey'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = pino.Logger;
