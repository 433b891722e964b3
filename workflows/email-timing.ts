/**
 * The timing of one e-mail send, shared by the workflow that schedules it, the activity that leases it and the
 * tests that wait for a send a crash interrupted. Pure constants: the workflow bundle imports this file.
 */

/** One attempt's start-to-close: above the mailer's own timeouts (lib/email/mailer.ts, at most about 70 s). */
export const EMAIL_SEND_ATTEMPT_MS = 2 * 60_000;

/** Temporal's first retry interval after a failed or lost attempt; it doubles from there. */
export const EMAIL_SEND_FIRST_RETRY_MS = 60_000;

/**
 * How long one attempt holds the right to send: its own start-to-close, so the retry Temporal schedules after a
 * lost attempt (start-to-close, then backoff) always finds the lease free, and an attempt still running can
 * never overlap it.
 */
export const EMAIL_SEND_LEASE_MS = EMAIL_SEND_ATTEMPT_MS;

/** When a send that a crash caught in flight has been tried again at the latest: its lost attempt ran out, then the backoff. */
export const EMAIL_SEND_RECOVERY_MS = EMAIL_SEND_ATTEMPT_MS + EMAIL_SEND_FIRST_RETRY_MS;
