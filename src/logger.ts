import pino, { type Logger } from 'pino';

/** Structured JSON logs on stdout (fastify's own logger). Keys and Authorization headers never appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'quarry' },
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.api_key', '*.token', 'value'], censor: '[redacted]' },
  });
}
